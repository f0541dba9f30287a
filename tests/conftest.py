"""Shared fixtures: a fresh PostgreSQL database per test session (and xdist worker), apps and clients."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import asyncpg
import pytest

ADMIN_DSN = os.environ.get("TEST_ADMIN_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _dsn_for(name: str) -> str:
    base, _, _ = ADMIN_DSN.rpartition("/")
    return f"{base}/{name}"


def _admin(sql: str) -> None:
    async def run() -> None:
        conn = await asyncpg.connect(ADMIN_DSN)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())


@contextmanager
def fresh_database(prefix: str) -> Iterator[str]:
    """A new, empty database (its DSN), dropped when the block ends."""
    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    _admin(f'CREATE DATABASE "{name}"')
    try:
        yield _dsn_for(name)
    finally:
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    """A database created for this test session (one per xdist worker), dropped afterwards."""
    with fresh_database("stela_test") as dsn:
        yield dsn


@pytest.fixture
def games():
    from domain.catalog import GAMES
    from testkit.tally import TALLY

    return {**GAMES, "tally": TALLY}


@pytest.fixture
def settings(pg_dsn):
    from service.ops.settings import Settings

    return Settings(database_url=pg_dsn, redis_url=None, rate_limit=0, heartbeat_seconds=0.5, db_pool_max=8,
                    admin_token="admin-secret", snapshot_every=5, log_level="warning", projector="embedded")


@pytest.fixture
async def client(settings, games) -> AsyncIterator:
    from litestar.testing import AsyncTestClient

    from service.edge.app import create_app

    app = create_app(settings, games=games)
    async with AsyncTestClient(app, timeout=30) as c:
        yield c
