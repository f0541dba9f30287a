"""Fan-out of new events to this process's game followers, in process or through Redis.

After an append the service `publish`es the new events of a game. The broker
hands them at once to the local follower of that game (see `service.live.follower`),
which feeds every SSE connection of the game on this process. With Redis, the
events also go out to the other processes: each publishes one message per publish
round on a channel of its own and hears every other process's channel but never
its own (`service.live.fanout_messages`: what the channels and messages are, and
what replicas of the previous release still exchange with this one). Each game's
events in a message stay raw JSON until a process that follows the game decodes them.

Redis is only a wake-up path, never awaited by a command: `publish` queues the
message for a background publisher (bounded queue, short timeout) and returns.
When a round fails, a breaker stops trying for a backoff period (the queued
messages wait, bounded in number and age), and `health` says "degraded" so
followers poll PostgreSQL until Redis answers again. A hang is noticed within
about a second: the reader pings on its own connection and gives up when
nothing, not even the pong, comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from typing import TYPE_CHECKING, Any, Callable

import msgspec
import structlog

from service.ops.stopping import cancel_within
from service.live.fanout_messages import FROM, PREFIX, ORIGIN_DIGITS, decode_events, decode_previous, decode_round, \
    message, patterns, sent_by
from service.store.protocol import StoredEvent

if TYPE_CHECKING:
    from service.live.follower import Follower

log = structlog.get_logger("stela.fanout")
PING_EVERY = 0.25  # seconds between pings on the subscription while it is quiet
HUNG_AFTER = 0.9  # seconds of listening without any reply before the subscription counts as lost
STALLED = 5.0  # a read of the subscription that outlasts its own timeout this long is given up
DRAIN_MAX = 500  # messages handled in a row before the other tasks get a turn
PUBLISH_TIMEOUT = 0.5  # one pipelined publish round; longer trips the breaker
PUBLISH_GATHER = 0.02  # seconds between the starts of two publish rounds at least (a busy process sends many at once)
BACKOFF_MIN, BACKOFF_MAX = 0.25, 2.0
QUEUE_MAX = 10_000  # messages waiting for the publisher; more are dropped (followers poll meanwhile)
MAX_AGE = 5.0  # seconds a message may wait for Redis to come back before it is dropped


async def _as_is(response: Any) -> Any:
    return response


def _buffered(pubsub: Any) -> bool:
    """Whether the subscription's parser already holds bytes of a reply (hiredis; False when unknown)."""
    reader = getattr(getattr(pubsub.connection, "_parser", None), "_reader", None)
    return reader is not None and bool(reader.has_data())


class RedisDown(Exception):
    """Redis is unreachable or hung (only reported: the service works without it)."""


class Broker:
    """In-process fan-out; the base for the Redis broker.

    `health` ("ok" | "degraded") is for readiness and never waits; `live` tells followers whether pushes
    reach them or they must poll PostgreSQL.
    """

    def __init__(self, polled: bool = False) -> None:
        # polled: other processes append to the same database and nothing tells this one (several workers
        # without Redis), so followers poll PostgreSQL
        self.polled = polled
        self.origin = uuid.uuid4().hex[:ORIGIN_DIGITS]  # this process: its channel, and what it never hears
        self.followers: dict[str, Follower] = {}  # game id -> this process's follower of it
        self.on_append: list[Callable[[str], None]] = []  # told of every append (wakes projectors)
        self.on_remote: list[Callable[[str], None]] = []  # told first of another process's append (cache currency)
        # told of every batch of every game, local or from Redis (remote: True; the personal streams' hub)
        self.on_batch: list[Callable[[str, list[StoredEvent], bool], None]] = []
        # asked before another process's batch is decoded for `on_batch`: does any hook want this game's?
        self.batch_wanted: list[Callable[[str], bool]] = []
        self.on_nudge: list[Callable[[], None]] = []  # pushes may have been lost (Redis dropped or came back)
        self.on_wake: list[Callable[[], None]] = []  # the process is closing its streams

    @property
    def origin(self) -> str:
        return self._origin

    @origin.setter
    def origin(self, value: str) -> None:
        self._origin, self._own = value, sent_by(value)  # how its messages begin, made once

    @property
    def health(self) -> str:
        """"ok" while pushes reach every follower, "degraded" while followers must poll PostgreSQL."""
        return "ok"

    @property
    def healthy(self) -> bool:
        return self.health == "ok"

    @property
    def live(self) -> bool:
        """Whether every append reaches this process's followers as a push; if not, they poll."""
        return not self.polled

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def ping(self) -> None:
        """Raise `RedisDown` when degraded; never waits on the network."""
        return None

    def follower(self, stream_id: str, make: Callable[[], Follower]) -> Follower:
        """The live follower of `stream_id`, made with `make` if there is none."""
        found = self.followers.get(stream_id)
        if found is None or found.closed:
            found = self.followers[stream_id] = make()
        return found

    def forget(self, stream_id: str, follower: Follower) -> None:
        if self.followers.get(stream_id) is follower:
            del self.followers[stream_id]

    def appended(self, stream_id: str) -> None:
        for hook in self.on_append:
            hook(stream_id)

    def dispatch(self, stream_id: str, events: list[StoredEvent], remote: bool = False) -> None:
        for hook in self.on_batch:
            hook(stream_id, events, remote)
        found = self.followers.get(stream_id)
        if found is not None:
            found.push(events)

    async def publish(self, stream_id: str, events: list[StoredEvent]) -> None:
        """Deliver to this process at once; never waits on the network."""
        self.appended(stream_id)
        self.dispatch(stream_id, events)

    def nudge_all(self) -> None:
        """Make every follower re-read PostgreSQL (pushes may have been lost)."""
        for found in list(self.followers.values()):
            found.nudge()
        for hook in self.on_nudge:
            hook()

    def wake_all(self) -> None:
        """Wake every connection (used at shutdown so streams notice at once and close)."""
        for found in list(self.followers.values()):
            found.wake_all()
        for hook in self.on_wake:
            hook()

    @property
    def connections(self) -> int:
        return sum(len(found.inboxes) for found in list(self.followers.values()))


class RedisBroker(Broker):
    """Fan-out through Redis pub/sub: one subscription per process, a channel per game."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self._redis: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = False
        self._tripped_until = 0.0  # breaker: no publishing until then
        self._backoff = BACKOFF_MIN
        self._queue: asyncio.Queue[tuple[float, str, bytes]] = asyncio.Queue(QUEUE_MAX)  # (when, game, events)
        self.dropped = 0  # messages never sent (queue full, or too old when Redis came back)
        self.round_began = 0.0  # when the last publish round began (time.monotonic)
        self.reason = "starting"

    @property
    def health(self) -> str:
        ok = self._subscribed and time.monotonic() >= self._tripped_until
        return "ok" if ok else "degraded"

    async def start(self) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # one immediate retry replaces a pooled connection that Redis closed; anything longer is the breaker's job.
        # No socket timeout: every call here has its own asyncio.timeout, and with one redis-py wraps each
        # write in asyncio.wait_for, a task per send
        self._redis = aioredis.from_url(self.url, socket_connect_timeout=1, socket_timeout=None,
                                        retry=Retry(NoBackoff(), 1))
        self._tasks = [asyncio.create_task(self._listen(), name="redis-fanout-listen"),
                       asyncio.create_task(self._publish_loop(), name="redis-fanout-publish")]

    async def stop(self) -> None:
        await cancel_within(self._tasks)
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._redis.aclose(), 2)

    @property
    def live(self) -> bool:
        return self.health == "ok"

    async def ping(self) -> None:
        if self.health != "ok":
            raise RedisDown(self.reason)

    async def publish(self, stream_id: str, events: list[StoredEvent]) -> None:
        # queued before the local dispatch, so the publisher's turn on the event loop comes before the
        # thousands of local connections' turns: other processes start their fan-out in parallel with ours
        if events:
            try:
                self._queue.put_nowait((time.monotonic(), stream_id, msgspec.json.encode(events)))
            except asyncio.QueueFull:
                self.dropped += 1
        self.appended(stream_id)
        self.dispatch(stream_id, events)

    async def _publish_loop(self) -> None:
        """Send what was queued in rounds, one message each (`Round`); while the breaker is open, wait,
        then retry them.

        A round starts at least `PUBLISH_GATHER` seconds after the one before: an append after a
        quiet spell goes out at once, and under load what is appended meanwhile goes out together. A
        round is one PUBLISH, a write to Redis and a read of its answer; one round per command was
        about 8% of a busy process's CPU (py-spy), a PUBLISH per game in a pipelined round ~25 µs
        per command, and every process read each of its own messages back. A round costs redis-py
        about 0.1-0.2 ms of CPU whatever it carries (most of it the write's system call): 5 ms apart,
        a process answering 600 commands a second sent ~200 rounds a second, some 30 µs a command;
        20 ms apart, at most 50 (measured 2026-11-29, load 10). What it costs: under load, another
        replica hears of an append up to 20 ms later (this process's own followers at once)."""
        pending: list[tuple[float, str, bytes]] = []
        began = 0.0
        while True:
            if not pending:
                pending.append(await self._queue.get())
            gather = began + PUBLISH_GATHER - time.monotonic()
            if gather > 0:
                await asyncio.sleep(gather)
            self.round_began = began = time.monotonic()
            while not self._queue.empty() and len(pending) < 500:
                pending.append(self._queue.get_nowait())
            wait = self._tripped_until - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            fresh = [p for p in pending if p[0] > time.monotonic() - MAX_AGE]
            self.dropped += len(pending) - len(fresh)  # followers have polled PostgreSQL since
            pending = fresh
            if not pending:
                continue
            try:
                payload = message(self.origin, [(stream_id, events) for _, stream_id, events in pending])
                async with asyncio.timeout(PUBLISH_TIMEOUT):  # no extra task: the write goes out in this turn
                    await self._redis.publish(FROM + self.origin, payload)
                pending = []
                self._backoff = BACKOFF_MIN
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - Redis is a wake-up path; PostgreSQL has the events
                self._trip(f"publish: {type(exc).__name__}")

    def _trip(self, reason: str) -> None:
        """Stop publishing for a backoff period; followers poll PostgreSQL meanwhile."""
        was = self.health
        self.reason = reason
        self._tripped_until = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, BACKOFF_MAX)
        if was == "ok":
            log.warning("redis_degraded", reason=reason)
            self.nudge_all()

    def _set_subscribed(self, subscribed: bool, reason: str = "") -> None:
        if subscribed == self._subscribed:
            return
        self._subscribed = subscribed
        if subscribed:
            self._tripped_until = 0.0
            self._backoff = BACKOFF_MIN
            log.info("redis_subscribed")
        else:
            self.reason = reason
            log.warning("redis_subscription_lost", reason=reason)
        self.nudge_all()  # lost: start polling now; back: catch up on what was published meanwhile

    async def _listen(self) -> None:
        delay = BACKOFF_MIN
        while True:
            # a handler of our own: redis-py's default formats every message into a debug line first
            pubsub = self._redis.pubsub(push_handler_func=_as_is)
            began = time.monotonic()
            try:
                async with asyncio.timeout(HUNG_AFTER):
                    await pubsub.psubscribe(PREFIX + "*", *patterns(self.origin))
                await self._follow(pubsub)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - reconnect whatever went wrong
                self._set_subscribed(False, f"subscription: {type(exc).__name__}")
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(pubsub.aclose(), 1)
            # a subscription that held a while retries at once; a refused one backs off
            delay = BACKOFF_MIN if time.monotonic() - began > BACKOFF_MAX else min(delay * 2, BACKOFF_MAX)
            await asyncio.sleep(delay)

    async def _follow(self, pubsub: Any) -> None:
        """Read the subscription until it fails; any reply (message or pong) proves it alive.

        A message already read from the socket is handled without a turn of the event loop (no task
        per read: `asyncio.timeout`, not `wait_for`), so what arrived together is handled together;
        under load a turn per message let the messages queue up in the socket. After `DRAIN_MAX`
        messages in a row the other tasks get a turn.

        No timer per message: a reply whose bytes are already buffered is read without a timeout,
        others with redis-py's (`PING_EVERY`, so that a quiet subscription is pinged). Whatever read
        outlasts that by `STALLED` (a partial reply that never completes, a reconnect inside redis-py
        that hangs) is given up by a watchdog that looks once a second."""
        loop = asyncio.get_running_loop()
        heard = pinged = looked = time.monotonic()
        async with asyncio.timeout(HUNG_AFTER):
            await pubsub.ping()
        in_a_row = 0
        async with asyncio.timeout(None) as stall:

            def watch() -> None:
                nonlocal watchdog
                if time.monotonic() - looked > PING_EVERY + STALLED:
                    stall.reschedule(loop.time())  # the read in progress ends in TimeoutError
                else:
                    watchdog = loop.call_later(1.0, watch)

            watchdog = loop.call_later(1.0, watch)
            try:
                while True:
                    message = await pubsub.get_message(timeout=None if _buffered(pubsub) else PING_EVERY)
                    now = time.monotonic()
                    if now - looked > PING_EVERY + HUNG_AFTER / 2:
                        heard = now  # this process was too busy to listen; a late reply proves nothing about Redis
                    looked = now
                    if message is not None:
                        heard = now
                        if message["type"] == "pong":
                            self._set_subscribed(True)
                        elif message["type"] == "pmessage":
                            self._received(message["channel"], message["data"])
                        in_a_row += 1
                        if in_a_row >= DRAIN_MAX:
                            in_a_row = 0
                            await asyncio.sleep(0)
                        continue
                    in_a_row = 0
                    if now - heard > HUNG_AFTER:
                        raise RedisDown(f"no reply for {now - heard:.1f}s")
                    if now - pinged >= PING_EVERY:
                        async with asyncio.timeout(HUNG_AFTER):
                            await pubsub.ping()
                        pinged = now
            finally:
                watchdog.cancel()

    def _received(self, channel: bytes, data: bytes) -> None:
        """Another process's message: a publish round (`Round`), or a previous release's message of one game."""
        if not channel.startswith(_PREVIOUS):
            try:
                sent = decode_round.decode(data)
            except msgspec.DecodeError:
                log.warning("redis_bad_message", channel=channel.decode(errors="replace"))
                return
            if sent.origin != self.origin:  # (never heard: no pattern matches its own channel)
                for stream_id, events in sent.games:
                    self._heard(stream_id, events, decode_events)
            return
        if not data.startswith(self._own):
            self._heard(channel.decode()[len(PREFIX):], data, decode_previous)

    def _heard(self, stream_id: str, events: Any, decoder: msgspec.json.Decoder[Any]) -> None:
        """Another process appended `events` (JSON) to `stream_id`: the hooks are told; the events are
        decoded and dispatched only when a follower or a hook here wants them."""
        for hook in self.on_remote:
            hook(stream_id)
        self.appended(stream_id)
        if stream_id not in self.followers and not any(wanted(stream_id) for wanted in self.batch_wanted):
            return  # nobody here follows it: not even decoded
        try:
            found: list[StoredEvent] = decoder.decode(events)
        except msgspec.DecodeError:
            log.warning("redis_bad_message", game_id=stream_id)
            return
        if found:
            self.dispatch(stream_id, found, remote=True)


_PREVIOUS = PREFIX.encode()
