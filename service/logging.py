"""structlog configured for JSON lines; a middleware logs each request with its id and latency.

Tokens never reach the logs: only the path, method, status, player id and timings are logged.
"""

from __future__ import annotations

import logging
import sys
import time
import uuid
from typing import Any

import structlog
from litestar.types import ASGIApp, Receive, Scope, Send


def configure(level: str = "info") -> None:
    logging.basicConfig(format="%(message)s", stream=sys.stderr, level=getattr(logging, level.upper(), 20))
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="iso"), structlog.processors.format_exc_info,
                    structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper(), 20)),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr), cache_logger_on_first_use=True)


log = structlog.get_logger("stela.http")


def _route(scope: Scope) -> str:
    """The matched operation (a low-cardinality metric label), or "unmatched"."""
    template = scope.get("path_template")
    if template:
        return str(template)
    handler = scope.get("route_handler")
    name = getattr(handler, "operation_id", None) or getattr(handler, "handler_name", None)
    return str(name) if name else "unmatched"


def request_logging(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: request id (X-Request-ID in and out), access log line, Prometheus counters."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        request_id = headers.get(b"x-request-id", b"").decode("latin-1")[:64] or uuid.uuid4().hex
        structlog.contextvars.clear_contextvars()
        path = scope.get("path", "")
        parts = path.split("/")
        game_id = parts[3] if len(parts) > 3 and parts[1:3] == ["v1", "games"] else None
        structlog.contextvars.bind_contextvars(request_id=request_id, game_id=game_id)
        start = time.perf_counter()
        status: dict[str, Any] = {"code": 500}

        async def send_wrapper(message: Any) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await app(scope, receive, send_wrapper)
        finally:
            elapsed = time.perf_counter() - start
            route = _route(scope)
            metrics = scope["app"].state.get("metrics") if scope.get("app") else None
            if metrics is not None:
                metrics.requests.labels(scope.get("method", ""), route, str(status["code"])).inc()
                metrics.latency.labels(route).observe(elapsed)
            player = (scope.get("state") or {}).get("player_id")
            log.info("request", method=scope.get("method"), path=path, status=status["code"],
                     latency_ms=round(elapsed * 1000, 2), player_id=player)

    return middleware
