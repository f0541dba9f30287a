"""Fan-out under load: what arrives together from Redis is handled together, in order, none lost."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import redis

from service.fanout import PREFIX, RedisBroker, message
from tests.service.test_redis_fanout import redis_server  # noqa: F401 - fixture
from tests.service.test_sse import wait_for
from tests.service.test_stream_redis_faults import event

pytestmark = pytest.mark.xdist_group("live")


class Turns:
    """Counts the event loop's turns until `done()` holds (a callback that schedules itself on every turn)."""

    def __init__(self, done: Callable[[], bool]) -> None:
        self.done = done
        self.count = 0
        self.finished = False
        self._handle: asyncio.Handle | None = None

    def start(self) -> None:
        self._tick()

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()

    def _tick(self) -> None:
        self.finished = self.done()
        if not self.finished:
            self.count += 1
            self._handle = asyncio.get_running_loop().call_soon(self._tick)


async def until(predicate: Callable[[], bool]) -> None:
    await wait_for(predicate, timeout=20)


async def test_messages_that_arrived_together_are_handled_in_a_few_turns_of_the_event_loop_in_order(
        redis_server):  # noqa: F811
    """Under load a turn of the event loop takes milliseconds: a reader that needs a turn (or two) per
    message falls behind the other replica's appends, and "your turn" waits in the socket."""
    broker = RedisBroker(redis_server.url)
    heard: list[tuple[str, int]] = []
    broker.batch_wanted.append(lambda _game_id: True)
    broker.on_batch.append(lambda game_id, events: heard.append((game_id, events[-1].version)))
    await broker.start()
    sent = [(f"g{i % 7}", i) for i in range(1, 301)]
    turns = Turns(lambda: len(heard) == len(sent))
    try:
        await until(lambda: broker.health == "ok")
        other = redis.Redis(port=redis_server.port)
        pipe = other.pipeline(transaction=False)
        for game_id, version in sent:
            pipe.publish(PREFIX + game_id, message("another replica", [event(version)]))
        pipe.execute()  # blocks the event loop: all of them reach the subscription before it reads one
        other.close()
        turns.start()
        await until(lambda: turns.finished)
        assert heard == sent
        assert turns.count < len(sent) / 10
    finally:
        turns.stop()
        await broker.stop()
