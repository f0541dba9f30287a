"""Several processes starting at once on a new database: every schema object comes from the locked migrations."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from service.store.postgres import PostgresStore
from tests.conftest import fresh_database


@pytest.fixture
def new_dsn():
    with fresh_database("stela_startup", empty=True) as dsn:
        yield dsn


async def test_replicas_connecting_together_to_a_new_database_all_start_and_find_every_table(new_dsn):
    # seen under load: two replicas racing `CREATE TABLE IF NOT EXISTS tournament_games` at startup, one
    # failing with a unique violation in pg_type (uvicorn exit 3); the table is now a migration
    stores = await asyncio.gather(*(PostgresStore.connect(new_dsn, 2) for _ in range(6)))
    try:
        conn = await asyncpg.connect(new_dsn)
        try:
            for table in ("events", "streams", "idempotency", "tournament_games"):
                assert await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", table), table
            versions = [r[0] for r in await conn.fetch("SELECT version FROM schema_migrations ORDER BY version")]
            assert versions == sorted(set(versions)) and versions[-1] >= 5  # each migration applied once
        finally:
            await conn.close()
    finally:
        await asyncio.gather(*(s.close() for s in stores))


async def test_a_pool_closes_the_connections_a_burst_opened_once_they_sit_idle(pg_dsn):
    """The pool grows to a burst and gives the connections back to the server once they sit unused
    (`POOL_IDLE_SECONDS`, here 0.5 s), keeping one: long-lived replicas, idle between bursts, do not hold
    PostgreSQL's connections (the suite's session-wide sites held over 70 of its 100)."""
    store = await PostgresStore.connect(pg_dsn, 4, idle_seconds=0.5)
    try:
        async def hold() -> None:
            async with store.pool.acquire() as conn:
                await conn.execute("SELECT pg_sleep(0.2)")

        await asyncio.gather(*(hold() for _ in range(4)))
        assert store.pool.get_size() == 4
        deadline = asyncio.get_running_loop().time() + 30
        while store.pool.get_idle_size() > 1 or store.pool.get_size() > 1:
            assert asyncio.get_running_loop().time() < deadline, (store.pool.get_size(), store.pool.get_idle_size())
            await asyncio.sleep(0.1)
    finally:
        await store.close()
