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
