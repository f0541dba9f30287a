"""Fair request budgets: per player when authenticated, per client address otherwise.

A fixed one-minute window per bucket. The bucket of a request with a bearer token the process
already knows is the player's; any other request's is the client address (`service.edge`:
behind trusted proxies only, so a client cannot pick its own). Opening a stream (a path ending
in `/stream`) draws from a separate, generous budget so a browser's reconnects are never refused
by a busy API budget, and open streams are capped per bucket in this process (counted here, not
across replicas). With REDIS_URL the window counters live in Redis (INCR and, on a window's first
hit, EXPIRE in one script: one command, one round trip, shared by every replica); while Redis fails or is slow the process counts
alone, and retries Redis a few seconds later. CORS preflights (OPTIONS) are never limited.
Every refusal is a 429 problem with `Retry-After`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import structlog
from litestar.types import ASGIApp, Receive, Scope, Send

from service.edge import Network, client_address
from service.errors import send_problem

log = structlog.get_logger("stela.ratelimit")
WINDOW = 60
EXCLUDED = ("/healthz", "/readyz", "/metrics", "/schema")
_MAX_BUCKETS = 100_000  # beyond this, forget buckets whose window has passed
_REDIS_PAUSE = 5.0  # seconds without trying Redis after it failed
STREAM_RETRY = 5  # Retry-After when the open-stream cap is reached


# INCR and EXPIRE as one command: ~70 us of client CPU per hit against ~95 us for a two-command pipeline
_COUNT = "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n"


class Counters:
    """Fixed-window counters: in Redis when given a client, always in memory as the fallback."""

    def __init__(self, redis: Any = None) -> None:
        self.redis = redis
        self._memory: dict[str, list[int]] = {}  # key -> [window, count]
        self._redis_paused_until = 0.0
        self._count: Any = None  # the counting script, registered on first use

    async def hit(self, key: str, now: float) -> int:
        """Count one request for `key` in the current window; the window's count so far."""
        window = int(now // WINDOW)
        if self.redis is not None and now >= self._redis_paused_until:
            try:
                if self._count is None:
                    self._count = self.redis.register_script(_COUNT)
                return int(await self._count(keys=[f"stela:rl:{key}:{window}"], args=[WINDOW * 2]))
            except Exception as exc:  # noqa: BLE001 - any Redis trouble: count here for a while
                self._redis_paused_until = now + _REDIS_PAUSE
                log.warning("rate_limit_redis_unavailable", error_type=type(exc).__name__)
        entry = self._memory.get(key)
        if entry is None or entry[0] != window:
            if entry is None and len(self._memory) >= _MAX_BUCKETS:
                for stale in [k for k, v in self._memory.items() if v[0] != window]:
                    del self._memory[stale]
            self._memory[key] = entry = [window, 0]
        entry[1] += 1
        return entry[1]


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


def rate_limit(per_minute: int, streams_per_minute: int, max_streams: int, trusted: tuple[Network, ...],
               counters: Counters, known_player: Callable[[str | None], str | None]) -> Any:
    """ASGI middleware factory: the budgets above; `known_player` maps an Authorization header to
    the id of a player this process has already authenticated (None: count by address)."""

    def factory(app: ASGIApp) -> ASGIApp:
        open_streams: dict[str, int] = {}

        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            path = scope.get("path", "")
            if scope["type"] != "http" or scope["method"] == "OPTIONS" or path.startswith(EXCLUDED):
                await app(scope, receive, send)
                return
            player = known_player(_header(scope, b"authorization"))
            if player is not None:
                bucket = "p:" + player
            else:
                peer = scope.get("client")
                bucket = "a:" + client_address(peer[0] if peer else None, _header(scope, b"x-forwarded-for"),
                                               trusted)
            stream = path.endswith("/stream")
            budget = streams_per_minute if stream else per_minute
            if budget > 0:
                now = time.time()
                count = await counters.hit(("s:" if stream else "r:") + bucket, now)
                if count > budget:
                    retry = max(1, math.ceil((int(now // WINDOW) + 1) * WINDOW - now))
                    await _refuse(scope, send, retry, budget, "too many requests; retry after Retry-After seconds")
                    return
            if not stream or max_streams <= 0:
                await app(scope, receive, send)
                return
            if open_streams.get(bucket, 0) >= max_streams:
                await _refuse(scope, send, STREAM_RETRY, max_streams,
                              f"at most {max_streams} open streams per client; close one first")
                return
            open_streams[bucket] = open_streams.get(bucket, 0) + 1
            try:
                await app(scope, receive, send)
            finally:
                left = open_streams[bucket] - 1
                if left:
                    open_streams[bucket] = left
                else:
                    del open_streams[bucket]

        return middleware

    return factory


async def _refuse(scope: Scope, send: Send, retry_after: int, limit: int, detail: str) -> None:
    await send_problem(scope, send, 429, "rate_limited", detail,
                       {"Retry-After": str(retry_after), "RateLimit-Limit": str(limit)})
