"""The append's leased connections: bounded, reused after a PostgreSQL error, given back after anything else."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from service.store import lanes as lanes_module
from service.store.lanes import Lanes, lanes_for
from service.store.postgres import DEAD_CONNECTION, PostgresStore
from service.store.protocol import StoreUnavailable

PID = "SELECT pg_backend_pid() AS pid"


@pytest.fixture
async def pool(pg_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(pg_dsn, min_size=1, max_size=4)
    yield pool
    await asyncio.wait_for(pool.close(), 30)


async def pid(lanes: Lanes) -> int:
    return (await lanes.fetch(PID))[0]["pid"]


def test_the_append_may_lease_all_but_a_quarter_of_the_pool_and_at_least_two_stay_for_the_rest():
    assert [lanes_for(n) for n in (1, 3, 4, 8, 18, 20, 100)] == [0, 0, 2, 6, 14, 15, 75]


async def test_many_calls_at_once_share_the_lanes_and_never_lease_more(pool):
    lanes = Lanes(pool, 2, DEAD_CONNECTION)
    most = 0

    async def call(i: int) -> int:
        nonlocal most
        rows = await lanes.fetch("SELECT pg_backend_pid() AS pid, pg_sleep(0.01), $1::int AS i", i)
        most = max(most, lanes.leased)
        assert rows[0]["i"] == i
        return rows[0]["pid"]

    pids = await asyncio.gather(*(call(i) for i in range(40)))
    assert len(set(pids)) <= 2 and most <= 2 and lanes.leased <= 2
    await lanes.close()
    assert lanes.leased == 0 and pool.get_idle_size() == pool.get_size()


async def test_a_postgresql_error_keeps_the_lane_and_its_connection(pool):
    lanes = Lanes(pool, 1, DEAD_CONNECTION)
    before = await pid(lanes)
    with pytest.raises(asyncpg.DivisionByZeroError):
        await lanes.fetch("SELECT 1 / 0")
    assert await pid(lanes) == before and lanes.leased == 1
    await lanes.close()


async def test_a_call_cancelled_mid_statement_gives_its_connection_back_to_the_pool(pool):
    lanes = Lanes(pool, 1, DEAD_CONNECTION)
    await pid(lanes)
    for _ in range(6):  # more than the pool holds: each lane given back is cleaned up and replaced
        call = asyncio.create_task(lanes.fetch("SELECT pg_sleep(30)"))
        await asyncio.sleep(0)  # the statement is sent
        while lanes.leased == 0:
            await asyncio.sleep(0.01)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert lanes.leased == 0
        assert (await lanes.fetch("SELECT 41 + 1 AS n"))[0]["n"] == 42
    await lanes.close()
    await asyncio.wait_for(pool.close(), 30)  # nothing is left acquired


async def test_a_connection_postgresql_ended_fails_one_call_and_the_next_gets_a_fresh_one(pool):
    lanes = Lanes(pool, 1, DEAD_CONNECTION)
    doomed = await pid(lanes)
    async with pool.acquire() as admin:
        await admin.execute("SELECT pg_terminate_backend($1)", doomed)
    with pytest.raises(DEAD_CONNECTION):
        for _ in range(50):  # the termination reaches the client by the next statement at the latest
            await lanes.fetch(PID)
            await asyncio.sleep(0.05)
    assert lanes.leased == 0
    assert await pid(lanes) != doomed
    await lanes.close()


async def test_a_caller_waiting_for_a_lane_can_be_cancelled_and_the_lanes_stay_whole(pool):
    lanes = Lanes(pool, 1, DEAD_CONNECTION)
    busy = asyncio.create_task(lanes.fetch("SELECT pg_sleep(0.3)"))
    while lanes.leased == 0:
        await asyncio.sleep(0.01)
    waiting = asyncio.create_task(lanes.fetch(PID))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await busy
    assert lanes.leased == 1
    await pid(lanes)  # the lane came back to the free list, not to the cancelled caller
    await lanes.close()
    with pytest.raises(StoreUnavailable):
        await lanes.fetch(PID)


async def test_the_store_appends_on_its_lanes_and_closes_with_them(pg_dsn):
    from service.store.protocol import Metadata, NewEvent

    store = await PostgresStore.connect(pg_dsn, 8)
    assert store.lanes is not None and store.lanes.size == 6
    results = await asyncio.gather(*(store.append(f"lane-{i}", 0, [NewEvent("x.Y", {"i": i})], Metadata())
                                     for i in range(20)))
    assert [r.last_version for r in results] == [1] * 20
    assert 1 <= store.lanes.leased <= 6
    await asyncio.wait_for(store.close(), 30)
    assert store.lanes.leased == 0


async def test_lanes_left_unused_go_back_to_the_pool(pool, monkeypatch):
    monkeypatch.setattr(lanes_module, "IDLE_RETURN", 0.05)
    lanes = Lanes(pool, 3, DEAD_CONNECTION)
    await asyncio.gather(*(lanes.fetch("SELECT pg_sleep(0.05)") for _ in range(3)))
    assert lanes.leased == 3
    deadline = asyncio.get_running_loop().time() + 30
    while lanes.leased or pool.get_idle_size() != pool.get_size():
        assert asyncio.get_running_loop().time() < deadline, (lanes.leased, pool.get_idle_size(), pool.get_size())
        await asyncio.sleep(0.02)
    assert await pid(lanes)  # and a later call leases again
    assert lanes.leased == 1
    await lanes.close()
