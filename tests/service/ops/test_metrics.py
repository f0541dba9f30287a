"""The request metrics are plain counts made into samples when scraped: they read as prometheus_client's
own Counter and Histogram would have read, bucket boundaries included."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from service.ops.metrics import LATENCY_BUCKETS, Metrics


def samples(registry: CollectorRegistry) -> list[str]:
    """The exposition's sample lines of the request metrics (prometheus_client's `_created` gauges aside)."""
    return sorted(line for line in generate_latest(registry).decode().splitlines()
                  if line.startswith("stela_http_request") and "_created" not in line)


def test_request_counts_and_latency_read_as_prometheus_clients_counter_and_histogram():
    metrics, reference = Metrics(), CollectorRegistry()
    requests = Counter("stela_http_requests_total", "HTTP requests", ["method", "route", "status"], registry=reference)
    latency = Histogram("stela_http_request_seconds", "HTTP request latency", ["route"], registry=reference,
                        buckets=LATENCY_BUCKETS)
    seen = [("GET", "/v1/kinds", 200, 0.0004), ("GET", "/v1/kinds", 200, 0.001), ("POST", "/x", 409, 0.0025),
            ("POST", "/x", 200, 0.0026), ("GET", "unmatched", 404, 5.0), ("GET", "unmatched", 404, 9.5),
            ("POST", "/x", 200, 0.25)] + [("POST", "/x", 200, bound) for bound in LATENCY_BUCKETS]
    for method, route, status, seconds in seen:
        metrics.request(method, route, status, seconds)
        requests.labels(method, route, str(status)).inc()
        latency.labels(route).observe(seconds)
    assert samples(metrics.registry) == samples(reference)
    assert metrics.registry.get_sample_value(
        "stela_http_requests_total", {"method": "GET", "route": "unmatched", "status": "404"}) == 2
