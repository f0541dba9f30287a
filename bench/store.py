"""Event-store append throughput versus plain asyncpg inserts of the same rows, in the same run.

At 1, 4 and 16 writers, each writer appends to its own stream one event per transaction with an
idempotency key, through `PostgresStore.append` (head check, hash chain, idempotency, stream
registration in one statement). The anchor inserts identical rows into the same table with one
plain INSERT per event, through the store's own pool, acquired per statement as the store's append
does, in rounds that alternate with the store's (see `main`). The store runs as shipped
(`STELA_PG_NOTIFY` off) and with NOTIFY on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
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


async def main(short: bool, total: int | None = None, rounds: int | None = None) -> list[dict]:
    """At each writer count, `rounds` rounds; in each, plain inserts and the store (NOTIFY off, then on)
    take turns, the first turn alternating from round to round. Every series writes through the
    store's own pool (one acquire per statement, as the store's append does). Each rate is the
    median of its rounds; each ratio the median of the per-round ratios."""
    total = total or (600 if short else 6000)
    rounds = rounds or (3 if short else 5)
    out = []
    async with scratch_database() as dsn:
        store = await PostgresStore.connect(dsn, 18)

        async def quiet(writers: int, appends: int) -> float:
            store.notify = False
            return await through_store(store, writers, appends)

        async def notified(writers: int, appends: int) -> float:
            store.notify = True
            return await through_store(store, writers, appends)

        async def plain(writers: int, appends: int) -> float:
            return await plain_inserts(store.pool, writers, appends)

        series = {"plain": plain, "store": quiet, "store_notify": notified}
        for writers in (1, 4, 16):
            appends = max(total // writers, 20)
            found: dict[str, list[float]] = {name: [] for name in series}
            for r in range(rounds):
                order = list(series) if r % 2 == 0 else list(reversed(series))
                for name in order:
                    found[name].append(await series[name](writers, appends))
            ratio = {name: statistics.median(a / b for a, b in zip(found[name], found["plain"]))
                     for name in ("store", "store_notify")}
            out.append({"writers": writers, "events": writers * appends, "rounds": rounds,
                        "plain_insert_events_per_s": round(statistics.median(found["plain"]), 1),
                        "store_events_per_s": round(statistics.median(found["store"]), 1),
                        "store_vs_plain": round(ratio["store"], 2),
                        "store_vs_plain_rounds": [round(a / b, 2) for a, b in zip(found["store"], found["plain"])],
                        "store_notify_events_per_s": round(statistics.median(found["store_notify"]), 1),
                        "store_notify_vs_plain": round(ratio["store_notify"], 2)})
        store.notify = False
        await store.close()
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--events", type=int, help="events per writer count and round (default 600 short, 6000 full)")
    parser.add_argument("--rounds", type=int, help="rounds per writer count (default 3 short, 5 full)")
    args = parser.parse_args()
    for line in run(main(args.short, args.events, args.rounds)):
        print(json.dumps({"bench": "store", **line}))
