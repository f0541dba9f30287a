"""Prometheus metrics of one process (a registry per app, so tests can build many apps).

Labelled children are looked up once and kept: `labels()` takes a lock and hashes its
arguments on every call, which the request path should not pay for. The two metrics of every
request (its count and its latency) are not prometheus_client's `Counter` and `Histogram` at all
but plain counts kept in dicts and turned into the same samples when scraped (`RequestCounts`,
`RequestLatency`): a request costs a dict update and a bisection instead of two locked updates
and the histogram's walk over its buckets. `serve_metrics` answers
`GET /metrics` on a port of its own (STELA_METRICS_PORT), never the API's, as Prometheus
deployments expect; it needs nothing but the process, so it answers while PostgreSQL is down.
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

CONTENT_TYPE = b"text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)


class RequestCounts(Collector):
    """`stela_http_requests_total{method, route, status}`: HTTP requests, counted in a dict."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, int], int] = {}

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily("stela_http_requests", "HTTP requests", labels=["method", "route", "status"])
        for (method, route, status), count in list(self.counts.items()):
            family.add_metric([method, route, str(status)], count)
        yield family


class RequestLatency(Collector):
    """`stela_http_request_seconds{route}`: the histogram of HTTP request latency, per route a list of
    counts (one per bucket, +Inf last, not cumulative) and their sum, made cumulative when scraped."""

    def __init__(self, buckets: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.bounds = buckets
        self.routes: dict[str, list[float]] = {}  # route -> [count per bucket..., count beyond, sum]

    def observe(self, route: str, seconds: float) -> None:
        found = self.routes.get(route)
        if found is None:
            found = self.routes[route] = [0] * (len(self.bounds) + 1) + [0.0]
        found[bisect.bisect_left(self.bounds, seconds)] += 1  # (a bucket counts what is <= its bound)
        found[-1] += seconds

    def collect(self) -> Iterator[HistogramMetricFamily]:
        family = HistogramMetricFamily("stela_http_request_seconds", "HTTP request latency", labels=["route"])
        for route, found in list(self.routes.items()):
            total, cumulative = 0, []
            for bound, count in zip([*map(str, map(float, self.bounds)), "+Inf"], found[:-1]):
                total += int(count)
                cumulative.append((bound, total))
            family.add_metric([route], cumulative, found[-1])
        yield family


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = RequestCounts()
        self.latency = RequestLatency()
        self.registry.register(self.requests)
        self.registry.register(self.latency)
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
        key = (method, route, status)
        counts = self.requests.counts
        counts[key] = counts.get(key, 0) + 1
        self.latency.observe(route, seconds)

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
