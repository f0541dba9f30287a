"""A fresh database per test here (the read models are global), a store on it, and a database handle."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from tests.conftest import ADMIN_DSN, _dsn_for


@pytest.fixture
def pg_dsn() -> str:
    """Overrides the session database: every projection test starts from an empty log."""
    name = f"stela_proj_{uuid.uuid4().hex[:10]}"

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(ADMIN_DSN)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f'CREATE DATABASE "{name}"'))
    yield _dsn_for(name)
    asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
async def store(pg_dsn: str) -> AsyncIterator:
    from service.store.postgres import PostgresStore

    store = await PostgresStore.connect(pg_dsn, 8)
    yield store
    await store.close()
