"""Fan-out under load: what arrives together from Redis is handled together, in order, none lost."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import msgspec
import pytest
import redis

from service.live import fanout
from service.live.fanout import Broker, RedisBroker
from service.live.fanout_messages import FROM, message
from service.live.personal import PersonalHub
from service.commands.pipeline import CommandPipeline
from service.commands.players import Players
from service.commands.repository import GameRepository
from service.store.memory import MemoryStore
from tests.service.commands.test_pipeline import seated_game
from tests.service.live.test_redis_fanout import redis_server  # noqa: F401 - fixture
from tests.service.live.test_sse import wait_for
from tests.service.live.test_stream_redis_faults import event
from testkit.tally import TALLY



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
    broker.on_batch.append(lambda game_id, events, _remote: heard.append((game_id, events[-1].version)))
    await broker.start()
    sent = [(f"g{i % 7}", i) for i in range(1, 301)]
    turns = Turns(lambda: len(heard) == len(sent))
    try:
        await until(lambda: broker.health == "ok")
        other = redis.Redis(port=redis_server.port)
        pipe = other.pipeline(transaction=False)
        origin = ("0" if broker.origin[0] != "0" else "1") * 12  # another replica
        for game_id, version in sent:
            pipe.publish(FROM + origin, message(origin, [(game_id, msgspec.json.encode([event(version)]))]))
        pipe.execute()  # blocks the event loop: all of them reach the subscription before it reads one
        other.close()
        turns.start()
        await until(lambda: turns.finished)
        assert heard == sent
        assert turns.count < len(sent) / 10
    finally:
        turns.stop()
        await broker.stop()


class Replicas:
    """Replica A commands; replica B's personal hub hears A's batches as from Redis (in memory here)."""

    def __init__(self) -> None:
        self.store = MemoryStore()
        self.a, self.b = Broker(), Broker()
        self.players = Players(self.store)
        self.pipeline = CommandPipeline(GameRepository(self.store, {"tally": TALLY}, 50), self.store, self.a)
        self.hub = PersonalHub(GameRepository(self.store, {"tally": TALLY}, 50), self.store, self.b)
        self.held: list[tuple[str, list]] = []  # A's batches, not yet handed to B
        self.a.on_batch.append(lambda game_id, events, _remote: self.held.append((game_id, events)))

    def deliver(self) -> None:
        """Hand B what A appended, as its Redis reader does: synchronously, one batch after another."""
        held, self.held = self.held, []
        for game_id, events in held:
            self.b.dispatch(game_id, events, remote=True)


async def test_another_replicas_turn_is_announced_at_once_not_a_turn_of_the_hubs_loop_later():
    """Under load a turn of the event loop takes milliseconds; the hub folds a batch that follows on what
    it knows in the Redis reader's turn."""
    replicas = Replicas()
    game_id, viewers = await seated_game(replicas, 2)
    bob = viewers[1].player_id
    stream = replicas.hub.stream(bob, None, heartbeat=60)
    try:
        assert (await anext(stream)).startswith(b"retry")
        assert b'"game.state"' in await anext(stream)
        conn = next(iter(replicas.hub.connections[bob]))
        replicas.held.clear()
        for turn in range(3):
            await replicas.pipeline.command(viewers[0], game_id, {"type": "tally.Add", "amount": 1}, None, None)
            replicas.deliver()
            assert conn.queue.qsize() == 1  # no await in between: folded and announced in deliver()
            assert b'"game.your_turn"' in await anext(stream)
            await replicas.pipeline.command(viewers[1], game_id, {"type": "tally.Add", "amount": 1}, None, None)
            replicas.deliver()
            assert conn.queue.qsize() == 0  # Bob's own move: nothing to tell him
        assert replicas.hub.queries == 0
    finally:
        await stream.aclose()
        await replicas.hub.close()


async def test_another_replicas_batch_after_a_gap_waits_its_turn_and_nothing_is_missed():
    replicas = Replicas()
    game_id, viewers = await seated_game(replicas, 2)
    bob = viewers[1].player_id
    stream = replicas.hub.stream(bob, None, heartbeat=60)
    try:
        await anext(stream)
        await anext(stream)
        replicas.held.clear()
        add = {"type": "tally.Add", "amount": 1}
        versions = [(await replicas.pipeline.command(viewers[seat], game_id, add, None, None)).state.version
                    for seat in (0, 1, 0)]
        replicas.held[:2] = []  # lost on the way: B never hears of the first two
        replicas.deliver()
        frames = [await anext(stream), await anext(stream)]  # the hub reads the gap from the store
        turns = [msgspec.json.decode(f.split(b"data: ")[1].split(b"\n")[0]) for f in frames]
        assert [(t["type"], t["version"]) for t in turns] == [("game.your_turn", versions[0]),
                                                              ("game.your_turn", versions[2])]
        assert replicas.hub.queries == 1
    finally:
        await stream.aclose()
        await replicas.hub.close()


async def test_publish_rounds_start_a_gather_interval_apart_and_lose_nothing(redis_server, monkeypatch):  # noqa: F811
    """Under load a process publishes what accumulated in one round (one PUBLISH of one message),
    not a round per append; order is kept and nothing is lost."""
    rounds: list[tuple[float, int]] = []
    sender, receiver = RedisBroker(redis_server.url), RedisBroker(redis_server.url)
    heard: list[int] = []
    receiver.batch_wanted.append(lambda _game_id: True)
    receiver.on_batch.append(lambda _game_id, events, _remote: heard.append(events[-1].version))
    await sender.start()
    await receiver.start()
    publish = sender._redis.publish

    async def counted(channel, payload):
        assert channel == FROM + sender.origin
        rounds.append((sender.round_began, len(msgspec.json.decode(payload)["games"])))  # the publisher's clock
        return await publish(channel, payload)

    sender._redis.publish = counted
    try:
        await until(lambda: sender.health == "ok" and receiver.health == "ok")
        for version in range(1, 41):  # an append every millisecond or so: faster than the gather interval
            await sender.publish("g1", [event(version)])
            await asyncio.sleep(0.001)
        await until(lambda: len(heard) == 40)
        assert heard == list(range(1, 41))
        assert sum(n for _, n in rounds) == 40 and len(rounds) < 40
        starts = [at for at, _ in rounds]
        # (a timer may fire up to a millisecond early)
        gaps = [later - earlier for earlier, later in zip(starts, starts[1:])]
        assert all(gap >= fanout.PUBLISH_GATHER - 0.001 for gap in gaps), gaps
    finally:
        await sender.stop()
        await receiver.stop()


class Subscription:
    """A stand-in for redis-py's PubSub: `script` gives each read's (buffered, message), where the
    message "stuck" never comes, whatever the read's timeout, and an exception is raised."""

    def __init__(self, script: list) -> None:
        self.script = script
        self.reads: list[float | None] = []
        self.buffered = False
        self.connection = self
        self._parser = self
        self._reader = self

    def has_data(self) -> bool:
        return self.buffered

    async def ping(self) -> None:
        pass

    async def get_message(self, timeout: float | None) -> dict | None:
        self.reads.append(timeout)
        step = self.script.pop(0)
        if step == "stuck":
            await asyncio.Event().wait()
        if isinstance(step, Exception):
            raise step
        self.buffered = bool(self.script) and isinstance(self.script[0], dict)  # the next reply came with this one
        return step


async def test_a_read_that_hangs_past_its_own_timeout_is_given_up_by_the_watchdog(monkeypatch):
    monkeypatch.setattr(fanout, "STALLED", 0.2)
    broker = RedisBroker("redis://127.0.0.1:9")  # never started: only its reader is driven here
    follow = asyncio.create_task(broker._follow(Subscription([{"type": "pong"}, "stuck"])))
    done, _ = await asyncio.wait({follow}, timeout=60)
    assert done, "the stuck read was never given up"
    assert isinstance(follow.exception(), TimeoutError)


async def test_replies_already_buffered_are_read_without_a_timer_and_a_quiet_read_waits_with_one():
    pmessage = {"type": "pmessage", "channel": (FROM + "e" * 12).encode(),
                "data": message("e" * 12, [("g1", msgspec.json.encode([event(1)]))])}
    subscription = Subscription([{"type": "pong"}, pmessage, pmessage, pmessage, ConnectionError("gone")])
    broker = RedisBroker("redis://127.0.0.1:9")
    with pytest.raises(ConnectionError):
        await broker._follow(subscription)
    # the first read found nothing buffered and brought in the three messages behind it, read without a
    # timer; the read after them waited for the socket again, with redis-py's timeout
    assert subscription.reads == [fanout.PING_EVERY, None, None, None, fanout.PING_EVERY]
