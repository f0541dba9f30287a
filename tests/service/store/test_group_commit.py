"""Group commit (`service.store.appending`): appends that wait for a statement slot go to PostgreSQL
together, and each must come out exactly as it would alone: its own head check, key, stream row, hash
chain and order; a refusal for the one whose stream moved on, the others committed."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from service.store.appending import GroupCommit, Prepared
from service.store.postgres import PostgresStore
from service.store.protocol import GENESIS_HASH, AppendResult, ConcurrencyError, Metadata, NewEvent, event_hash


@pytest.fixture
async def pg(pg_dsn):
    store = await PostgresStore.connect(pg_dsn, 6, slots=1)  # one statement in flight: the rest wait
    yield store
    await store.close()


def events(n: int, tag: str) -> list[NewEvent]:
    return [NewEvent(f"test.{tag}", {"i": i, "tag": tag}) for i in range(n)]


async def check_log(store: PostgresStore, stream: str, versions: int) -> None:
    """Versions 1..`versions`, each chaining its predecessor's hash, positions rising with versions."""
    stored = await store.read_stream(stream)
    assert [e.version for e in stored] == list(range(1, versions + 1))
    prev, position = GENESIS_HASH, 0
    for e in stored:
        assert e.prev_hash == prev and e.hash == event_hash(prev, stream, e.version, e.type, e.data)
        assert e.position > position
        prev, position = e.hash, e.position


async def test_many_writers_go_together_and_every_stream_comes_out_whole(pg):
    streams = [f"g-{uuid.uuid4()}" for _ in range(24)]

    async def writer(stream: str) -> list[AppendResult]:
        done, head = [], None
        for i in range(12):
            size = 1 + i % 3  # one event, or a batch of them
            version = done[-1].last_version if done else 0
            result = await pg.append(stream, version, events(size, f"{stream}-{i}"), Metadata(actor="a"),
                                     idempotency_key=f"k{i}", kind="bench", prev_hash=head)
            assert (result.first_version, result.last_version) == (version + 1, version + size)
            assert [e.version for e in result.events] == list(range(version + 1, version + size + 1))
            done.append(result)
            head = result.head
        return done

    results = await asyncio.gather(*(writer(s) for s in streams))
    assert pg.group.appends == 24 * 12 and pg.group.statements < pg.group.appends / 2, vars(pg.group)
    for stream, done in zip(streams, results):
        await check_log(pg, stream, done[-1].last_version)
        assert await pg.stream_kind(stream) == "bench"
        again = await pg.append(stream, 0, events(1, "again"), Metadata(actor="a"), idempotency_key="k3")
        assert again.duplicate and (again.first_version, again.last_version) == (
            done[3].first_version, done[3].last_version)
    together = {e.tx for done in results for r in done for e in r.events}
    assert len(together) < pg.group.appends  # several appends shared one transaction


async def test_in_one_statement_a_stale_append_is_refused_a_resent_key_answered_and_the_rest_commit(pg):
    fresh, stale, keyed, busy = (f"g-{uuid.uuid4()}" for _ in range(4))
    meta = Metadata(actor="a")
    first = await pg.append(keyed, 0, events(1, "k"), meta, idempotency_key="once")
    await pg.append(stale, 0, events(2, "s"), meta)
    gate = asyncio.Event()
    alone = pg.group.alone

    async def held(item: Prepared) -> AppendResult:  # the one slot stays busy until the others wait
        if item.stream_id == busy:
            await gate.wait()
        return await alone(item)

    pg.group.alone = held
    statements = pg.group.statements
    blocker = asyncio.create_task(pg.append(busy, 0, events(1, "b"), meta))
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(pg.append(fresh, 0, events(2, "f"), meta, idempotency_key="new", kind="x")),
               asyncio.create_task(pg.append(stale, 1, events(1, "s2"), meta)),
               asyncio.create_task(pg.append(keyed, 0, events(1, "k"), meta, idempotency_key="once"))]
    async with asyncio.timeout(30):  # (a generous deadline on a busy machine)
        while len(pg.group.waiting) < 3:
            await asyncio.sleep(0.01)
    gate.set()
    made, refused, replayed = await asyncio.gather(*waiting, return_exceptions=True)
    await blocker
    assert pg.group.statements == statements + 2  # the blocker, then the three together
    assert made.last_version == 2 and await pg.stream_kind(fresh) == "x"
    await check_log(pg, fresh, 2)
    assert isinstance(refused, ConcurrencyError) and refused.actual == 2
    await check_log(pg, stale, 2)
    assert replayed.duplicate and replayed.last_version == first.last_version
    await check_log(pg, keyed, 1)


async def test_two_processes_racing_on_the_same_streams_lose_nothing_and_fork_nothing(pg_dsn):
    stores = [await PostgresStore.connect(pg_dsn, 4, slots=1) for _ in range(2)]
    streams = [f"g-{uuid.uuid4()}" for _ in range(10)]
    won: dict[tuple[str, int], int] = {}
    try:
        async def writer(store: PostgresStore, who: int, stream: str) -> None:
            for _ in range(15):
                version = await store.stream_version(stream)
                try:
                    result = await store.append(stream, version, events(1, f"{who}"), Metadata(actor=str(who)))
                except ConcurrencyError:
                    continue
                assert (stream, result.last_version) not in won
                won[(stream, result.last_version)] = who

        await asyncio.gather(*(writer(store, who, s) for who, store in enumerate(stores) for s in streams))
        for stream in streams:
            stored = await stores[0].read_stream(stream)
            await check_log(stores[0], stream, len(stored))
            assert {(stream, e.version) for e in stored} == {k for k in won if k[0] == stream}
    finally:
        for store in stores:
            await store.close()


def blank(stream: str) -> Prepared:
    """An append of nothing to `stream`, for a group whose sending is faked."""
    return Prepared(stream, 0, GENESIS_HASH, [], "", None, "", None)


async def queued(group: GroupCommit, gate: asyncio.Event, first: str, behind: tuple[str, ...]) -> list[asyncio.Task]:
    """`first` holding the one slot until `gate` opens with appends of `behind` waiting for it; the waiting
    ones' tasks once `first` is done (so they go together, as one statement)."""
    holder = asyncio.create_task(group.append(blank(first)))
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(group.append(blank(s))) for s in behind]
    await asyncio.sleep(0)
    gate.set()
    await holder
    return waiting


def recorded(sent: list[list[str]]):
    """A faked `together` that records each group's streams in `sent` and appends every one at version 1."""

    async def together(items: list[Prepared]) -> list:
        sent.append([i.stream_id for i in items])
        return [AppendResult(first_version=1, last_version=1) for _ in items]

    return together


async def test_an_append_cancelled_while_waiting_is_never_sent_and_holds_nobody_up():
    sent: list[list[str]] = []
    gate = asyncio.Event()

    async def alone(item: Prepared) -> AppendResult:
        await gate.wait()
        sent.append([item.stream_id])
        return AppendResult(first_version=1, last_version=1)

    group = GroupCommit(alone, recorded(sent), slots=1)

    first = asyncio.create_task(group.append(blank("a")))
    await asyncio.sleep(0)
    gone = asyncio.create_task(group.append(blank("b")))
    kept = [asyncio.create_task(group.append(blank(s))) for s in ("c", "c", "d")]
    await asyncio.sleep(0)
    gone.cancel()
    gate.set()
    await asyncio.gather(first, *kept)
    assert sent[0] == ["a"] and sent[1] == ["c", "d"] and sent[2] == ["c"]  # one append per stream a statement
    assert group.busy == 0 and not group.waiting


async def test_while_a_group_is_in_flight_new_appends_wait_for_the_next_even_with_a_slot_free():
    """Two slots. `a` and `b` go alone; `c` and `d` wait, then go together when `a` is done. With that group
    in flight and `b` done, a slot is free, yet `e` and `f` wait and go as the next group (a free slot
    starting a group of its own would make small groups under load); then `g`, finding nothing in
    flight, goes alone."""
    sent: list[list[str]] = []
    gates = {s: asyncio.Event() for s in ("a", "b", "c")}  # `c` stands for the first group

    async def alone(item: Prepared) -> AppendResult:
        sent.append([item.stream_id])
        if item.stream_id in gates:
            await gates[item.stream_id].wait()
        return AppendResult(first_version=1, last_version=1)

    async def together(items: list[Prepared]) -> list:
        sent.append([i.stream_id for i in items])
        if items[0].stream_id in gates:
            await gates[items[0].stream_id].wait()
        return [AppendResult(first_version=1, last_version=1) for _ in items]

    async def settled() -> None:
        for _ in range(5):
            await asyncio.sleep(0)

    group = GroupCommit(alone, together, slots=2)
    first = [asyncio.create_task(group.append(blank(s))) for s in ("a", "b", "c", "d")]
    await settled()
    assert sent == [["a"], ["b"]] and len(group.waiting) == 2
    gates["a"].set()
    await settled()
    assert sent[2:] == [["c", "d"]] and group.grouped
    gates["b"].set()
    await settled()
    assert group.busy == 1  # a slot is free, and the group is still in flight
    later = [asyncio.create_task(group.append(blank(s))) for s in ("e", "f")]
    await settled()
    assert sent[3:] == [] and len(group.waiting) == 2
    gates["c"].set()
    await asyncio.gather(*first, *later)
    assert sent[3:] == [["e", "f"]] and not group.grouped
    await group.append(blank("g"))
    assert sent[4:] == [["g"]] and (group.statements, group.appends) == (5, 7)
    assert group.busy == 0 and not group.waiting


async def test_the_service_store_takes_its_slots_from_the_settings(pg_dsn):
    from service.container import open_store
    from service.ops.settings import Settings

    async with open_store(Settings(database_url=pg_dsn, pg_append_slots=3), pool_max=2) as store:
        assert store.group.slots == 3


async def test_a_statement_that_fails_fails_every_append_it_carried_and_the_next_ones_go_on():
    gate, calls = asyncio.Event(), []

    async def alone(item: Prepared) -> AppendResult:
        await gate.wait()
        return AppendResult(first_version=1, last_version=1)

    async def together(items: list[Prepared]) -> list:
        calls.append(len(items))
        if len(calls) == 1:
            raise ConnectionResetError("the database went away")
        return [AppendResult(first_version=2, last_version=2) for _ in items]

    group = GroupCommit(alone, together, slots=1)

    failed = await queued(group, gate, "a", ("b", "c"))
    for task in failed:
        with pytest.raises(ConnectionResetError):
            await task
    gate.clear()
    later = await queued(group, gate, "d", ("e", "f"))
    assert [r.last_version for r in await asyncio.gather(*later)] == [2, 2] and calls == [2, 2]


async def test_a_statement_that_clashes_is_sent_again_one_append_at_a_time(pg):
    """Two appends of one stream never share a statement (`_take`); if they did, or another process wrote
    the same version meanwhile, the unique index refuses the whole statement, and each append then goes
    alone: the first in, the second refused as stale, nothing half-written."""
    stream, other = f"g-{uuid.uuid4()}", f"g-{uuid.uuid4()}"
    meta = Metadata(actor="a")
    first = [await pg._prepared(s, 0, events(1, f"{s}-1"), meta, None, "x", None, None) for s in (stream, other)]
    clash = await pg._prepared(stream, 0, events(2, "clash"), meta, None, "x", None, None)
    made, refused, also = await pg._together([first[0], clash, first[1]])
    assert made.last_version == 1 and also.last_version == 1
    assert isinstance(refused, ConcurrencyError)
    await check_log(pg, stream, 1)
    await check_log(pg, other, 1)
    assert [e.type for e in await pg.read_stream(stream)] == [f"test.{stream}-1"]
