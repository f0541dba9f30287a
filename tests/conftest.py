"""Shared fixtures: a fresh PostgreSQL database per test session (and xdist worker), apps and clients.

`fresh_database` copies a template this process migrated once; `server` is one app served for the whole
session (per worker) for the tests that need only a live server. `client` is an app on the memory store
(its own `MemoryStore`, with the same `Services` as on PostgreSQL: tournaments, arenas and workers), so a
test that uses it needs no database and lands in the fast tier;
`pg_client` is the same app on the session's PostgreSQL database, for the tests of PostgreSQL itself and
of the read models (the memory store keeps none). `settings` are PostgreSQL's, `memory_settings` the
memory store's (no DATABASE_URL: an app built on them must be handed its store, else it would start an
embedded PostgreSQL).
"""

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
# every `stela serve` a test starts inherits this environment: a pool of 8, not the shipped 20, keeps the
# suite's PostgreSQL connections bounded when three replicas of one test run beside other workers' servers
# (a clean-clone run peaked at 96 of the server's 100)
os.environ.setdefault("STELA_DB_POOL_MAX", "8")
# and hashes passwords at Argon2's least cost (1 pass over 1 MiB in one lane: about 1 ms, where the shipped
# RFC 9106 cost takes 160-260 ms of CPU here, and the suite hashes a few hundred times); the in-process apps'
# settings below say the same. The shipped cost is pinned by test_the_shipped_argon2_cost_is_rfc_9106s
LIGHT_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_kib": 1024, "argon2_parallelism": 1}
for _field, _value in LIGHT_ARGON2.items():
    os.environ.setdefault(f"STELA_{_field.upper()}", str(_value))


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


_template: str | None = None  # this process's migrated database, the template of every fresh one


def _migrated_template() -> str:
    """The name of a database this process migrated once (made on first use, dropped at the session's end):
    copying it (CREATE DATABASE ... TEMPLATE, ~0.1 s) spares each fresh database the migrations (~0.6 s)."""
    global _template
    if _template is None:
        from service.store.migrations import migrate

        name = f"stela_template_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        _admin(f'CREATE DATABASE "{name}"')

        async def run() -> None:
            conn = await asyncpg.connect(_dsn_for(name))
            try:
                await migrate(conn)
            finally:
                await conn.close()

        try:
            asyncio.run(run())
        except BaseException:
            _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            raise
        _template = name
    return _template


def pytest_unconfigure(config: pytest.Config) -> None:
    global _template
    if _template is not None:
        _admin(f'DROP DATABASE IF EXISTS "{_template}" WITH (FORCE)')
        _template = None


@contextmanager
def fresh_database(prefix: str, empty: bool = False) -> Iterator[str]:
    """A new database (its DSN), dropped when the block ends: with the service's migrations applied (a copy
    of this process's migrated template), or `empty` for a test of what migrating a new database does."""
    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    _admin(f'CREATE DATABASE "{name}"' if empty else f'CREATE DATABASE "{name}" TEMPLATE "{_migrated_template()}"')
    try:
        yield _dsn_for(name)
    finally:
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    """A database created for this test session (one per xdist worker), dropped afterwards."""
    with fresh_database("stela_test") as dsn:
        yield dsn


def _games() -> dict:
    from domain.catalog import GAMES
    from testkit.tally import TALLY

    return {**GAMES, "tally": TALLY}


def _memory_settings():
    from service.ops.settings import Settings

    return Settings(database_url=None, redis_url=None, rate_limit=0, heartbeat_seconds=0.5, db_pool_max=8,
                    admin_token="admin-secret", snapshot_every=5, log_level="warning", projector="embedded",
                    **LIGHT_ARGON2)


@pytest.fixture
def games():
    return _games()


@pytest.fixture
def memory_settings():
    """The service's settings for an app on a memory store the test hands it (no DATABASE_URL)."""
    return _memory_settings()


@pytest.fixture
def settings(memory_settings, pg_dsn):
    """The service's settings on the session's PostgreSQL database."""
    import msgspec

    return msgspec.structs.replace(memory_settings, database_url=pg_dsn)


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """The base URL of one app (the tests' settings and games) served in a thread for the whole session, one
    per xdist worker, for the tests that need only a live server: building and starting one per test cost
    0.5-0.7 s quiet, 2-4 s on a busy machine. Its database is its own, so its projector leads there and
    never stands by for the app of a test on the session's database (`pg_dsn`); a test that counts the
    server's work, changes its settings or stops it serves an app of its own. Its pool is small (5): it lives
    the whole session beside the tests' own apps, and every worker's connections stay bounded."""
    import msgspec

    from service.edge.app import create_app
    from testkit.live import serving

    with fresh_database("stela_served") as dsn, \
            serving(create_app(msgspec.structs.replace(_memory_settings(), database_url=dsn, db_pool_max=5),
                               games=_games())) as url:
        yield url


@pytest.fixture
async def client(memory_settings, games) -> AsyncIterator:
    """A client of the app on a memory store of its own."""
    from litestar.testing import AsyncTestClient

    from service.edge.app import create_app
    from service.store.memory import MemoryStore

    async with AsyncTestClient(create_app(memory_settings, games=games, store=MemoryStore()), timeout=30) as c:
        yield c


@pytest.fixture
async def pg_client(settings, games) -> AsyncIterator:
    """A client of the app on the session's PostgreSQL database (read models and projector included)."""
    from litestar.testing import AsyncTestClient

    from service.edge.app import create_app

    async with AsyncTestClient(create_app(settings, games=games), timeout=30) as c:
        yield c
