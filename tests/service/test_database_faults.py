"""PostgreSQL refusing, ending or locking: every such answer is a 503 with Retry-After, never a 500;
a read whose pooled connection died is tried once more on a fresh one."""

from __future__ import annotations

import asyncpg
import msgspec
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.store.memory import MemoryStore
from service.store.postgres import PostgresStore, retried_read
from tests.support.api import player


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
