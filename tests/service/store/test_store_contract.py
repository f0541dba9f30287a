"""One contract, two event stores: memory and PostgreSQL must behave the same."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from service.store.memory import MemoryStore
from service.store.postgres import PostgresStore
from service.store.protocol import (
    GENESIS_HASH, ConcurrencyError, Cursor, Metadata, NewEvent, NewGame, event_hash,
)


@pytest.fixture(params=["memory", "postgres"])
async def store(request, pg_dsn):
    if request.param == "memory":
        yield MemoryStore()
    else:
        pg = await PostgresStore.connect(pg_dsn, 8)
        yield pg
        await pg.close()


def batch(n: int, tag: str = "t") -> list[NewEvent]:
    return [NewEvent(f"test.{tag}", {"i": i, "nested": {"b": [1, 2], "a": "x"}}) for i in range(n)]


def sid() -> str:
    return f"s-{uuid.uuid4()}"


async def test_append_then_read_back_in_version_order(store):
    stream = sid()
    result = await store.append(stream, 0, batch(3), Metadata(actor="p1", command={"type": "x"}), kind="tally")
    assert (result.first_version, result.last_version, result.duplicate) == (1, 3, False)
    events = await store.read_stream(stream)
    assert [e.version for e in events] == [1, 2, 3]
    assert events[0].data == {"i": 0, "nested": {"b": [1, 2], "a": "x"}}
    assert events[0].metadata["command"] == {"type": "x"} and "command" not in events[1].metadata
    assert await store.stream_version(stream) == 3
    assert await store.stream_kind(stream) == "tally"
    assert [e.version for e in await store.read_stream(stream, after=1, upto=2)] == [2]


async def test_each_event_chains_the_hash_of_its_predecessor(store):
    stream = sid()
    await store.append(stream, 0, batch(2), Metadata())
    await store.append(stream, 2, batch(1), Metadata())
    prev = GENESIS_HASH
    for e in await store.read_stream(stream):
        assert e.prev_hash == prev
        assert e.hash == event_hash(prev, stream, e.version, e.type, e.data)
        prev = e.hash


async def test_a_stale_expected_version_is_a_conflict_and_appends_nothing(store):
    stream = sid()
    await store.append(stream, 0, batch(2), Metadata())
    with pytest.raises(ConcurrencyError) as exc:
        await store.append(stream, 1, batch(1), Metadata())
    assert exc.value.actual == 2
    with pytest.raises(ConcurrencyError):
        await store.append(sid(), 3, batch(1), Metadata())
    assert await store.stream_version(stream) == 2


async def test_a_repeated_idempotency_key_returns_the_first_result_and_appends_nothing(store):
    stream = sid()
    first = await store.append(stream, 0, batch(2), Metadata(actor="a"), idempotency_key="k")
    again = await store.append(stream, 0, batch(5), Metadata(actor="a"), idempotency_key="k")
    assert again.duplicate and (again.first_version, again.last_version) == (first.first_version, first.last_version)
    assert await store.stream_version(stream) == 2
    other_actor = await store.append(stream, 2, batch(1), Metadata(actor="b"), idempotency_key="k")
    assert not other_actor.duplicate


async def test_one_event_appends_check_the_head_and_keys_as_batches_do(store):
    """Appends of a single event take their own statement (scalar parameters): the same guarantees."""
    stream = sid()
    first = await store.append(stream, 0, batch(1), Metadata(actor="a"), idempotency_key="k1", kind="tally")
    assert (first.first_version, first.last_version, first.duplicate) == (1, 1, False)
    assert await store.stream_kind(stream) == "tally"
    with pytest.raises(ConcurrencyError):
        await store.append(stream, 0, batch(1), Metadata(actor="a"))  # the stream exists already
    with pytest.raises(ConcurrencyError):
        await store.append(stream, 1, batch(1), Metadata(actor="a"), prev_hash="not-the-head")
    again = await store.append(stream, 0, batch(1), Metadata(actor="a"), idempotency_key="k1")
    assert again.duplicate and (again.first_version, again.last_version) == (1, 1)
    second = await store.append(stream, 1, batch(1), Metadata(actor="a"), idempotency_key="k2", prev_hash=first.head)
    assert (second.first_version, second.events[0].prev_hash) == (2, first.head)
    [one, two] = await store.read_stream(stream)
    assert two.prev_hash == one.hash == first.head and two.hash == second.head



@pytest.mark.parametrize("size", [1, 3])
@pytest.mark.parametrize("keyed", [False, True])
@pytest.mark.parametrize("notify", [False, True])
async def test_every_form_of_the_postgres_append_checks_the_head_keys_registers_and_notifies(pg_dsn, size, keyed, notify):
    """The append statement is written for its case (one event or a batch, first append or not, with or
    without a key, NOTIFY or not): each form keeps what the one statement for all of them did."""
    import asyncio

    import asyncpg

    from service.store.postgres import CHANNEL

    store = await PostgresStore.connect(pg_dsn, 2, notify=notify)
    listener = await asyncpg.connect(pg_dsn)
    heard: list[str] = []
    done = asyncio.Event()

    def hear(_conn, _pid, _channel, payload):
        heard.append(payload)
        if payload == "sentinel":
            done.set()

    await listener.add_listener(CHANNEL, hear)
    try:
        stream = sid()

        def key(name: str) -> str | None:
            return name if keyed else None

        first = await store.append(stream, 0, batch(size), Metadata(actor="a"), idempotency_key=key("k1"), kind="tally")
        assert (first.first_version, first.last_version, first.duplicate) == (1, size, False)
        assert await store.stream_kind(stream) == "tally"
        with pytest.raises(ConcurrencyError):  # the stream is not empty any more
            await store.append(stream, 0, batch(size), Metadata(actor="a"), idempotency_key=key("k2"))
        with pytest.raises(ConcurrencyError):  # the right version, not the head's hash
            await store.append(stream, size, batch(size), Metadata(actor="a"), idempotency_key=key("k3"),
                               prev_hash="not-the-head")
        with pytest.raises(ConcurrencyError):  # a version that is not the head's
            await store.append(stream, size + 1, batch(size), Metadata(actor="a"), idempotency_key=key("k4"),
                               prev_hash=first.head)
        k5 = key("k5")
        second = await store.append(stream, size, batch(size), Metadata(actor="a"), idempotency_key=k5,
                                    prev_hash=first.head)
        assert (second.first_version, second.last_version) == (size + 1, 2 * size)
        stored = await store.read_stream(stream)
        assert [e.version for e in stored] == list(range(1, 2 * size + 1))
        assert [(e.position, e.tx, e.at) for e in stored] == [(e.position, e.tx, e.at) for e in first.events + second.events]
        assert stored[size].prev_hash == first.head and stored[-1].hash == second.head
        if keyed:
            again = await store.append(stream, size, batch(size), Metadata(actor="a"), idempotency_key=k5,
                                       prev_hash=first.head)
            assert again.duplicate and (again.first_version, again.last_version) == (size + 1, 2 * size)
            kept = await store.idempotent_result(stream, "a", k5)
            assert kept is not None and (kept.first_version, kept.last_version) == (size + 1, 2 * size)
        else:
            async with store.pool.acquire() as conn:
                assert await conn.fetchval("SELECT count(*) FROM idempotency WHERE stream_id = $1", stream) == 0
        await store.pool.execute("SELECT pg_notify($1, 'sentinel')", CHANNEL)  # after the appends, in commit order
        await asyncio.wait_for(done.wait(), 30)
        assert [p for p in heard if p in (stream, "sentinel")] == ([stream, stream] if notify else []) + ["sentinel"]
    finally:
        await listener.close()
        await store.close()

def new_games(tournament: str, round_: int, n: int) -> list[NewGame]:
    """`n` whole game streams of a tournament round, each two batches (created, then joined)."""
    return [NewGame(game_id=sid(), kind="tally", tournament_id=tournament, round=round_,
                    batches=[(batch(1, "created"), Metadata(actor="org")), (batch(2, "joined"), Metadata(actor="p"))])
            for _ in range(n)]


async def test_an_append_with_new_games_writes_them_whole_in_its_own_transaction(store):
    tournament = sid()
    await store.append(tournament, 0, batch(1), Metadata(), kind="tournament")
    games = new_games(tournament, 1, 2)
    result = await store.append(tournament, 1, batch(1, "paired"), Metadata(actor="org"), games=games)
    assert result.last_version == 2 and set(result.created) == {g.game_id for g in games}
    for game in games:
        stored = await store.read_stream(game.game_id)
        assert stored == result.created[game.game_id] and [e.version for e in stored] == [1, 2, 3]
        assert {e.tx for e in stored} == {result.events[0].tx}  # one transaction with the pairing
        assert [e.prev_hash for e in stored] == [GENESIS_HASH, stored[0].hash, stored[1].hash]
        assert stored[2].hash == event_hash(stored[1].hash, game.game_id, 3, stored[2].type, stored[2].data)
        assert stored[0].metadata["actor"] == "org" and stored[1].metadata["actor"] == "p"
        assert await store.stream_kind(game.game_id) == "tally"
    assert await store.tournaments_of([g.game_id for g in games] + [sid()]) == {g.game_id: tournament for g in games}


async def test_a_games_link_says_whether_a_tournament_or_an_arena_owns_it(store):
    tournament, arena = sid(), sid()
    [of_tournament] = new_games(tournament, 1, 1)
    of_arena = NewGame(game_id=sid(), kind="tally", tournament_id=arena, round=7, link="arena",
                       batches=[(batch(1, "created"), Metadata(actor="org"))])
    await store.append(tournament, 0, batch(1, "paired"), Metadata(), kind="tournament", games=[of_tournament])
    await store.append(arena, 0, batch(1, "paired"), Metadata(), kind="arena", games=[of_arena])
    both = [of_tournament.game_id, of_arena.game_id, sid()]
    assert await store.tournaments_of(both) == {of_tournament.game_id: tournament}
    assert await store.arenas_of(both) == {of_arena.game_id: arena}


async def test_streams_of_a_kind_are_listed_newest_first_and_by_their_age(store):
    kind, mark = f"kind-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex[:8]
    ids = [f"s-{mark}-{c}" for c in "zyx"]  # written in this order; equal times would list them by id: the same
    for stream in ids:
        await store.append(stream, 0, batch(1), Metadata(), kind=kind)
    await store.append(sid(), 0, batch(1), Metadata(), kind=f"other-{kind}")
    assert await store.newest_streams(kind, 2) == ["s-" + mark + "-x", "s-" + mark + "-y"]
    assert await store.newest_streams(kind, 10) == ids[::-1]
    assert sorted(await store.streams_since(kind, timedelta(hours=1))) == sorted(ids)
    assert await store.streams_since(kind, timedelta(0)) == []


async def test_a_store_without_read_models_knows_no_rating():
    assert await MemoryStore().rating("tally", "anyone") is None


async def test_an_append_with_games_that_clashes_writes_none_of_them(store):
    tournament = sid()
    await store.append(tournament, 0, batch(2), Metadata(), kind="tournament")
    games = new_games(tournament, 1, 2)
    with pytest.raises(ConcurrencyError):
        await store.append(tournament, 1, batch(1, "paired"), Metadata(), games=games)
    assert [await store.stream_version(g.game_id) for g in games] == [0, 0]
    assert await store.tournaments_of([g.game_id for g in games]) == {}


async def test_games_written_already_are_skipped_by_a_second_writer_of_the_round(store):
    tournament = sid()
    games = new_games(tournament, 1, 2)
    first = await store.append(tournament, 0, batch(1, "paired"), Metadata(), kind="tournament", games=games[:1])
    again = await store.append(tournament, 1, batch(1, "paired"), Metadata(), games=games)
    assert set(first.created) == {games[0].game_id} and set(again.created) == {games[1].game_id}
    assert [await store.stream_version(g.game_id) for g in games] == [3, 3]


async def test_a_repeated_key_with_games_appends_nothing_and_writes_no_game(store):
    tournament = sid()
    await store.append(tournament, 0, batch(1), Metadata(actor="org"), idempotency_key="k", kind="tournament")
    games = new_games(tournament, 1, 1)
    again = await store.append(tournament, 0, batch(1), Metadata(actor="org"), idempotency_key="k", games=games)
    assert again.duplicate and again.created == {} and await store.stream_version(games[0].game_id) == 0


async def test_read_all_yields_every_event_once_in_global_order(store):
    streams = [sid() for _ in range(3)]
    for round_ in range(3):
        for s in streams:
            await store.append(s, round_, batch(1), Metadata())
    head = Cursor()
    seen = []
    while page := await store.read_all(head, limit=4):
        seen += page
        head = page[-1].cursor
    mine = [e for e in seen if e.stream_id in streams]
    assert len(mine) == 9 and len({(e.stream_id, e.version) for e in mine}) == 9
    cursors = [e.cursor for e in seen]
    assert cursors == sorted(cursors)


async def test_snapshots_keep_the_latest_version_of_the_right_format(store):
    stream = sid()
    await store.save_snapshot(stream, 10, "f1", b"ten")
    await store.save_snapshot(stream, 5, "f1", b"five")
    assert await store.load_snapshot(stream, "f1") == (10, b"ten")
    assert await store.load_snapshot(stream, "f2") is None


async def test_players_are_found_by_id_and_token_digest(store):
    player = await store.create_player(str(uuid.uuid4()), "Ann", "digest-" + uuid.uuid4().hex)
    assert (await store.get_player(player.id)).name == "Ann"
    assert await store.get_player("nobody") is None
    assert await store.player_by_token("nope") is None


@pytest.fixture(params=["memory", "postgres"])
async def own_store(request, own_dsn):
    """A store of its own: the platform events written below are not whole games, so they must not reach
    the projectors and runners of the session's shared database."""
    if request.param == "memory":
        yield MemoryStore()
        return
    pg = await PostgresStore.connect(own_dsn, 2)
    yield pg
    await pg.close()


async def test_seats_of_lists_the_games_a_player_sat_in_with_their_last_time_and_end(own_store):
    store = own_store
    me, other = f"p-{uuid.uuid4()}", f"p-{uuid.uuid4()}"
    open_game, ended_game, foreign = sid(), sid(), sid()
    await store.append(open_game, 0, [NewEvent("table.SeatTaken", {"seat": 0, "player_id": me, "name": "Me"}),
                                      NewEvent("test.move", {})], Metadata())
    await store.append(ended_game, 0, [NewEvent("table.SeatTaken", {"seat": 1, "player_id": me, "name": "Me"})],
                       Metadata())
    await store.append(ended_game, 1, [NewEvent("table.GameEnded", {})], Metadata())
    await store.append(foreign, 0, [NewEvent("table.SeatTaken", {"seat": 0, "player_id": other, "name": "X"}),
                                    NewEvent("test.note", {"player_id": me})], Metadata())
    seated = {g.game_id: g for g in await store.seats_of([me])}
    assert set(seated) == {open_game, ended_game} and {g.player_id for g in seated.values()} == {me}
    assert not seated[open_game].over and seated[ended_game].over
    assert seated[ended_game].last_at == (await store.read_stream(ended_game))[-1].at
    assert await store.seats_of([f"p-{uuid.uuid4()}"]) == []
    both = await store.seats_of([me, other])  # one query for every connected player
    assert sorted((g.player_id, g.game_id) for g in both) == sorted(
        [(me, open_game), (me, ended_game), (other, foreign)])


async def test_seats_of_is_answered_from_the_seat_index(pg_dsn):
    import asyncpg

    from service.store.postgres import _SEATS_OF

    pg = await PostgresStore.connect(pg_dsn, 2)
    await pg.close()
    conn = await asyncpg.connect(pg_dsn)
    try:
        await conn.execute("SET enable_seqscan = off")  # tiny test tables: ask whether the index can serve it
        plan = "\n".join(r[0] for r in await conn.fetch("EXPLAIN " + _SEATS_OF.replace("$1::text[]", "ARRAY['someone', 'another']")))
    finally:
        await conn.close()
    assert "events_seat_taken_by_player" in plan, plan


async def test_a_shared_key_is_generated_once_and_kept_under_its_name(store):
    first = await store.shared_key("contract-a")
    assert len(first) == 32
    assert await store.shared_key("contract-a") == first
    assert await store.shared_key("contract-b") != first
