"""Fair request budgets: per player when a request carries a token, per client address otherwise.

A fixed window per bucket (one minute; `STELA_RATE_LIMIT_WINDOW_SECONDS` sets another, as tests do).
The bucket of a request with a bearer token is its subject's, the player it acts for, whichever of the
player's tokens it is (first token, sign-ins, personal and apps' tokens share one budget): every replica
finds it in a directory of token digests (`service.ops.subjects`: filled when a token is issued, before
the response carrying it leaves, and when the app authenticates a token it lacked; one Redis round trip
the first time a replica meets a token, then remembered). Any other request's bucket is the client
address (`service.edge.middleware`: behind trusted proxies only, so a client cannot pick its own);
anonymous requests never spend a player's budget. A token no replica knows (made up, or issued before
the directory kept it) is drawn from its address's budget of unknown tokens (`x:`, the API budget's
size, policy `credentials`), before the app looks it up: made-up tokens are no fresh budgets and cannot
flood the database, while a real token, known everywhere from its issue, never touches that budget, so
they cannot lock a signed-in player out. A known token refused 401 (revoked, expired) leaves the
directory and costs its address one request of that budget. Opening a stream (a path ending
in `/stream`) draws from a separate, generous budget so a browser's reconnects are never refused
by a busy API budget, and open streams are capped per bucket. CORS preflights (OPTIONS) are
never limited. Every refusal is a 429 problem with `Retry-After`: the seconds until the window
ends (at the open-stream cap, `STREAM_RETRY`).

Every response of a limited request, 200s included, says where its bucket stands in the IETF
RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "api";q=600;w=60`
(the budget it draws from: `api`, `streams` for stream openings, or `credentials` for a token no replica
knows; its quota and window) and `RateLimit: "api";r=599;t=42` (what is left of it in this window, and
the seconds until the window ends).

With REDIS_URL the budgets and the stream cap are shared by every replica (`Counters`). A replica
does not ask Redis for every request: it takes a lease of the bucket's window budget (one atomic
script: the window's counter in Redis grows by what it grants, never past the budget) and admits
requests from its lease until it is spent, then asks for another. A bucket's first lease in a
window is one request; each lease spent doubles the next (at most `LEASE_MAX`), and no lease
is more than an eighth of what the window has left (at least one), so the window's last
requests are granted one at a time. However a burst is spread over N replicas, at most the
budget gets through in a window: the margin is 0 while Redis answers. What a replica leased and
did not use when the window ends is not admitted anywhere; the lease cap bounds it to an eighth
of what was left when it was taken, and a replica that still has requests waiting spends it. A
busy client costs one Redis call per `LEASE_MAX` requests instead of one each (a call per
request was ~60 µs of a real command's ~0.65 ms of CPU with Redis, py-spy). (A fixed window lets up to
twice the budget through in a minute that straddles two windows.) An open stream holds a lease in a
sorted set per bucket (`_OPEN`: expired leases dropped, the cap checked and the lease added
atomically); each process renews its leases every `LEASE / 3` seconds and removes them when the
streams close, so a replica killed with its streams open frees them within `LEASE` seconds. While
Redis fails or is slow (every call waits at most 0.25 s) the process counts alone for `_REDIS_PAUSE`
seconds, logged: each replica then admits up to the budget and the cap by itself (N times them over
N replicas), a stream opened meanwhile is not in the shared count, and a replica knows only the
tokens it met itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import time
import uuid
from collections.abc import Callable
from typing import Any

import structlog
from litestar.types import ASGIApp, Receive, Scope, Send

from service.commands.players import bearer
from service.edge.middleware import Network, client_address
from service.edge.errors import RateLimited, send_problem
from service.ops.subjects import ISSUED, Subjects, digest_of

log = structlog.get_logger("stela.ratelimit")
WINDOW = 60
EXCLUDED = ("/healthz", "/readyz", "/metrics", "/schema", "/favicon.ico")
_MAX_BUCKETS = 100_000  # beyond this, forget buckets whose window has passed
_REDIS_PAUSE = 5.0  # seconds without trying Redis after it failed
STREAM_RETRY = 5  # Retry-After when the open-stream cap is reached
LEASE = 60  # seconds an open stream's slot lives in Redis without its process renewing it


LEASE_MAX = 64  # the most requests one lease of a bucket's window budget admits

# a lease of up to ARGV[2] requests of a window whose budget is ARGV[3] (0: none) and whose counter
# (what every lease so far granted) expires after ARGV[1] seconds: at most an eighth of what is left,
# at least one; returns {granted, the counter after it} (granted 0: the budget is spent)
_LEASE = ("local n = tonumber(redis.call('GET', KEYS[1]) or '0') "
          "local want, budget = tonumber(ARGV[2]), tonumber(ARGV[3]) "
          "if budget > 0 then "
          "if n >= budget then return {0, n} end "
          "want = math.min(want, math.max(1, math.floor((budget - n) / 8))) end "
          "n = redis.call('INCRBY', KEYS[1], want) "
          "if n == want then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return {want, n}")
# drop expired leases; below the cap (ARGV[2]) add lease ARGV[1] for ARGV[3] seconds and return 1, else 0
_OPEN = ("local t = redis.call('TIME') local now = tonumber(t[1]) + tonumber(t[2]) / 1000000 "
         "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now) "
         "if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end "
         "redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1]) "
         "redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]) + 1) return 1")
# renew lease ARGV[1] (if it is still there) for ARGV[2] seconds
_RENEW = ("local t = redis.call('TIME') local now = tonumber(t[1]) + tonumber(t[2]) / 1000000 "
          "redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1]) "
          "redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]) + 1) return 1")


class Counters:
    """Fixed-window counters and open-stream slots: shared in Redis when given a client (see the module
    docstring), in this process's memory without one and while Redis fails."""

    def __init__(self, redis: Any = None, prefix: str = "stela:", window: int = WINDOW) -> None:
        self.redis = redis
        self.window = window  # seconds
        self.prefix = prefix
        self._memory: dict[str, list[int]] = {}  # key -> [window, count]
        # key -> [window, leased (0: the budget is spent), used, counter after the last lease, its size asked]
        self._leased: dict[str, list[int]] = {}
        self._asking: dict[str, asyncio.Future[None]] = {}  # key -> the lease being asked for now
        self._open: dict[str, int] = {}  # bucket -> streams open here
        self._leases: dict[str, str] = {}  # lease -> its Redis key, for the streams open here
        self._redis_paused_until = 0.0
        self._scripts: Any = tuple(redis.register_script(s) for s in (_LEASE, _OPEN, _RENEW)) \
            if redis is not None else None  # no I/O yet
        self._renewer: asyncio.Task[None] | None = None
        self.subjects = Subjects(redis, prefix)

    def _shared(self, now: float) -> bool:
        return self.redis is not None and now >= self._redis_paused_until

    async def hit(self, key: str, now: float, limit: int = 0) -> int:
        """Count one request for `key` in the current window against the budget `limit` (0: none);
        the window's count so far (every replica's; shared: what the replicas leased, less what this
        one leased and has not used yet), above `limit` when the request is refused."""
        window = int(now // self.window)
        while self._shared(now):
            lease = self._leased.get(key)
            if lease is not None and lease[0] == window:
                if lease[2] < lease[1]:
                    lease[2] += 1
                    return lease[3] - (lease[1] - lease[2])
                if lease[1] == 0:  # the window's budget is spent (it never grows back within the window)
                    lease[3] += 1
                    return lease[3]
            asking = self._asking.get(key)
            if asking is not None:  # one request asks for the bucket's next lease; the others wait for it
                await asyncio.shield(asking)
                continue
            asking = self._asking[key] = asyncio.get_running_loop().create_future()
            try:
                spent = await self._lease(key, window, limit, lease)
            except Exception as exc:  # noqa: BLE001 - any Redis trouble: count here for a while
                self._pause(now, exc)
                break
            finally:
                del self._asking[key]
                asking.set_result(None)
            if spent is not None:
                return spent
        return self._hit_here(key, window)

    async def _lease(self, key: str, window: int, limit: int, lease: list[int] | None) -> int | None:
        """Take the next lease of `key`'s window budget into `_leased`; when the budget is spent, the
        count to refuse with (the counter plus this request), else None."""
        size = 1 if lease is None or lease[0] != window else min(LEASE_MAX, lease[4] * 2)
        granted, counter = await self._scripts[0](keys=[f"{self.prefix}rl:{key}:{window}"],
                                                  args=[self.window * 2, size, limit])
        if key not in self._leased and len(self._leased) >= _MAX_BUCKETS:
            for stale in [k for k, v in self._leased.items() if v[0] != window]:
                del self._leased[stale]
        if not granted:  # refused from here on, in this window, without asking again
            self._leased[key] = [window, 0, 0, int(counter) + 1, size]
            return int(counter) + 1
        self._leased[key] = [window, int(granted), 0, int(counter), size]
        return None

    async def subject(self, digest: str, now: float) -> str | None:
        """The subject of the token of `digest` as this process knows it, else as Redis does (one round
        trip); None: no replica knows it (`service.ops.subjects`)."""
        found = self.subjects.here(digest)
        if found is not None or not self._shared(now):
            return found
        try:
            return await self.subjects.find(digest)
        except Exception as exc:  # noqa: BLE001 - any Redis trouble: count here for a while
            self._pause(now, exc)
            return None

    async def record(self, digest: str, subject: str, until: float | None) -> None:
        """The token of `digest` is `subject`'s until `until` (Unix seconds; None: no expiry), for every replica."""
        now = time.time()
        try:
            await self.subjects.record(digest, subject, until, self._shared(now))
        except Exception as exc:  # noqa: BLE001 - kept here; the others learn it when they authenticate it
            self._pause(now, exc)

    async def forget(self, digest: str) -> None:
        """The token of `digest` works no longer: no replica counts it as its subject's."""
        now = time.time()
        try:
            await self.subjects.forget(digest, self._shared(now))
        except Exception as exc:  # noqa: BLE001 - the entry lapses on its own
            self._pause(now, exc)

    def _hit_here(self, key: str, window: int) -> int:
        """Count one request for `key` in this process alone."""
        entry = self._memory.get(key)
        if entry is None or entry[0] != window:
            if entry is None and len(self._memory) >= _MAX_BUCKETS:
                for stale in [k for k, v in self._memory.items() if v[0] != window]:
                    del self._memory[stale]
            self._memory[key] = entry = [window, 0]
        entry[1] += 1
        return entry[1]

    async def open_stream(self, bucket: str, most: int) -> str | None:
        """A slot for one more open stream of `bucket` (give it back with `close_stream`), or None at the cap."""
        lease = uuid.uuid4().hex
        now = time.time()
        if self._shared(now):
            name = f"{self.prefix}streams:{bucket}"
            try:
                if not await self._scripts[1](keys=[name], args=[lease, most, LEASE]):
                    return None
            except Exception as exc:  # noqa: BLE001 - any Redis trouble: count here for a while
                self._pause(now, exc)
            else:
                self._leases[lease] = name
                self._open[bucket] = self._open.get(bucket, 0) + 1
                self._renew_soon()
                return lease
        if self._open.get(bucket, 0) >= most:
            return None
        self._open[bucket] = self._open.get(bucket, 0) + 1
        return lease

    async def close_stream(self, bucket: str, lease: str) -> None:
        """Give back the slot `lease` of `bucket`."""
        left = self._open.get(bucket, 1) - 1
        if left > 0:
            self._open[bucket] = left
        else:
            self._open.pop(bucket, None)
        name = self._leases.pop(lease, None)
        if name is not None:
            with contextlib.suppress(Exception):  # unreachable Redis: the lease expires on its own
                await self.redis.zrem(name, lease)

    async def close(self) -> None:
        """Stop renewing leases and give back the ones still held."""
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._renewer
        with contextlib.suppress(Exception):
            if self._leases:
                pipe = self.redis.pipeline(transaction=False)
                for lease, name in self._leases.items():
                    pipe.zrem(name, lease)
                await pipe.execute()

    async def renew(self) -> None:
        """Renew every lease of this process's open streams (one pipelined round trip)."""
        if not self._leases:
            return
        pipe = self.redis.pipeline(transaction=False)
        for lease, name in list(self._leases.items()):
            await self._scripts[2](keys=[name], args=[lease, LEASE], client=pipe)  # queued, not sent
        await pipe.execute()

    def _renew_soon(self) -> None:
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.get_running_loop().create_task(self._renew_loop(), name="stream-lease-renew")

    async def _renew_loop(self) -> None:
        while self._leases:
            await asyncio.sleep(LEASE / 3)
            try:
                await self.renew()
            except Exception as exc:  # noqa: BLE001 - tried again next round, before any lease expires
                self._pause(time.time(), exc)

    def _pause(self, now: float, exc: Exception) -> None:
        if now >= self._redis_paused_until:
            log.warning("rate_limit_redis_unavailable", error_type=type(exc).__name__,
                        counting="per process", retry_in_seconds=_REDIS_PAUSE)
        self._redis_paused_until = now + _REDIS_PAUSE


def _headers(scope: Scope) -> tuple[str | None, str | None]:
    """The request's Authorization and X-Forwarded-For (the first of each), in one pass."""
    authorization = forwarded = None
    for key, value in scope["headers"]:
        if key == b"authorization" and authorization is None:
            authorization = value.decode("latin-1")
        elif key == b"x-forwarded-for" and forwarded is None:
            forwarded = value.decode("latin-1")
    return authorization, forwarded


@functools.lru_cache(maxsize=64)
def _policy_field(policy: str, quota: int, window: int) -> tuple[bytes, bytes]:
    return b"ratelimit-policy", f'"{policy}";q={quota};w={window}'.encode()


def _announcing(send: Send, policy: str, quota: int, remaining: int, reset: int, window: int) -> Send:
    """`send`, with the RateLimit-Policy and RateLimit fields added to the response's head."""
    fields = (_policy_field(policy, quota, window), (b"ratelimit", f'"{policy}";r={remaining};t={reset}'.encode()))

    async def sending(message: Any) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *fields]}
        await send(message)

    return sending


def _reset(now: float, window: int) -> int:
    """Seconds until the window (of `window` seconds) of `now` ends (at least 1)."""
    return max(1, math.ceil((int(now // window) + 1) * window - now))


def _recording(send: Send, state: dict[str, Any], counters: Counters, digest: str | None = None,
               known: bool = False, unknown: tuple[str, int] = ("", 0)) -> Send:
    """`send`, recording before the response starts (no client holds a token every replica cannot find) the
    tokens the request issued and the player of an unknown token of `digest` the app authenticated; a known
    token refused 401 is forgotten, and costs a request of the `unknown` budget (its key and size, if any)."""

    async def sending(message: Any) -> None:
        if message["type"] == "http.response.start":
            for token, subject, until in state.pop(ISSUED, ()):
                await counters.record(digest_of(token), subject, until)
            if digest is not None:
                player = state.get("player_id")  # the caller the app authenticated (service.edge.dependencies)
                if player is not None and not known:
                    await counters.record(digest, player, None)
                elif player is None and known and message["status"] == 401:
                    await counters.forget(digest)
                    if unknown[1] > 0:  # a token that works no longer: its address pays for it
                        await counters.hit(unknown[0], time.time(), unknown[1])
        await send(message)

    return sending


def rate_limit(per_minute: int, streams_per_minute: int, max_streams: int, trusted: tuple[Network, ...],
               counters: Counters, known_player: Callable[[str | None], str | None]) -> Any:
    """ASGI middleware factory: the budgets above; `known_player` maps an Authorization header to
    the id of a player this process has already authenticated (None: not known here)."""

    def factory(app: ASGIApp) -> ASGIApp:
        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            path = scope.get("path", "")
            if scope["type"] != "http" or scope["method"] == "OPTIONS" or path.startswith(EXCLUDED):
                await app(scope, receive, send)
                return
            authorization, forwarded = _headers(scope)
            token = bearer(authorization)
            address = client_address((scope.get("client") or (None,))[0], forwarded, trusted)
            state = scope.setdefault("state", {})  # the app's too: it notes there what it issued and who called
            if token is None:
                await admitted(scope, receive, _recording(send, state, counters), "a:" + address, path)
                return
            digest = digest_of(token)
            subject = known_player(authorization) or await counters.subject(digest, time.time())
            send = _recording(send, state, counters, digest, subject is not None, (f"r:x:{address}", per_minute))
            if subject is not None:
                await admitted(scope, receive, send, "p:" + subject, path)
            else:  # a token no replica knows: drawn from its address's budget for those
                await admitted(scope, receive, send, "x:" + address, path, unknown=True)

        async def admitted(scope: Scope, receive: Receive, send: Send, bucket: str, path: str,
                           unknown: bool = False) -> None:
            """The request counted against `bucket`'s budget (`unknown`: the credentials one), passed on if admitted."""
            stream = path.endswith("/stream")
            policy = "credentials" if unknown and per_minute > 0 else "streams" if stream else "api"
            budget = streams_per_minute if policy == "streams" else per_minute
            if budget > 0:
                now = time.time()
                count = await counters.hit(("s:" if policy == "streams" else "r:") + bucket, now, budget)
                reset = _reset(now, counters.window)
                send = _announcing(send, policy, budget, max(0, budget - count), reset, counters.window)
                if count > budget:
                    what = "requests with tokens no replica knows from this address" if unknown else "requests"
                    await send_problem(scope, send, RateLimited(
                        f"too many {what}; retry after Retry-After seconds", reset, budget))
                    return
            if not stream or max_streams <= 0:
                await app(scope, receive, send)
                return
            lease = await counters.open_stream(bucket, max_streams)
            if lease is None:
                await send_problem(scope, send, RateLimited(
                    f"at most {max_streams} open streams per client; close one first", STREAM_RETRY, max_streams))
                return
            try:
                await app(scope, receive, send)
            finally:
                await counters.close_stream(bucket, lease)

        return middleware

    return factory
