"""Fan-out under load: what arrives together from Redis is handled together, in order, none lost."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator, Callable

import msgspec
import pytest
import redis

from service import fanout
from service.fanout import PREFIX, Broker, RedisBroker, message
from service.personal import PersonalHub
from service.pipeline import CommandPipeline
from service.players import Players
from service.repository import GameRepository
from service.store.memory import MemoryStore
from tests.service.test_handling import seated_game
from tests.service.test_redis_fanout import redis_server  # noqa: F401 - fixture
from tests.service.test_sse import wait_for
from tests.service.test_stream_redis_faults import RedisProxy, event
from tests.support.tally import TALLY

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


class AnswersHeld(RedisProxy):
    """Passes commands on to Redis at once, but holds Redis's answers back until `answering` is set."""

    def __init__(self, upstream_port: int) -> None:
        super().__init__(upstream_port)
        self.answering = threading.Event()

    def _pump(self, source: socket.socket, target: socket.socket | None) -> None:
        if target is None or source.getpeername()[1] != self.upstream_port:
            return super()._pump(source, target)
        try:
            while data := source.recv(65536):
                self.answering.wait()
                target.sendall(data)
        except OSError:
            pass
        source.close()
        target.close()


@pytest.fixture
async def brokers(redis_server, monkeypatch) -> AsyncIterator[tuple[RedisBroker, AnswersHeld, list]]:  # noqa: F811
    """A publishing broker whose Redis answers are held, and what a broker straight on Redis hears
    (game id, versions) in order."""
    monkeypatch.setattr(fanout, "PUBLISH_TIMEOUT", 60.0)  # only the test decides when a publish fails
    proxy = AnswersHeld(redis_server.port)
    proxy.answering.set()
    sender, receiver = RedisBroker(proxy.url), RedisBroker(redis_server.url)
    heard: list[tuple[str, list[int]]] = []
    receiver.batch_wanted.append(lambda _game_id: True)
    receiver.on_batch.append(lambda game_id, events, _remote: heard.append((game_id, [e.version for e in events])))
    await sender.start()
    await receiver.start()
    try:
        await until(lambda: sender.health == receiver.health == "ok")
        await sender.publish("warm-up", [event(1)])  # the publishing connection is open before answers are held
        await until(lambda: heard == [("warm-up", [1])] and not sender._unanswered)
        heard.clear()
        yield sender, proxy, heard
    finally:
        proxy.answering.set()
        await sender.stop()
        await receiver.stop()
        proxy.close()


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


async def test_a_publish_does_not_wait_for_the_answer_to_the_one_before(brokers):
    """Under load an answer also waits for the publisher's next turn of the event loop; a message made
    meanwhile goes out at once, not after it."""
    sender, proxy, heard = brokers
    proxy.answering.clear()
    await sender.publish("g1", [event(1)])
    await until(lambda: heard == [("g1", [1])])
    await sender.publish("g1", [event(2)])
    await until(lambda: heard == [("g1", [1]), ("g1", [2])])
    assert len(sender._unanswered) == 2
    proxy.answering.set()
    await until(lambda: not sender._unanswered)
    assert heard == [("g1", [1]), ("g1", [2])] and sender.dropped == 0


async def test_publishes_made_together_go_out_in_one_write_in_order(brokers, monkeypatch):
    sender, _proxy, heard = brokers
    writes: list[int] = []
    from redis.asyncio.connection import AbstractConnection

    original = AbstractConnection.send_packed_command

    async def counted(self, command, check_health=True):
        publishes = sum(bytes(chunk).count(b"PUBLISH") for chunk in command)
        if publishes:
            writes.append(publishes)
        return await original(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    sent = [(f"g{i % 3}", [i]) for i in range(1, 101)]
    for game_id, versions in sent:
        await sender.publish(game_id, [event(versions[0])])
    await until(lambda: len(heard) == len(sent))
    assert heard == sent and writes == [len(sent)]


async def test_what_redis_never_answered_is_sent_again_in_order_when_the_connection_breaks(brokers):
    """Nothing lost: the messages may arrive twice (receivers skip versions they have), never out of order."""
    sender, proxy, heard = brokers
    proxy.answering.clear()
    sent = [("g1", [v]) for v in range(1, 51)]
    for game_id, versions in sent:
        await sender.publish(game_id, [event(versions[0])])
    await until(lambda: heard == sent)  # written and delivered, none answered
    proxy.release()  # every connection through the proxy breaks
    proxy.answering.set()
    await until(lambda: len(heard) == 2 * len(sent) and not sender._unanswered and not sender._unsent)
    assert heard == sent + sent and sender.dropped == 0


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
