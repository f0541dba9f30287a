"""Redis hung or killed: commands never wait on it, streams poll PostgreSQL, push resumes when it is back."""

from __future__ import annotations

import asyncio
import socket
import threading
from datetime import UTC, datetime

import httpx
import msgspec
import pytest

from service.edge.app import create_app
from service.live.fanout import RedisBroker, RedisDown
from service.live.fanout_messages import FROM, PREFIX, message, patterns
from service.store.protocol import StoredEvent
from tests.service.live.test_redis_fanout import redis_server  # noqa: F401 - fixture
from tests.service.live.test_sse import add, collect, wait_for
from testkit.api import started_game
from testkit.live import free_port, serving



class RedisProxy:
    """A TCP proxy in front of a redis-server that can hang: it then reads everything and answers nothing."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.hung = threading.Event()
        self.accepted = 0
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def hang(self) -> None:
        self.hung.set()

    def release(self) -> None:
        """Answer again; connections that hung are closed so clients reconnect."""
        self.hung.clear()
        self._close_all()

    def close(self) -> None:
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept() so the port really closes
        except OSError:
            pass
        self.listener.close()
        self._close_all()

    def _close_all(self) -> None:
        sockets, self.sockets = self.sockets, []
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            self.sockets.append(client)
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=2)
            except OSError:
                upstream = None
            if upstream is not None:
                upstream.settimeout(None)
                self.sockets.append(upstream)
                threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket | None) -> None:
        try:
            while data := source.recv(65536):
                if target is not None and not self.hung.is_set():
                    target.sendall(data)
        except OSError:
            pass
        for sock in (source, target):
            if sock is not None:
                sock.close()


@pytest.fixture
def proxy(redis_server):  # noqa: F811 - the fixture imported above
    made = RedisProxy(redis_server.port)
    yield made
    made.close()


def event(version: int) -> StoredEvent:
    return StoredEvent(position=version, tx=version, stream_id="g1", version=version, type="tally.Added",
                       data={}, metadata={}, at=datetime(2026, 1, 1, tzinfo=UTC), prev_hash="", hash="")


async def test_publishing_never_waits_on_a_redis_that_accepts_and_never_answers():
    proxy = RedisProxy(free_port())  # nothing listens upstream
    proxy.hang()
    broker = RedisBroker(proxy.url)
    await broker.start()
    try:
        await wait_for(lambda: proxy.accepted >= 1)
        for version in range(1, 50):
            publishing = broker.publish("g1", [event(version)])
            with pytest.raises(StopIteration):  # done in one step: nothing awaited
                publishing.send(None)
        assert broker.health == "degraded"
        checking = broker.ping()
        with pytest.raises(RedisDown):  # readiness learns it without a round trip
            checking.send(None)
    finally:
        await broker.stop()
        proxy.close()


async def test_a_process_skips_its_own_messages_and_hears_the_others(redis_server):  # noqa: F811
    a, b = RedisBroker(redis_server.url), RedisBroker(redis_server.url)
    heard: dict[str, list[str]] = {"a": [], "b": []}
    a.on_append.append(heard["a"].append)
    b.on_append.append(heard["b"].append)
    await a.start()
    await b.start()
    try:
        await wait_for(lambda: a.health == b.health == "ok")
        await a.publish("g1", [event(1)])
        await wait_for(lambda: heard["b"] == ["g1"])
        await b.publish("g2", [event(1)])
        await wait_for(lambda: heard["a"] == ["g1", "g2"])
        await a.publish("g3", [event(1)])
        await wait_for(lambda: heard["b"] == ["g1", "g2", "g3"])
        assert heard["a"] == ["g1", "g2", "g3"]  # each append once: in memory, never again from Redis
    finally:
        await a.stop()
        await b.stop()


def previous_release(origin: str, events: list[StoredEvent]) -> bytes:
    """A message of the release before: one game's events as a JSON list, the first naming its sender."""
    return b'[{"origin":' + msgspec.json.encode(origin) + b"," + msgspec.json.encode(events)[2:]


def a_round(origin: str, *games: tuple[str, list[StoredEvent]]) -> bytes:
    return message(origin, [(game_id, msgspec.json.encode(events)) for game_id, events in games])


async def test_a_process_never_receives_its_own_messages_and_each_other_process_receives_them_once(
        redis_server):  # noqa: F811
    """Redis itself says how many subscriptions a message reached: every other process once, never the sender."""
    import redis.asyncio as aioredis

    brokers = [RedisBroker(redis_server.url) for _ in range(4)]
    received = [0] * 4
    for i, broker in enumerate(brokers):
        receive = broker._received

        def counted(channel, data, i=i, receive=receive):
            received[i] += 1
            receive(channel, data)

        broker._received = counted
        await broker.start()
    client = aioredis.from_url(redis_server.url)
    try:
        await wait_for(lambda: all(b.health == "ok" for b in brokers))
        for i, broker in enumerate(brokers):
            reached = await client.publish(FROM + broker.origin, a_round(broker.origin, ("g", [event(1)])))
            assert reached == 3, (i, reached)  # the three others, one subscription each; not its own
        await wait_for(lambda: received == [3, 3, 3, 3])
        await brokers[0].publish("g1", [event(1)])
        await wait_for(lambda: received == [3, 4, 4, 4])
        assert received[0] == 3  # its own round never came back
    finally:
        await client.aclose()
        for broker in brokers:
            await broker.stop()


def test_the_patterns_match_every_other_origin_exactly_once_and_never_its_own():
    import random
    import re

    def matches(pattern: str, channel: str) -> bool:  # Redis glob: only `*` and `[^x]` occur here
        regex = re.escape(pattern).replace(r"\*", ".*").replace(r"\[\^", "[^").replace(r"\]", "]")
        return re.fullmatch(regex, channel) is not None

    draw = random.Random(3)
    mine = "".join(draw.choice("0123456789abcdef") for _ in range(12))
    others = ["".join(draw.choice("0123456789abcdef") for _ in range(12)) for _ in range(500)]
    others += [mine[:i] + ("0" if mine[i] != "0" else "1") + mine[i + 1:] for i in range(12)]  # one digit off
    for other in others:
        hits = sum(matches(p, FROM + other) for p in patterns(mine))
        assert hits == (0 if other == mine else 1), (other, hits)
    assert not any(matches(p, FROM + mine) for p in patterns(mine))


def test_the_previous_release_messages_are_still_heard():
    events = [event(1), event(2)]
    broker = RedisBroker("redis://unused")
    heard: list[str] = []
    batches: list[tuple[str, list[int]]] = []
    broker.on_append.append(heard.append)
    broker.batch_wanted.append(lambda _: True)
    broker.on_batch.append(lambda game_id, got, _remote: batches.append((game_id, [e.version for e in got])))
    broker._received((PREFIX + "g1").encode(), previous_release("an older replica", events))
    broker._received((PREFIX + "g2").encode(), msgspec.json.encode(events))  # an even older one: no origin
    assert heard == ["g1", "g2"] and batches == [("g1", [1, 2]), ("g2", [1, 2])]


def test_a_round_names_its_games_and_their_events_are_decoded_only_when_followed_here():
    broker = RedisBroker("redis://unused")
    woken: list[str] = []
    batches: list[tuple[str, list[int]]] = []
    wanted: set[str] = set()
    broker.on_append.append(woken.append)
    broker.on_batch.append(lambda game_id, got, _remote: batches.append((game_id, [e.version for e in got])))
    broker.batch_wanted.append(lambda game_id: game_id in wanted)
    sent = message("e" * 12, [("g1", msgspec.json.encode([event(1), event(2)])), ("g2", b"{\"not\": \"events\"}")])
    broker._received((FROM + "e" * 12).encode(), sent)  # g2's events never decoded: nobody here follows g2
    assert woken == ["g1", "g2"] and batches == []
    wanted.add("g1")
    broker._received((FROM + "e" * 12).encode(), a_round("e" * 12, ("g1", [event(1), event(2)]), ("g3", [event(5)])))
    assert batches == [("g1", [1, 2])] and woken == ["g1", "g2", "g1", "g3"]
    broker._received((FROM + "e" * 12).encode(), b"{not a round")  # logged and dropped
    assert woken == ["g1", "g2", "g1", "g3"]


@pytest.mark.parametrize("fault", ["hung", "killed"])
async def test_while_redis_is_away_commands_answer_and_streams_poll_then_push_resumes(
        settings, games, proxy, redis_server, fault):  # noqa: F811
    cfg = msgspec.structs.replace(settings, redis_url=proxy.url, projector="off")
    app_a, app_b = create_app(cfg, games=games), create_app(cfg, games=games)
    with serving(app_a) as url_a, serving(app_b) as url_b:
        async with httpx.AsyncClient(base_url=url_a) as a, httpx.AsyncClient(base_url=url_b) as b:
            broker_a, broker_b = app_a.state.services.broker, app_b.state.services.broker
            await wait_for(lambda: broker_a.health == broker_b.health == "ok")
            game_id, players = await started_game(a, "tally", 2, {"target": 500})
            got: list = []
            task = asyncio.create_task(collect(b, f"/v1/games/{game_id}/stream", {}, got))
            await wait_for(lambda: any(m.get("event") == "snapshot" for m in got))
            follower = broker_b.followers[game_id]

            proxy.hang() if fault == "hung" else redis_server.stop()
            await wait_for(lambda: broker_b.health == "degraded")
            during = [await add(a, game_id, players[i % 2]) for i in range(3)]
            await wait_for(lambda: broker_a.health == "degraded")  # (A notices on its own, not with B)
            ready = (await a.get("/readyz")).json()
            assert ready["checks"]["redis"].startswith("down")
            await wait_for(lambda: str(during[-1]) in [m.get("id") for m in got])
            assert follower.reads > 0

            proxy.release() if fault == "hung" else redis_server.start()
            await wait_for(lambda: broker_a.health == broker_b.health == "ok", timeout=15)
            beats = sum(1 for m in got if m.get("comment") == "heartbeat")
            await wait_for(lambda: sum(1 for m in got if m.get("comment") == "heartbeat") > beats)
            reads = follower.reads
            after = await add(a, game_id, players[1])
            await wait_for(lambda: str(after) in [m.get("id") for m in got])
            assert follower.reads == reads  # pushed through Redis, not read
            task.cancel()
            seen = [int(m["id"]) for m in got if "id" in m and m.get("event") != "snapshot"]
            assert seen == [*during, after]
