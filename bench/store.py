"""Event-store append throughput versus plain asyncpg inserts of the same rows, in the same run.

At 1, 4 and 16 writers, each writer appends to its own stream one event per transaction with an
idempotency key, through `PostgresStore.append` (head check, hash chain, idempotency, stream
registration in one statement). The anchor inserts identical rows into the same table with one
plain INSERT per event. The store runs as shipped (`STELA_PG_NOTIFY` off) and with NOTIFY on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid

import asyncpg
import msgspec

from bench.common import run, scratch_database
from service.store.postgres import PostgresStore
from service.store.protocol import GENESIS_HASH, Metadata, NewEvent, chain

META = Metadata(actor="bench", command={"type": "bench.Move", "piece": 1}, seat=0, to_act=[1])
_INSERT = ("INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash) "
           "VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7)")


def event(i: int) -> NewEvent:
    return NewEvent("bench.Moved", {"piece": i, "to": [i % 7, i % 5], "cost": 2})


async def through_store(store: PostgresStore, writers: int, appends: int) -> float:
    async def writer() -> None:
        stream, head = f"bench-{uuid.uuid4()}", None
        for i in range(appends):
            result = await store.append(stream, i, [event(i)], META, idempotency_key=f"k{i}", kind="bench",
                                        prev_hash=head)
            head = result.head

    start = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(writers)))
    return writers * appends / (time.perf_counter() - start)


async def plain_inserts(pool: asyncpg.Pool, writers: int, appends: int) -> float:
    async def writer() -> None:
        stream, prev = f"plain-{uuid.uuid4()}", GENESIS_HASH
        for i in range(appends):
            [(v, t, d, m, p, h)] = chain(stream, i, prev, [event(i)], META)
            prev = h
            await pool.execute(_INSERT, stream, v, t, msgspec.json.encode(d).decode(),
                               msgspec.json.encode(m).decode(), p, h)

    start = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(writers)))
    return writers * appends / (time.perf_counter() - start)


async def main(short: bool, total: int | None = None) -> list[dict]:
    total = total or (800 if short else 8000)
    out = []
    async with scratch_database() as dsn:
        store = await PostgresStore.connect(dsn, 18)
        pool = await asyncpg.create_pool(dsn, min_size=16, max_size=18)
        for writers in (1, 4, 16):
            appends = max(total // writers, 20)
            plain = await plain_inserts(pool, writers, appends)
            store.notify = False
            quiet = await through_store(store, writers, appends)
            store.notify = True
            notified = await through_store(store, writers, appends)
            out.append({"writers": writers, "events": writers * appends,
                        "plain_insert_events_per_s": round(plain, 1),
                        "store_events_per_s": round(quiet, 1), "store_vs_plain": round(quiet / plain, 2),
                        "store_notify_events_per_s": round(notified, 1),
                        "store_notify_vs_plain": round(notified / plain, 2)})
        await pool.close()
        await store.close()
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--events", type=int, help="events per writer count (default 800 short, 8000 full)")
    args = parser.parse_args()
    for line in run(main(args.short, args.events)):
        print(json.dumps({"bench": "store", **line}))
