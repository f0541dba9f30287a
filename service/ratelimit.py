"""Requests per minute per client address, counted in process memory in O(1) per request.

A fixed one-minute window per address: a counter and the window it belongs to, no awaits and
no history to encode (Litestar's limiter keeps and re-encodes every request's timestamp, which
grows with the limit). Over the limit a request gets a 429 problem with `Retry-After`. Each
process counts its own clients, as Litestar's in-memory store did.
"""

from __future__ import annotations

import math
import time
from typing import Any

import msgspec
from litestar.types import ASGIApp, Receive, Scope, Send

from service.errors import PROBLEM, TYPE_BASE, ProblemDetail

WINDOW = 60.0
EXCLUDED = ("/healthz", "/readyz", "/metrics", "/schema")
_MAX_CLIENTS = 100_000  # beyond this, forget addresses whose window has passed


def rate_limit(per_minute: int) -> Any:
    """ASGI middleware factory admitting `per_minute` requests per client address."""

    def factory(app: ASGIApp) -> ASGIApp:
        counts: dict[str, list[float]] = {}  # address -> [window start, count]

        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope["path"].startswith(EXCLUDED):
                await app(scope, receive, send)
                return
            client = scope.get("client")
            key = client[0] if client else "127.0.0.1"
            now = time.monotonic()
            entry = counts.get(key)
            if entry is None or now - entry[0] >= WINDOW:
                if entry is None and len(counts) >= _MAX_CLIENTS:
                    for stale in [k for k, v in counts.items() if now - v[0] >= WINDOW]:
                        del counts[stale]
                counts[key] = entry = [now, 0]
            entry[1] += 1
            if entry[1] <= per_minute:
                await app(scope, receive, send)
                return
            await _refuse(scope, send, max(1, math.ceil(entry[0] + WINDOW - now)))

        return middleware

    return factory


async def _refuse(scope: Scope, send: Send, retry_after: int) -> None:
    body = msgspec.json.encode(ProblemDetail(
        type=TYPE_BASE + "rate_limited", title="Too many requests", status=429, code="rate_limited",
        detail="too many requests; retry after the time in Retry-After", instance=scope["path"]))
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode()),
                            (b"retry-after", str(retry_after).encode())]})
    await send({"type": "http.response.body", "body": body})
