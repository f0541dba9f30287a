"""A stuck game stalls only itself (`service.store.appending`): while another transaction holds an
uncommitted insert of one stream's next version, appends of other streams on the same store go on, alone
or together; the held stream's append gives up its lock wait after the store's short lock timeout and is
refused (`StreamLocked`, nothing written), and from then on never rides in a group; once the holder rolls
back, its append goes in whole, and once the holder commits, it is a plain version conflict."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest

from service.store.appending import Prepared
from service.store.postgres import PostgresStore
from service.store.protocol import AppendResult, ConcurrencyError, Metadata, StreamLocked, chain
from tests.service.store.test_group_commit import check_log, events

META = Metadata(actor="a")
_INSERT = ("INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash) "
           "VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7)")


@pytest.fixture
async def pg(pg_dsn):
    # one statement in flight, so whatever the held append holds up waits behind it; statements may take
    # two minutes, so only the lock timeout can end the held append's wait before the holder lets go
    store = await PostgresStore.connect(pg_dsn, 8, command_timeout=120, slots=1, lock_timeout=0.2)
    yield store
    await store.close()


@contextlib.asynccontextmanager
async def holding(dsn: str, stream: str, head: AppendResult) -> AsyncIterator[asyncpg.Connection]:
    """Another connection's open transaction with an uncommitted insert of `stream`'s next version (rolled
    back on leaving, unless the body committed it with `COMMIT`)."""
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("BEGIN")
        [(v, t, d, m, p, h)] = chain(stream, head.last_version, head.head, events(1, "holder"), META)
        await conn.execute(_INSERT, stream, v, t, msgspec.json.encode(d).decode(), msgspec.json.encode(m).decode(),
                           p, h)
        yield conn
        if conn.is_in_transaction():
            await conn.execute("ROLLBACK")
    finally:
        await conn.close()


async def writing(store: PostgresStore, streams: list[str], appends: int) -> list[AppendResult]:
    """`appends` appends to each of `streams`, the streams side by side; the last result of each."""

    async def writer(stream: str) -> AppendResult:
        result = None
        for i in range(appends):
            result = await store.append(stream, i, events(1, f"{stream}-{i}"), META, kind="x",
                                        prev_hash=result.head if result else None)
        return result

    return await asyncio.gather(*(writer(s) for s in streams))


def groups_sent(store: PostgresStore) -> list[list[str]]:
    """The streams of every group statement `store` sends from now on."""
    sent, together = [], store.group.together

    async def spied(items: list[Prepared]) -> list:
        sent.append([i.stream_id for i in items])
        return await together(items)

    store.group.together = spied
    return sent


async def test_other_streams_append_while_one_is_held_and_the_held_one_goes_in_once_released(pg, pg_dsn):
    held = f"g-{uuid.uuid4()}"
    first = await pg.append(held, 0, events(1, "first"), META, kind="x")
    others = [f"g-{uuid.uuid4()}" for _ in range(12)]
    async with holding(pg_dsn, held, first):
        stuck = asyncio.create_task(pg.append(held, 1, events(1, "mine"), META, prev_hash=first.head))
        await asyncio.sleep(0)  # it has the one slot: everything after it waits for a statement
        assert pg.group.busy == 1
        # (a generous deadline on a busy machine; the holder lets go only after it)
        done = await asyncio.wait_for(writing(pg, others, 4), 60)
        assert [r.last_version for r in done] == [4] * 12
        with pytest.raises(StreamLocked):
            await stuck
        assert held in pg.group.held
        sent = groups_sent(pg)  # a held stream goes alone, never in a group, and holds no slot
        again = asyncio.create_task(pg.append(held, 1, events(1, "mine"), META, prev_hash=first.head))
        more = await asyncio.wait_for(writing(pg, [f"g-{uuid.uuid4()}" for _ in range(8)], 3), 60)
        assert [r.last_version for r in more] == [3] * 8
        with pytest.raises(StreamLocked):
            await again
        assert all(held not in group for group in sent), sent
    for stream in others:
        await check_log(pg, stream, 4)
    await check_log(pg, held, 1)  # nothing of the refused appends, nothing of the holder's
    after = await pg.append(held, 1, events(1, "mine"), META, prev_hash=first.head)
    assert after.last_version == 2 and held not in pg.group.held
    await check_log(pg, held, 2)


async def one_group(store: PostgresStore, appends: list) -> tuple[asyncio.Task, list[asyncio.Task], asyncio.Event]:
    """`appends` (coroutines of `store.append`, a store of one slot) queued behind an append that keeps the slot
    busy until the event returned is set, so that they then go as one group: that append's task, theirs, the event."""
    busy, gate, alone = f"g-{uuid.uuid4()}", asyncio.Event(), store.group.alone

    async def gated(item: Prepared) -> AppendResult:
        if item.stream_id == busy:
            await gate.wait()
        return await alone(item)

    store.group.alone = gated
    blocker = asyncio.create_task(store.append(busy, 0, events(1, "b"), META))
    await asyncio.sleep(0)
    tasks = [asyncio.create_task(a) for a in appends]
    async with asyncio.timeout(30):
        while len(store.group.waiting) < len(tasks):
            await asyncio.sleep(0.01)
    return blocker, tasks, gate


async def test_a_group_carrying_a_held_stream_lets_the_others_in_and_refuses_only_it(pg, pg_dsn):
    held = f"g-{uuid.uuid4()}"
    first = await pg.append(held, 0, events(1, "first"), META, kind="x")
    sent = groups_sent(pg)
    async with holding(pg_dsn, held, first):
        others = [f"g-{uuid.uuid4()}" for _ in range(5)]
        blocker, waiting, gate = await one_group(pg, [pg.append(held, 1, events(1, "mine"), META, prev_hash=first.head),
                                                      *(pg.append(s, 0, events(2, s), META, kind="x") for s in others)])
        gate.set()
        results = await asyncio.wait_for(asyncio.gather(*waiting, return_exceptions=True), 60)
        await blocker
        assert isinstance(results[0], StreamLocked) and held in pg.group.held
        assert [r.last_version for r in results[1:]] == [2] * 5
        assert sorted(sent[0]) == sorted([held, *others])  # they went together, and the lock wait failed it
    for stream in others:
        await check_log(pg, stream, 2)
    await check_log(pg, held, 1)


async def test_a_group_gives_up_its_lock_wait_long_before_an_append_alone_would(pg_dsn):
    """A group statement in a lock wait holds every append it carries and every one behind it, so it waits only
    `GROUP_LOCK_TIMEOUT` (50 ms): here an append alone would wait a minute, yet the group's other appends go in while the
    holder still holds, and the held append, sent again alone, waits for the holder and goes in once it lets go."""
    store = await PostgresStore.connect(pg_dsn, 8, command_timeout=120, slots=1, lock_timeout=60)
    try:
        held = f"g-{uuid.uuid4()}"
        first = await store.append(held, 0, events(1, "first"), META, kind="x")
        sent = groups_sent(store)
        async with holding(pg_dsn, held, first) as holder:
            others = [f"g-{uuid.uuid4()}" for _ in range(5)]
            blocker, (mine, *waiting), gate = await one_group(
                store, [store.append(held, 1, events(1, "mine"), META, prev_hash=first.head),
                        *(store.append(s, 0, events(2, s), META, kind="x") for s in others)])
            gate.set()
            # (a generous deadline on a busy machine, and half the minute an append alone waits)
            results = await asyncio.wait_for(asyncio.gather(*waiting), 30)
            await blocker
            assert [r.last_version for r in results] == [2] * 5
            assert sorted(sent[0]) == sorted([held, *others]) and not mine.done()  # it waits alone for the holder
            await holder.execute("ROLLBACK")
        assert (await asyncio.wait_for(mine, 30)).last_version == 2
        await check_log(store, held, 2)
    finally:
        await store.close()


async def test_once_the_holder_commits_the_held_streams_append_is_a_version_conflict(pg, pg_dsn):
    held = f"g-{uuid.uuid4()}"
    first = await pg.append(held, 0, events(1, "first"), META, kind="x")
    async with holding(pg_dsn, held, first) as holder:
        with pytest.raises(StreamLocked):
            await pg.append(held, 1, events(1, "mine"), META, prev_hash=first.head)
        await holder.execute("COMMIT")
    with pytest.raises(ConcurrencyError) as refused:
        await pg.append(held, 1, events(1, "mine"), META, prev_hash=first.head)
    assert refused.value.actual == 2 and held not in pg.group.held
    stored = await pg.read_stream(held)
    assert [e.type for e in stored] == ["test.first", "test.holder"]
    await check_log(pg, held, 2)


async def test_an_append_waiting_when_its_stream_is_found_held_goes_alone_and_the_group_goes_without_it():
    from service.store.appending import GroupCommit
    from tests.service.store.test_group_commit import blank, recorded

    sent: list[list[str]] = []
    gate = asyncio.Event()

    async def alone(item: Prepared) -> AppendResult:
        sent.append([item.stream_id])
        if item.stream_id == "a":
            await gate.wait()
        if item.stream_id == "s":
            raise StreamLocked("held")
        return AppendResult(first_version=1, last_version=1)

    group = GroupCommit(alone, recorded(sent), slots=1)
    first = asyncio.create_task(group.append(blank("a")))
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(group.append(blank(s))) for s in ("s", "b", "c")]
    await asyncio.sleep(0)
    group._note("s", True)  # another append of `s` found it held meanwhile
    gate.set()
    held, *others = await asyncio.gather(*waiting, return_exceptions=True)
    await first
    assert isinstance(held, StreamLocked) and "s" in group.held
    assert sorted(sent[1:]) == [["b", "c"], ["s"]]  # never ["s", "b", "c"]
    assert group.busy == 0 and not group.waiting and not group.grouped


async def test_a_stream_a_group_statement_answers_held_is_remembered_as_held():
    """`together` may find a stream held on its own (sending a clashing group's appends one at a time)."""
    from service.store.appending import GroupCommit
    from tests.service.store.test_group_commit import blank, queued

    async def together(items: list[Prepared]) -> list:
        return [StreamLocked("held") if i.stream_id == "s" else AppendResult(first_version=1, last_version=1)
                for i in items]

    gate = asyncio.Event()

    async def alone(item: Prepared) -> AppendResult:
        await gate.wait()
        return AppendResult(first_version=1, last_version=1)

    group = GroupCommit(alone, together, slots=1)
    held, other = await asyncio.gather(*await queued(group, gate, "a", ("s", "b")), return_exceptions=True)
    assert isinstance(held, StreamLocked) and other.last_version == 1
    assert list(group.held) == ["s"]
