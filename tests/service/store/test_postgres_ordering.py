"""The global log of PostgreSQL: gapless under out-of-order commits and under contention."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest

from service.store.postgres import PostgresStore
from service.store.protocol import Cursor, Metadata, NewEvent


@pytest.fixture
async def pg(pg_dsn):
    store = await PostgresStore.connect(pg_dsn, 12)
    yield store
    await store.close()


async def _drain(store: PostgresStore, cursor: Cursor) -> tuple[list, Cursor]:
    out = []
    while page := await store.read_all(cursor, 500):
        out += page
        cursor = page[-1].cursor
    return out, cursor


async def test_read_all_never_skips_an_event_that_commits_after_a_later_one(pg, pg_dsn):
    _, head = await _drain(pg, Cursor())
    slow = await asyncpg.connect(pg_dsn)
    tx = slow.transaction()
    await tx.start()
    # the slow writer takes the lower position first...
    await slow.execute("INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash) "
                       "VALUES ($1, 1, 'test.slow', '{}', '{}', '', '')", f"slow-{uuid.uuid4()}")
    # ...a fast writer commits a higher position meanwhile
    fast = f"fast-{uuid.uuid4()}"
    await pg.append(fast, 0, [NewEvent("test.fast", {})], Metadata())
    seen, head_mid = await _drain(pg, head)
    assert all(e.type != "test.fast" for e in seen), "a reader must wait for the older open transaction"
    await tx.commit()
    await slow.close()
    rest, _ = await _drain(pg, head_mid)
    types = [e.type for e in seen + rest]
    assert types.count("test.slow") == 1 and types.count("test.fast") == 1


async def test_concurrent_writers_on_many_streams_are_all_read_exactly_once(pg):
    _, head = await _drain(pg, Cursor())
    streams = [f"c-{uuid.uuid4()}" for _ in range(16)]

    async def writer(stream: str) -> None:
        for v in range(10):
            await pg.append(stream, 2 * v, [NewEvent("test.c", {"v": v}), NewEvent("test.c", {"v": v})], Metadata())

    reader_seen: list = []

    async def reader() -> None:
        cursor = head
        for _ in range(400):
            page, cursor = await _drain(pg, cursor)
            reader_seen.extend(page)
            if sum(1 for e in reader_seen if e.stream_id in streams) == 16 * 20:
                return
            await asyncio.sleep(0.01)

    await asyncio.gather(reader(), *(writer(s) for s in streams))
    mine = [(e.stream_id, e.version) for e in reader_seen if e.stream_id in streams]
    assert len(mine) == len(set(mine)) == 320
