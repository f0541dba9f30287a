"""Fan-out of new events to this process's SSE connections.

After an append the service `publish`es the new events of a game. With Redis,
every process holds ONE pattern subscription (`stela:game:*`) and a reader task
hands each message to the local queues of that game's connections; without
Redis the same happens in process. Redis is only a wake-up path: messages may be
lost or Redis may be down, so connections also re-read PostgreSQL by version
(see `service.sse`) and `healthy` tells them to poll faster meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from typing import Any, Callable

import msgspec
import structlog

from service.store.protocol import StoredEvent

log = structlog.get_logger("stela.fanout")
PREFIX = "stela:game:"
_encode = msgspec.json.encode
_decode = msgspec.json.Decoder(list[StoredEvent])


class Subscription:
    """One SSE connection's inbox for one game."""

    def __init__(self, broker: "Broker", stream_id: str) -> None:
        self.broker = broker
        self.stream_id = stream_id
        self.queue: asyncio.Queue[list[StoredEvent]] = asyncio.Queue(maxsize=256)

    def deliver(self, events: list[StoredEvent]) -> None:
        try:
            self.queue.put_nowait(events)
        except asyncio.QueueFull:
            # a slow reader loses the push, not the events: it re-reads PostgreSQL on its next wake-up
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait([])

    def close(self) -> None:
        self.broker.unsubscribe(self)


class Broker:
    """In-process fan-out; the base for the Redis broker."""

    def __init__(self) -> None:
        self.subscriptions: dict[str, set[Subscription]] = defaultdict(set)
        self.on_append: list[Callable[[str], None]] = []  # told of every append (wakes projectors)

    @property
    def healthy(self) -> bool:
        return True

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def ping(self) -> None:
        return None

    def subscribe(self, stream_id: str) -> Subscription:
        sub = Subscription(self, stream_id)
        self.subscriptions[stream_id].add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self.subscriptions.get(sub.stream_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self.subscriptions[sub.stream_id]

    def appended(self, stream_id: str) -> None:
        for hook in self.on_append:
            hook(stream_id)

    def dispatch(self, stream_id: str, events: list[StoredEvent]) -> None:
        for sub in list(self.subscriptions.get(stream_id, ())):
            sub.deliver(events)

    async def publish(self, stream_id: str, events: list[StoredEvent]) -> None:
        self.appended(stream_id)
        self.dispatch(stream_id, events)

    def wake_all(self) -> None:
        """Wake every connection (used at shutdown so streams notice at once and close)."""
        for subs in list(self.subscriptions.values()):
            for sub in list(subs):
                sub.deliver([])

    @property
    def connections(self) -> int:
        return sum(len(s) for s in self.subscriptions.values())


class RedisBroker(Broker):
    """Fan-out through Redis pub/sub: one subscription per process, a channel per game."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self._redis: Any = None
        self._task: asyncio.Task[None] | None = None
        self._healthy = False

    @property
    def healthy(self) -> bool:
        return self._healthy

    async def start(self) -> None:
        import redis.asyncio as aioredis

        self._redis = aioredis.from_url(self.url, socket_connect_timeout=2, socket_timeout=5,
                                        health_check_interval=10)
        self._task = asyncio.create_task(self._listen(), name="redis-fanout")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._redis.aclose(), 5)

    async def ping(self) -> None:
        await self._redis.ping()

    async def publish(self, stream_id: str, events: list[StoredEvent]) -> None:
        try:
            await self._redis.publish(PREFIX + stream_id, _encode(events))
        except Exception as exc:  # noqa: BLE001 - Redis is a wake-up path; PostgreSQL has the events
            self._healthy = False
            log.warning("redis_publish_failed", game_id=stream_id, error=str(exc))
            self.appended(stream_id)  # local listeners still hear it at once
            self.dispatch(stream_id, events)

    async def _listen(self) -> None:
        delay = 0.2
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(PREFIX + "*")
                self._healthy = True
                delay = 0.2
                while True:
                    message = await pubsub.get_message(timeout=5.0)
                    if message is None:
                        continue
                    stream_id = message["channel"].decode()[len(PREFIX):]
                    self.appended(stream_id)
                    if stream_id in self.subscriptions:
                        self.dispatch(stream_id, _decode.decode(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - reconnect whatever went wrong
                if self._healthy:
                    log.warning("redis_subscription_lost", error=str(exc))
                self._healthy = False
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
