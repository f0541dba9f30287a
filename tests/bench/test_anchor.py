"""bench.http's anchor holds its connections as the event store does: a connection comes back to the
pool without a reset query (asyncpg's default sends one, a second round trip per request, which made
the anchor slower than the least a command endpoint does and flattered every ratio against it)."""

from __future__ import annotations

from bench.anchor import create
from service.store.postgres import PostgresStore


async def session_survives_release(pool) -> bool:
    """Whether a setting made on a pooled connection is still there when the pool lends it again."""
    async with pool.acquire() as conn:
        await conn.execute("SET application_name = 'kept-between-uses'")
        pid = await conn.fetchval("SELECT pg_backend_pid()")
    for _ in range(pool.get_size()):  # (the pool lends the connection it got back last first)
        async with pool.acquire() as conn:
            if await conn.fetchval("SELECT pg_backend_pid()") == pid:
                return await conn.fetchval("SHOW application_name") == "kept-between-uses"
    raise AssertionError("the pool never lent the same connection again")


async def test_the_anchor_and_the_store_send_no_reset_query_when_a_connection_comes_back(pg_dsn):
    app = create(pg_dsn)
    for start in app.on_startup:  # (on this test's event loop, as the pool must be)
        await start(app)
    try:
        assert await session_survives_release(app.state.pool)
    finally:
        for stop in app.on_shutdown:
            await stop(app)
    store = await PostgresStore.connect(pg_dsn, 4)
    try:
        assert await session_survives_release(store.pool)
    finally:
        await store.close()
