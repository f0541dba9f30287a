"""A fresh database per test here (the read models are global), a store on it, and a database handle."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from tests.conftest import fresh_database


@pytest.fixture
def pg_dsn() -> Iterator[str]:
    """Overrides the session database: every projection test starts from an empty log."""
    with fresh_database("stela_proj") as dsn:
        yield dsn


@pytest.fixture
async def store(pg_dsn: str) -> AsyncIterator:
    from service.store.postgres import PostgresStore

    store = await PostgresStore.connect(pg_dsn, 8)
    yield store
    await store.close()


@pytest.fixture
def client(pg_client):
    """Here the app runs on PostgreSQL (this folder's fresh database): the read models are its tables."""
    return pg_client
