"""Prometheus metrics of one process (a registry per app, so tests can build many apps)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("stela_http_requests_total", "HTTP requests", ["method", "route", "status"],
                                registry=self.registry)
        self.latency = Histogram("stela_http_request_seconds", "HTTP request latency", ["route"],
                                 registry=self.registry,
                                 buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
        self.commands = Counter("stela_commands_total", "game commands", ["kind", "result"], registry=self.registry)
        self.sse = Gauge("stela_sse_connections", "open SSE connections", registry=self.registry)
        self.lag_events = Gauge("stela_projection_lag_events", "events behind the log head", ["projection"],
                                registry=self.registry)
        self.lag_seconds = Gauge("stela_projection_lag_seconds", "age of the oldest unprojected event",
                                 ["projection"], registry=self.registry)
