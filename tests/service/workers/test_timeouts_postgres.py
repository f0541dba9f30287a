"""The timeout worker on PostgreSQL: replicas with pools of their own race for each due deadline and it
fires exactly once (the advisory lock, then the append's head check), even while an unrelated
transaction holds the read models' horizon."""

from __future__ import annotations

import asyncio

import pytest

from projections.deadlines import Deadline
from service.commands.pipeline import now_ms
from service.commands.players import Viewer
from service.store.postgres import PostgresStore
from tests.service.workers.support import LATER, clocked_game, process, types_of


@pytest.fixture
async def replicas(pg_dsn):
    two = [await process(await PostgresStore.connect(pg_dsn, 6)), await process(await PostgresStore.connect(pg_dsn, 6))]
    yield two
    for r in two:
        await r.store.close()


async def test_two_workers_racing_on_one_due_deadline_record_exactly_one_timeout(replicas):
    a, b = replicas
    game_id, _ = await clocked_game(a)
    fired = await asyncio.gather(a.worker.tick(), b.worker.tick(), a.worker.tick(), b.worker.tick())
    assert (await types_of(a, game_id)).count("table.TimedOut") == 1
    assert sum(fired) >= 1


async def test_two_replicas_firing_the_same_row_bypassing_the_lock_still_record_one_timeout(replicas):
    a, b = replicas
    game_id, _ = await clocked_game(a)
    await a.worker.tick()  # brings the read model up to date (and fires)
    events = await a.store.read_stream(game_id)
    clock = [e for e in events if e.type == "table.ClockSet"][-1]
    seat = next(s for s, d in enumerate(clock.data["deadlines_ms"]) if d is not None)
    row = Deadline(game_id, seat, clock.data["deadlines_ms"][seat], clock.version)
    later = now_ms() + 2 * LATER
    done = await asyncio.gather(a.worker._fire(row, later), b.worker._fire(row, later))
    assert sum(done) == 1
    assert (await types_of(a, game_id)).count("table.TimedOut") == 2


async def test_a_deadline_fires_while_an_unrelated_transaction_holds_the_horizon(replicas, pg_dsn):
    """The read models wait for every open transaction of the database; a clock does not."""
    import time

    import asyncpg

    a, b = replicas
    for r in replicas:
        r.worker.clock = now_ms
    blocker = await asyncpg.connect(pg_dsn)
    try:
        await blocker.execute("BEGIN")
        await blocker.fetchval("SELECT pg_current_xact_id()")  # idle in transaction from now on, with an xid
        viewers = [Viewer(player=(await a.players.register(f"P{i}"))[0]) for i in range(2)]
        game_id = (await a.pipeline.create(viewers[0], "tally", {"target": 1000}, 2,
                                           time_control={"per_move_seconds": 1})).game_id
        await a.pipeline.join(viewers[1], game_id, None)
        await a.pipeline.start(viewers[0], game_id)
        due = (await a.repository.load(game_id)).state.clock.deadlines_ms[0] / 1000
        deadline = time.monotonic() + 60
        while "table.TimedOut" not in await types_of(a, game_id):
            assert time.monotonic() < deadline, "the deadline did not fire while the horizon was held"
            await asyncio.gather(a.worker.tick(), b.worker.tick())
            await asyncio.sleep(0.05)
        late = time.time() - due
        assert blocker.is_in_transaction() and not blocker.is_closed()  # it fired while the horizon stood
        assert (await types_of(a, game_id)).count("table.TimedOut") == 1
        print(f"fired {late:.2f} s after its deadline with the horizon held")
    finally:
        await blocker.close()
    await asyncio.gather(a.worker.tick(), b.worker.tick())  # the read model catches up with what fired
    timed_out = [e.data for e in await a.store.read_stream(game_id) if e.type == "table.TimedOut"]
    assert len({(t["seat"], t["consecutive"]) for t in timed_out}) == len(timed_out)  # no deadline fired twice
