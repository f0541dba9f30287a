"""Prometheus metrics of one process (a registry per app, so tests can build many apps).

Labelled children are looked up once and kept: `labels()` takes a lock and hashes its
arguments on every call, which the request path should not pay for. `serve_metrics` answers
`GET /metrics` on a port of its own (STELA_METRICS_PORT), never the API's, as Prometheus
deployments expect; it needs nothing but the process, so it answers while PostgreSQL is down.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

CONTENT_TYPE = b"text/plain; version=0.0.4; charset=utf-8"


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
        self.horizon_held = Gauge("stela_projection_horizon_blocked_seconds",
                                  "how long an open transaction of this database has held every read model back",
                                  registry=self.registry)
        self.fanout_degraded = Gauge("stela_fanout_degraded",
                                     "1 while Redis is unhealthy and followers poll PostgreSQL", registry=self.registry)
        self._children: dict[tuple[Any, ...], Any] = {}

    def _child(self, metric: Any, *labels: str) -> Any:
        key = (id(metric), *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one HTTP request and observe its latency."""
        self._child(self.requests, method, route, str(status)).inc()
        self._child(self.latency, route).observe(seconds)

    def command(self, kind: str, result: str) -> None:
        """Count one game command by kind and result (`accepted`, `dry_run` or the error's class)."""
        self._child(self.commands, kind, result).inc()


async def serve_metrics(host: str, port: int, render: Callable[[], Awaitable[bytes]]) -> asyncio.Server:
    """A minimal HTTP/1.1 server: `GET /metrics` is `render()`'s exposition, anything else 404.

    Several worker processes may bind the same port (each scrape then reaches one of them).
    """

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            method, _, rest = head.partition(b" ")
            path = rest.split(b" ", 1)[0].split(b"?", 1)[0]
            if method == b"GET" and path == b"/metrics":
                status, body, kind = b"200 OK", await render(), CONTENT_TYPE
            else:
                status, body, kind = b"404 Not Found", b"not found\n", b"text/plain"
            writer.write(b"HTTP/1.1 " + status + b"\r\ncontent-type: " + kind + b"\r\ncontent-length: "
                         + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        finally:
            writer.close()

    return await asyncio.start_server(answer, host, port, reuse_port=True)
