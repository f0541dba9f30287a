"""PostgreSQL refusing, ending or locking: every such answer is a 503 with Retry-After, never a 500;
a read whose pooled connection died is tried once more on a fresh one."""

from __future__ import annotations

import asyncpg
import httpx
import msgspec
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from service.store.memory import MemoryStore
from service.store.postgres import PostgresStore, retried_read
from testkit.api import player
from testkit.live import serving


class Crowded(MemoryStore):
    """A server whose connection slots are all taken (SQLSTATE 53300)."""

    async def get_player(self, player_id: str):
        raise asyncpg.exceptions.TooManyConnectionsError("sorry, too many clients already")


async def test_a_server_with_no_free_connection_slot_is_a_503_with_retry_after(settings, games):
    app = create_app(msgspec.structs.replace(settings, database_url=None), games=games, store=Crowded())
    async with AsyncTestClient(app) as client:
        resp = await client.get("/v1/players/someone")
    assert resp.status_code == 503 and resp.json()["code"] == "database_unavailable"
    assert int(resp.headers["retry-after"]) >= 1


async def test_a_read_whose_pooled_connections_were_terminated_retries_on_a_fresh_one(pg_dsn):
    store = await PostgresStore.connect(pg_dsn, 2)
    try:
        await store.create_player("p-dead", "Ann", "digest-dead")
        pids = [await store.pool.fetchval("SELECT pg_backend_pid()")]
        admin = await asyncpg.connect(pg_dsn)
        try:
            await admin.execute("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", pids)
        finally:
            await admin.close()
        assert (await store.get_player("p-dead")).name == "Ann"
    finally:
        await store.close()


async def test_a_locked_table_answers_503_instead_of_hanging(settings, games, pg_dsn):
    app = create_app(msgspec.structs.replace(settings, db_command_timeout=0.5), games=games)
    async with AsyncTestClient(app) as client:
        ann = await player(client)
        locker = await asyncpg.connect(pg_dsn)
        try:
            async with locker.transaction():
                await locker.execute("LOCK TABLE players IN ACCESS EXCLUSIVE MODE")
                resp = await client.get(f"/v1/players/{ann['id']}")
        finally:
            await locker.close()
        assert resp.status_code == 503 and "retry-after" in resp.headers
        assert (await client.get(f"/v1/players/{ann['id']}")).status_code == 200


async def test_a_read_that_meets_a_dead_connection_is_tried_once_more_and_only_once():
    calls: list[int] = []

    @retried_read
    async def read(fail: int) -> str:
        calls.append(1)
        if len(calls) <= fail:
            raise asyncpg.exceptions.InternalClientError("cannot switch to state 12; another operation is in progress")
        return "rows"

    assert await read(1) == "rows" and len(calls) == 2
    calls.clear()
    try:
        await read(2)
    except asyncpg.exceptions.InternalClientError:
        assert len(calls) == 2
    else:
        raise AssertionError("a second failure must surface")


async def test_three_hundred_requests_at_a_server_out_of_connection_slots_get_503s_never_500s(games):
    """The real thing, not a stub: a role allowed 3 connections, a pool that wants 8, 300 requests at once.

    PostgreSQL refuses the pool's extra connections with SQLSTATE 53300 (too many connections for role);
    each request then either gets a connection and its answer, or a 503 with Retry-After."""
    import asyncio
    import uuid
    from collections import Counter

    from service.ops.settings import Settings
    from tests.conftest import ADMIN_DSN, _dsn_for

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(ADMIN_DSN)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    name = f"stela_slots_{uuid.uuid4().hex[:8]}"
    await admin(f'CREATE ROLE "{name}" LOGIN CONNECTION LIMIT 3')
    await admin(f'CREATE DATABASE "{name}" OWNER "{name}"')
    try:
        dsn = _dsn_for(name).replace("://postgres@", f"://{name}@")
        assert dsn != _dsn_for(name), ADMIN_DSN
        cfg = Settings(database_url=dsn, redis_url=None, rate_limit=0, db_pool_max=8, admin_token="admin-secret",
                       log_level="critical", projector="off")
        with serving(create_app(cfg, games=games)) as url:
            async with httpx.AsyncClient(base_url=url, timeout=120,
                                         limits=httpx.Limits(max_connections=300)) as client:
                ann = await player(client)
                holders = []  # another client takes every slot left (the app keeps the connections it holds)
                try:
                    while True:
                        holders.append(await asyncpg.connect(dsn))
                except asyncpg.exceptions.TooManyConnectionsError:
                    pass

                async def one(i: int) -> tuple[int, str | None]:
                    if i % 2:
                        r = await client.get(f"/v1/players/{ann['id']}", headers=ann["headers"])
                    else:
                        r = await client.post("/v1/games", headers=ann["headers"],
                                              json={"kind": "tally", "seats": 2})
                    return r.status_code, r.headers.get("retry-after")

                try:
                    answers = await asyncio.gather(*(one(i) for i in range(300)))
                finally:
                    for conn in holders:
                        await conn.close()
                statuses = Counter(status for status, _ in answers)
                print(f"300 concurrent requests, 3 slots for the role ({len(holders)} taken by another client), "
                      f"pool of 8: {dict(statuses)}")
                assert set(statuses) <= {200, 201, 503}, statuses
                assert statuses[503] > 0, "the slots were never exhausted: this reproduces nothing"
                assert all(int(after) >= 1 for status, after in answers if status == 503)
                assert (await client.get(f"/v1/players/{ann['id']}", headers=ann["headers"])).status_code == 200
    finally:
        await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin(f'DROP ROLE IF EXISTS "{name}"')
