"""`read_types`: a follower that handles only some platform events reads exactly those, in the log's order,
under the same horizon as `read_after`, and its checkpoint passes every other event (so the result runners
never read a game's moves again); the statement uses a partial index of those types."""

from __future__ import annotations

import asyncio
import time

import pytest

from projections.log import _typed_read, read_after, read_types
from service.store.protocol import ENDINGS
from service.store.readside import CLOCK_TYPES
from tests.projections.support import append_games
from tests.projections.test_horizon import open_transaction


async def below_the_horizon(store, count: int) -> None:
    """Wait (polling, generous deadline) until the horizon has passed all `count` events of this fresh database.
    A transaction of this database that took its id before the last append (autovacuum's ANALYZE of `events`
    does) holds every reader back until it ends, as it must."""
    deadline = time.monotonic() + 60
    async with store.pool.acquire() as conn:
        while len(await read_after(conn, (0, 0), 100_000)) < count:
            assert time.monotonic() < deadline, "the horizon stayed below the appended events"
            await asyncio.sleep(0.05)


async def test_it_reads_the_events_of_its_types_in_log_order_and_passes_the_rest(store):
    await below_the_horizon(store, await append_games(store, range(12), abort_every=4))
    read = read_types(ENDINGS)
    async with store.pool.acquire() as conn:
        every = await read_after(conn, (0, 0), 100_000)
        wanted = [e for e in every if e.type in ENDINGS]
        assert len(wanted) == 12 and len(every) > 100  # every game ends (finished or aborted), among many events
        got, after, calls = [], (0, 0), 0
        while True:  # in batches of 5, as a follower moves its checkpoint
            batch = await read(conn, after, 5)
            calls += 1
            got += batch
            if batch.upto is None:
                break
            assert batch.upto > after
            after = batch.upto
        assert [(e.stream_id, e.version, e.type) for e in got] == [(e.stream_id, e.version, e.type) for e in wanted]
        assert [e.table for e in got] == [e.table for e in wanted]  # decoded as read_after decodes them
        assert after == every[-1].cursor  # the checkpoint passed the moves after the last ending too
        assert calls == 12 // 5 + 2  # two full batches, the last two endings (upto: the newest event), then nothing
        assert (await read(conn, after, 5)).upto is None  # nothing new: no checkpoint to write


async def test_a_full_batch_stops_the_checkpoint_at_its_last_event(store):
    await below_the_horizon(store, await append_games(store, range(6)))
    async with store.pool.acquire() as conn:
        batch = await read_types(ENDINGS)(conn, (0, 0), 2)
        assert len(batch) == 2 and batch.upto == batch[-1].cursor  # the rest of the endings are read next time


async def test_an_open_transaction_of_this_database_holds_it_back_like_read_after(store, pg_dsn):
    await below_the_horizon(store, await append_games(store, range(3)))
    holder, tx, _ = await open_transaction(pg_dsn)
    try:
        later = await append_games(store, range(3, 6))  # committed after the open transaction took its id
        async with store.pool.acquire() as conn:
            batch = await read_types(ENDINGS)(conn, (0, 0), 100)
            below = await read_after(conn, (0, 0), 100_000)
        assert [e.stream_id for e in batch] == [e.stream_id for e in below if e.type in ENDINGS]
        assert {e.stream_id for e in batch} == {f"game-{s}" for s in range(3)}
        assert batch.upto == below[-1].cursor  # not past the horizon: later games' endings are read later
    finally:
        await tx.rollback()
        await holder.close()
    await below_the_horizon(store, len(below) + later)
    async with store.pool.acquire() as conn:
        rest = await read_types(ENDINGS)(conn, batch.upto, 100)
    assert {e.stream_id for e in rest} == {f"game-{s}" for s in range(3, 6)}


async def test_the_statement_reads_a_partial_index_of_its_types(store):
    await append_games(store, range(20))
    async with store.pool.acquire() as conn:
        await conn.execute("ANALYZE events")
        for types, index in ((ENDINGS, "events_endings_tx"), (CLOCK_TYPES, "events_clock_tx")):
            plan = "\n".join(r[0] for r in await conn.fetch(
                "EXPLAIN (COSTS OFF) " + _typed_read(types).replace("$1", "0").replace("$2", "0").replace("$3", "100")))
            assert index in plan, plan


def test_only_event_type_names_are_spliced_into_the_statement():
    with pytest.raises(ValueError):
        read_types(("table.GameEnded', 'x",))
    with pytest.raises(ValueError):
        read_types(())


async def test_follow_with_types_moves_the_checkpoint_past_other_events(store):
    await below_the_horizon(store, await append_games(store, range(8)))
    seen: list[str] = []

    async def handle(events):
        seen.extend(e.type for e in events)

    await store.ensure_tables([])
    while await store.follow("typed-test", 3, handle, ENDINGS):
        pass
    assert seen == ["table.GameEnded"] * 8
    async with store.pool.acquire() as conn:
        cursor = await conn.fetchrow("SELECT tx, position FROM projection_checkpoints WHERE name = 'typed-test'")
        newest = await conn.fetchrow("SELECT tx, position FROM events ORDER BY tx DESC, position DESC LIMIT 1")
    assert tuple(cursor) == tuple(newest)
