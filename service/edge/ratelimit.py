"""Fair request budgets: per player when authenticated, per client address otherwise.

A fixed one-minute window per bucket. The bucket of a request with a bearer token the process
already knows is the player's; any other request's is the client address (`service.edge.middleware`:
behind trusted proxies only, so a client cannot pick its own). Opening a stream (a path ending
in `/stream`) draws from a separate, generous budget so a browser's reconnects are never refused
by a busy API budget, and open streams are capped per bucket in this process (counted here, not
across replicas). With REDIS_URL the window counters are shared by every replica through Redis
(see `Counters`: a request waits on Redis only for its bucket's first hit in a window and past 90%
of its budget; other hits are added in a pipelined flush every 100 ms); while Redis fails or is
slow the process counts alone, and retries Redis a few seconds later. CORS preflights (OPTIONS) are never limited.
Every refusal is a 429 problem with `Retry-After`.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable
from typing import Any

import structlog
from litestar.types import ASGIApp, Receive, Scope, Send

from service.edge.middleware import Network, client_address
from service.edge.errors import RateLimited, send_problem

log = structlog.get_logger("stela.ratelimit")
WINDOW = 60
EXCLUDED = ("/healthz", "/readyz", "/metrics", "/schema")
_MAX_BUCKETS = 100_000  # beyond this, forget buckets whose window has passed
_REDIS_PAUSE = 5.0  # seconds without trying Redis after it failed
STREAM_RETRY = 5  # Retry-After when the open-stream cap is reached


# INCRBY and, on a window's first count, EXPIRE as one command; returns the window's count
_COUNT = ("local n = redis.call('INCRBY', KEYS[1], ARGV[2]) "
          "if n == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n")
FLUSH_EVERY = 0.1  # seconds a process keeps its hits before adding them to the shared counters


class Counters:
    """Fixed-window counters: shared in Redis when given a client, always in memory as the fallback.

    With Redis, a request does not wait on Redis once its bucket's window is known here: the first
    hit of a window asks Redis for the count (one round trip), later hits are counted here and
    added to Redis within `FLUSH_EVERY` seconds (one pipelined INCRBY per bucket), and the count a
    hit sees is the shared count last heard plus this process's hits since. Past 90% of the
    budget (`limit`) each hit asks Redis at once, so a refusal is never decided on a stale count; other
    replicas' hits of the last `FLUSH_EVERY` seconds may be missed, so a bucket hammered through
    every replica at once can pass its budget by what those replicas admit in that time.
    """

    def __init__(self, redis: Any = None) -> None:
        self.redis = redis
        self._memory: dict[str, list[int]] = {}  # key -> [window, count]
        self._redis_paused_until = 0.0
        self._count: Any = redis.register_script(_COUNT) if redis is not None else None  # no I/O yet
        self._shared: dict[str, list[int]] = {}  # Redis key -> [window, shared count last heard, unsent hits]
        self._flusher: asyncio.Task[None] | None = None

    async def hit(self, key: str, now: float, limit: int = 0) -> int:
        """Count one request for `key` in the current window; the window's count so far."""
        window = int(now // WINDOW)
        if self.redis is not None and now >= self._redis_paused_until:
            name = f"stela:rl:{key}:{window}"
            entry = self._shared.get(name)
            if entry is not None and (limit <= 0 or entry[1] + entry[2] + 1 <= limit * 9 // 10):
                entry[2] += 1
                self._flush_soon()
                return entry[1] + entry[2]
            try:  # this hit goes to Redis now; the unsent ones stay with the flusher (never sent twice)
                count = await self._add(name, 1)
                return self._remember(name, window, count)
            except Exception as exc:  # noqa: BLE001 - any Redis trouble: count here for a while
                self._pause(now, exc)
        entry = self._memory.get(key)
        if entry is None or entry[0] != window:
            if entry is None and len(self._memory) >= _MAX_BUCKETS:
                for stale in [k for k, v in self._memory.items() if v[0] != window]:
                    del self._memory[stale]
            self._memory[key] = entry = [window, 0]
        entry[1] += 1
        return entry[1]

    async def close(self) -> None:
        """Send the hits not yet shared and stop the flusher."""
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._flusher
        with contextlib.suppress(Exception):
            await self.flush()

    async def flush(self) -> None:
        """Add every bucket's unsent hits to Redis (one pipelined round trip)."""
        sending = [(name, entry, entry[2]) for name, entry in self._shared.items() if entry[2]]
        if not sending:
            return
        pipe = self.redis.pipeline(transaction=False)
        for name, _, unsent in sending:
            await self._count(keys=[name], args=[WINDOW * 2, unsent], client=pipe)  # queued, not sent
        counts = await pipe.execute()  # hits meanwhile are added to the unsent on top
        for (name, entry, unsent), count in zip(sending, counts):
            entry[2] -= unsent
            entry[1] = max(entry[1], int(count))

    async def _add(self, name: str, hits: int) -> int:
        return int(await self._count(keys=[name], args=[WINDOW * 2, hits]))

    def _remember(self, name: str, window: int, count: int) -> int:
        """Take `count` as heard from Redis; the count this process sees (plus its unsent hits)."""
        entry = self._shared.get(name)
        if entry is None:
            if len(self._shared) >= _MAX_BUCKETS:
                for stale in [k for k, v in self._shared.items() if v[0] != window and not v[2]]:
                    del self._shared[stale]
            entry = self._shared[name] = [window, count, 0]
        entry[1] = max(entry[1], count)
        return entry[1] + entry[2]

    def _flush_soon(self) -> None:
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush_later(), name="rate-limit-flush")

    async def _flush_later(self) -> None:
        await asyncio.sleep(FLUSH_EVERY)
        try:
            await self.flush()
        except Exception as exc:  # noqa: BLE001 - the unsent hits stay; Redis is retried later
            self._pause(time.time(), exc)
        else:
            if any(entry[2] for entry in self._shared.values()):
                self._flusher = None
                self._flush_soon()

    def _pause(self, now: float, exc: Exception) -> None:
        self._redis_paused_until = now + _REDIS_PAUSE
        log.warning("rate_limit_redis_unavailable", error_type=type(exc).__name__)


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
                count = await counters.hit(("s:" if stream else "r:") + bucket, now, budget)
                if count > budget:
                    retry = max(1, math.ceil((int(now // WINDOW) + 1) * WINDOW - now))
                    await send_problem(scope, send, RateLimited(
                        "too many requests; retry after Retry-After seconds", retry, budget))
                    return
            if not stream or max_streams <= 0:
                await app(scope, receive, send)
                return
            if open_streams.get(bucket, 0) >= max_streams:
                await send_problem(scope, send, RateLimited(
                    f"at most {max_streams} open streams per client; close one first", STREAM_RETRY, max_streams))
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

