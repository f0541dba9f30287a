"""The one store contract's two stores, memory and PostgreSQL (the event store's suite and the log's)."""

from __future__ import annotations

import pytest

from service.store.memory import MemoryStore
from service.store.postgres import PostgresStore


@pytest.fixture(params=["memory", "postgres"])
async def store(request, pg_dsn):
    if request.param == "memory":
        yield MemoryStore()
    else:
        pg = await PostgresStore.connect(pg_dsn, 8)
        yield pg
        await pg.close()
