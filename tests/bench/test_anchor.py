"""bench.http's anchor holds its connections as the event store does: a connection comes back to the
pool without a reset query (asyncpg's default sends one, a second round trip per request, which made
the anchor slower than the least a command endpoint does and flattered every ratio against it)."""

from __future__ import annotations

import pytest

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


@pytest.mark.parametrize("served", ["framework_free", "litestar"])
async def test_the_game_anchor_plays_a_real_game_by_its_rules_and_chains_what_it_appends(pg_dsn, served):
    """Both game anchors, the raw ASGI app and the same answers behind Litestar's cheapest routes."""
    import asyncpg
    import msgspec

    from bench.anchor import create_game
    from bench.anchor_asgi import game
    from bench.instructions import request
    from bench.steps import MIX, script
    from service.store.protocol import GENESIS_HASH, event_hash
    from testkit.live import lifespan

    app = game(pg_dsn) if served == "framework_free" else create_game(pg_dsn)
    kind, options, seats = MIX[0]
    game_id = f"anchor-{kind}-0-{served}"
    steps = script(kind, seats, msgspec.json.encode(options))[:25]
    async with lifespan(app):
        for step in steps:
            status, body = await request(app, "GET", f"/v1/games/{game_id}/legal", b"", b"", {})
            assert status == 200 and step.wire in msgspec.json.decode(body)["commands"], body[:300]
            status, body = await request(app, "POST", f"/v1/games/{game_id}/commands", b"include=view,legal",
                                         step.body, {})
            answer = msgspec.json.decode(body)
            assert status == 200 and answer["events"] and answer["view"]["kind"] == kind, body[:300]
    conn = await asyncpg.connect(pg_dsn)
    try:
        rows = await conn.fetch("SELECT version, type, data::text, prev_hash, hash FROM game_anchor_events "
                                "WHERE stream_id = $1 ORDER BY version", game_id)
    finally:
        await conn.close()
    assert [r["version"] for r in rows] == list(range(1, len(rows) + 1)) and len(rows) > len(steps)
    prev = GENESIS_HASH
    for row in rows:
        assert row["prev_hash"] == prev
        prev = event_hash(prev, game_id, row["version"], row["type"], msgspec.json.decode(row["data"]))
        assert row["hash"] == prev
