"""Reading what to play costs no query when the replica knows its cached game is current.

`Currency` vouches for a cached state while the fan-out is live and has announced no other
process's append to its game since the state was read; `GET /legal` and `GET /v1/games/{id}`
answer from it, encoded once per version and seat (`PerVersion`).
"""

from __future__ import annotations

import asyncio
import time

import httpx
import msgspec
from litestar.testing import AsyncTestClient

from service.commands.repository import Currency, GameRepository
from service.commands.views import PerVersion
from service.edge.app import create_app
from service.store.memory import MemoryStore
from tests.service.live.test_redis_fanout import redis_server, with_redis  # noqa: F401 - a fixture
from tests.service.live.test_sse import add, collect, wait_for
from testkit.api import started_game
from testkit.live import serving
from testkit.tally import TALLY


class CountingStore(MemoryStore):
    """A memory store that counts the stream reads (the query a current cache saves)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def read_stream(self, stream_id, after=0, upto=None):  # type: ignore[no-untyped-def]
        self.reads += 1
        return await super().read_stream(stream_id, after, upto)


class Live:
    def __init__(self) -> None:
        self.on = True

    def __call__(self) -> bool:
        return self.on


async def _repository(live: Live | None = None, max_age: float = 60.0) -> tuple[GameRepository, CountingStore, str]:
    """A repository over a counting memory store, with one created tally game cached."""
    from service.commands.pipeline import CommandPipeline
    from service.commands.players import Players
    from service.live.fanout import Broker

    store = CountingStore()
    repository = GameRepository(store, {"tally": TALLY}, currency=Currency(live or Live(), max_age=max_age))
    pipeline = CommandPipeline(repository, store, Broker())
    players = Players(store)
    _, token = await players.register("Ann")
    viewer = await players.viewer(f"Bearer {token}")
    created = await pipeline.create(viewer, "tally", {"target": 10}, 2)
    return repository, store, created.game_id


async def test_a_current_cached_game_is_read_without_a_query():
    repository, store, game_id = await _repository()
    reads = store.reads
    first = await repository.current(game_id)
    again = await repository.current(game_id)
    assert store.reads == reads and first is again


async def test_another_process_s_append_makes_the_next_read_query_the_store():
    repository, store, game_id = await _repository()
    reads = store.reads
    repository.currency.remote(game_id)
    await repository.current(game_id)
    assert store.reads == reads + 1
    await repository.current(game_id)  # read after the message: current again
    assert store.reads == reads + 1


async def test_an_append_announced_while_the_store_was_read_is_not_vouched_for():
    repository, store, game_id = await _repository()
    repository.forget(game_id)
    original = store.read_stream

    async def read_during_message(stream_id, after=0, upto=None):  # type: ignore[no-untyped-def]
        found = await original(stream_id, after, upto)
        repository.currency.remote(stream_id)  # the message of an append the read did not see
        return found

    store.read_stream = read_during_message  # type: ignore[method-assign]
    await repository.load(game_id)
    store.read_stream = original  # type: ignore[method-assign]
    reads = store.reads
    await repository.current(game_id)
    assert store.reads == reads + 1


async def test_a_load_that_finishes_after_this_process_s_own_append_keeps_the_newer_state():
    """A read of version N that answers after an append of N+1 was remembered (requests finish in any
    order) must not put N back in the cache, where `Currency` would vouch for it."""
    from service.commands.repository import Loaded

    repository, store, game_id = await _repository()
    repository.forget(game_id)
    original = store.read_stream

    async def read_then_newer_appended(stream_id, after=0, upto=None):  # type: ignore[no-untyped-def]
        found = await original(stream_id, after, upto)
        codec = await repository.codec_of(stream_id)
        state = codec.fold([codec.decode_event(e.type, e.data) for e in found])
        newer = msgspec.structs.replace(state, version=state.version + 1)  # what a local append left
        repository.remember(stream_id, Loaded(codec, newer, "later"))
        return found

    store.read_stream = read_then_newer_appended  # type: ignore[method-assign]
    older = await repository.load(game_id)
    store.read_stream = original  # type: ignore[method-assign]
    cached = await repository.current(game_id)
    assert cached.state.version == older.state.version + 1 and cached.head == "later"


async def test_nothing_is_vouched_for_while_the_fan_out_is_down_or_after_it_was():
    live = Live()
    repository, store, game_id = await _repository(live)
    live.on = False
    reads = store.reads
    await repository.current(game_id)
    assert store.reads == reads + 1
    live.on = True
    repository.currency.reset()  # pushes may have been lost meanwhile
    await repository.current(game_id)
    assert store.reads == reads + 2
    await repository.current(game_id)
    assert store.reads == reads + 2


async def test_a_state_older_than_max_age_is_read_again():
    repository, store, game_id = await _repository(max_age=0.0)
    reads = store.reads
    time.sleep(0.001)
    await repository.current(game_id)
    assert store.reads == reads + 1


async def test_forgetting_old_announcements_only_costs_a_query():
    currency = Currency(Live(), capacity=2)
    seen = (currency.tick, time.monotonic())
    currency.remote("a")
    after_a = (currency.tick, time.monotonic())
    currency.remote("b")
    currency.remote("c")  # "a" forgotten: the floor rises to its tick
    assert not currency.holds("a", *seen)
    assert currency.holds("a", *after_a)
    assert not currency.holds("zzz", *seen)  # a stream never announced, read before the floor
    assert not currency.holds("c", *after_a)


def test_an_answer_is_made_once_per_version_and_key():
    answers = PerVersion(capacity=2)
    made: list[str] = []

    def make(text: str):  # type: ignore[no-untyped-def]
        return lambda: (made.append(text), text.encode())[1]

    assert answers.get("g", 3, 0, make("v3s0")) == b"v3s0"
    assert answers.get("g", 3, 0, make("again")) == b"v3s0"
    assert answers.get("g", 3, 1, make("v3s1")) == b"v3s1"
    assert answers.get("g", 4, 0, make("v4s0")) == b"v4s0"
    assert answers.get("g", 3, 0, make("old")) == b"old"  # an older version: made, not kept
    assert answers.get("g", 4, 0, make("again")) == b"v4s0"
    answers.get("h", 1, 0, make("h"))
    answers.get("i", 1, 0, make("i"))  # "g" is the least recently used of three: dropped
    assert answers.get("g", 4, 0, make("v4s0 again")) == b"v4s0 again"
    assert made == ["v3s0", "v3s1", "v4s0", "old", "h", "i", "v4s0 again"]


async def test_legal_and_view_come_from_the_cache_and_follow_every_command(settings, games):
    """One process: its own commands keep its cache current, so reads need no query, and each read
    still shows the latest version."""
    app = create_app(settings, games=games)
    async with AsyncTestClient(app, timeout=30) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 50})
        repository = app.state.services.repository
        reads = 0
        original = repository.store.read_stream

        async def counted(stream_id, *args, **kwargs):  # type: ignore[no-untyped-def]
            nonlocal reads
            reads += stream_id == game_id  # (workers of this app read other streams of the shared database)
            return await original(stream_id, *args, **kwargs)

        repository.store.read_stream = counted
        try:
            for i in range(6):
                seat = i % 2
                legal = (await client.get(f"/v1/games/{game_id}/legal", headers=players[seat]["headers"])).json()
                game = (await client.get(f"/v1/games/{game_id}", headers=players[seat]["headers"])).json()
                assert legal["version"] == game["version"] and legal["seat"] == seat and legal["commands"]
                assert game["to_act"] == [seat] and game["your_seat"] == seat
                resp = await client.post(f"/v1/games/{game_id}/commands", headers=players[seat]["headers"],
                                         json={"command": legal["commands"][0], "expected_version": legal["version"]})
                assert resp.status_code == 200, resp.text
                assert resp.json()["version"] > legal["version"]
        finally:
            repository.store.read_stream = original
        assert reads == 0


async def test_a_replica_reads_another_s_command_once_the_fan_out_told_it(settings, games, redis_server):  # noqa: F811
    """Replica B follows the game's stream, so it hears of A's commands through Redis; as soon as a
    frame of A's command reached B, B's next read shows it (without the message B's cache would
    still vouch for the older state)."""
    cfg = with_redis(settings, redis_server.url)
    with serving(create_app(cfg, games=games)) as url_a, serving(create_app(cfg, games=games)) as url_b:
        async with httpx.AsyncClient(base_url=url_a) as a, httpx.AsyncClient(base_url=url_b) as b:
            game_id, players = await started_game(a, "tally", 2, {"target": 100})
            got: list = []
            task = asyncio.create_task(collect(b, f"/v1/games/{game_id}/stream", {}, got))
            await wait_for(lambda: any(m.get("event") == "snapshot" for m in got))
            for i in range(5):
                seen = (await b.get(f"/v1/games/{game_id}/legal", headers=players[i % 2]["headers"])).json()
                version = await add(a, game_id, players[i % 2])
                assert version > seen["version"]
                await wait_for(lambda: any(m.get("id") == str(version) for m in got), timeout=20)
                after = (await b.get(f"/v1/games/{game_id}/legal", headers=players[(i + 1) % 2]["headers"])).json()
                game = (await b.get(f"/v1/games/{game_id}", headers=players[0]["headers"])).json()
                assert after["version"] == game["version"] == version and after["commands"]
            task.cancel()
            # min_version reads the store whatever the cache holds
            version = await add(a, game_id, players[1])
            forced = (await b.get(f"/v1/games/{game_id}/legal", params={"min_version": version},
                                  headers=players[0]["headers"])).json()
            assert forced["version"] == version


def test_min_version_is_documented_on_both_reads():
    spec = msgspec.json.decode(open("openapi/openapi.json", "rb").read())
    for path in ("/v1/games/{game_id}/legal", "/v1/games/{game_id}"):
        names = [p["name"] for p in spec["paths"][path]["get"]["parameters"]]
        assert "min_version" in names, path
