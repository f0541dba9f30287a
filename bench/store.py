"""Event-store append throughput versus plain asyncpg inserts of the same rows, in the same run.

Several writers each append small batches to their own streams. The store does the head check,
hash chain, idempotency and (unless STELA_PG_NOTIFY=off) NOTIFY; the baseline inserts identical
rows with one executemany per batch. Both store modes are measured.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid

import asyncpg

from bench.common import run, scratch_database
from service.store.postgres import PostgresStore
from service.store.protocol import Metadata, NewEvent, chain

BATCH = 2


def batch(i: int) -> list[NewEvent]:
    return [NewEvent("bench.Moved", {"piece": i, "to": [i % 7, i % 5], "cost": 2}) for _ in range(BATCH)]


async def through_store(store: PostgresStore, writers: int, batches: int) -> float:
    async def writer(w: int) -> None:
        stream = f"bench-{uuid.uuid4()}"
        for b in range(batches):
            await store.append(stream, b * BATCH, batch(b), Metadata(actor="bench", command={"type": "x"}),
                               idempotency_key=f"k{b}")

    start = time.perf_counter()
    await asyncio.gather(*(writer(w) for w in range(writers)))
    return writers * batches * BATCH / (time.perf_counter() - start)


async def plain_inserts(pool: asyncpg.Pool, writers: int, batches: int) -> float:
    async def writer(w: int) -> None:
        stream = f"plain-{uuid.uuid4()}"
        prev = "0" * 64
        for b in range(batches):
            rows = chain(stream, b * BATCH, prev, batch(b), Metadata(actor="bench", command={"type": "x"}))
            prev = rows[-1][5]
            await pool.executemany(
                "INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash) "
                "VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7)",
                [(stream, v, t, json.dumps(d), json.dumps(m), p, h) for v, t, d, m, p, h in rows])

    start = time.perf_counter()
    await asyncio.gather(*(writer(w) for w in range(writers)))
    return writers * batches * BATCH / (time.perf_counter() - start)


async def main(short: bool) -> dict:
    writers, batches = (8, 40) if short else (16, 400)
    async with scratch_database() as dsn:
        store = await PostgresStore.connect(dsn, writers + 2)
        pool = await asyncpg.create_pool(dsn, min_size=writers, max_size=writers + 2)
        plain = await plain_inserts(pool, writers, batches)
        notified = await through_store(store, writers, batches)
        store.notify = False
        quiet = await through_store(store, writers, batches)
        await pool.close()
        await store.close()
    return {"bench": "store", "writers": writers, "events": writers * batches * BATCH,
            "plain_insert_events_per_s": round(plain, 1),
            "store_events_per_s": round(notified, 1), "store_vs_plain": round(notified / plain, 2),
            "store_no_notify_events_per_s": round(quiet, 1), "store_no_notify_vs_plain": round(quiet / plain, 2)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    print(json.dumps(run(main(parser.parse_args().short))))
