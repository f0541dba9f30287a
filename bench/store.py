"""Event-store append throughput versus plain asyncpg inserts of the same rows, in the same run.

At 1, 4 and 16 writers, each writer appends to its own stream one event per transaction with an
idempotency key, through `PostgresStore.append`: one statement that inserts the event only if the
stream's head is (expected version, previous hash), records the idempotency key, registers the stream
on its first append, returns the position, transaction id and time PostgreSQL assigned, and from
which the store builds its `AppendResult`. The anchor (`plain`) writes the identical rows (the same
hash chain and JSON, computed in Python the same way) into the same `events` table with one bare
`INSERT` per event and nothing else: no head check, no idempotency row, no `streams` row, nothing
returned. It shares the table's indexes, defaults and constraints with the store, so the ratio is the
price of those guarantees. It runs through the store's own pool, acquired per statement as the
store's append does, in rounds that alternate with the store's (see `main`). The store runs as
shipped (`STELA_PG_NOTIFY` off: appends that arrive while its four append statements are in flight go
to PostgreSQL together, one statement and one commit for them all, one such group at a time,
`store_appends_per_statement`)
and with NOTIFY on (every append alone).

Beside each rate, the CPU per event on either side: the bench process's (`client_us`: the store's
Python, asyncpg, the event loop) and the database's, summed over the pool's PostgreSQL backends from
/proc/<pid>/schedstat (`backend_us`; absent when PostgreSQL runs on another machine).

Measured 2026-11-28 (session 42), the group commit as it was (a group per free slot) and as it is (one group in
flight at a time) in one process, plain inserts beside them, 5 alternating rounds of 6,000 events: 16 writers,
8.0 appends a statement instead of 2.5, PostgreSQL 92.7 µs of CPU per append instead of 140.9 (plain inserts 142.8),
1.03x the old rate; 64 writers, 31.5 a statement instead of 6.8, 59.3 µs instead of 99.9, 1.23x; 4 writers never
wait, one append a statement either way. The machine's speed drifted by 2x within the hour, so only the ratios
within a run mean anything.

`--hold SECONDS` measures instead what one stuck game costs the others (issue 43): 16 writers append to
streams of their own every `--every` s (open loop: an append is timed from when it was due, so a stall counts
in every append it delays) for SECONDS with nothing held, then for SECONDS while another connection's open
transaction holds an uncommitted insert of one game's next version and that game's client retries every
50 ms. Measured 2026-11-29 on the shared 2-core machine (load 8-15 from other work), 20 s holds, unrelated
appends' p99 while held (nothing held beside it), before the lock timeout and after it (200 ms):
one append slot, every 40 ms: 19,817 ms, p50 12,924 ms (23.7) before; 118.7 ms, max 204 ms, p50 18.9 (36.1)
after: the only stall left is the held game's first append, which waits out the lock timeout in the one slot
before its stream is known held. Four slots (shipped), every 25 ms: 9,866 ms, max 9,951 ms (1,423: the machine
was saturated) before, when the held append rode in a group; 85.3 ms, max 117 ms (745) after. Four slots,
every 40 ms: 32.1 before (the held append happened to go alone, holding one slot of four) and 51.1 after (43.4).
The held game's tries were refused with `StreamLocked` (77-78 in 20 s) and its log stayed whole.

`--log` measures the transparency log's price (issue 46): 16 writers write whole games (a creation, moves,
the end and its seed), in alternating rounds with the leaves written (`PostgresStore.logged`) and not, each
round's rate, p99 and load printed with the CPU per append (this process's and PostgreSQL's); then the
checkpoint worker integrates and signs every leaf at once; then the worker as shipped runs in a process of
its own for `--checkpoint-seconds` while the writers write; and proof sizes over a million leaves are
counted. Measured 2026-11-29 (session h46) at a load of 21-23, 3 rounds of 4,800 appends (docs/audit.md):
games of 20 appends 1,164.6/s p99 76.4 ms on, 909.0/s 78.5 ms off (the rounds moved 1.8x), CPU 63.9 + 60.3 µs
an append on, 66.3 + 64.0 off; games of 2 (every append writes leaves) 966.1/s 49.5 ms on, 1,315.1/s
36.0 ms off, CPU 75.6 + 86.3 µs on, 64.6 + 71.3 off (+19%); the worker 11.1 + 13.9 µs per leaf, 0.58% of a
core every 10 s beside 1,205 appends/s; at a million leaves an inclusion proof is at most 20 hashes (640
bytes, 941 as served JSON), a consistency proof at most 21 (672 bytes, 1,024 as served).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg
import msgspec

from bench.common import percentile, run, scratch_database
from service.store.postgres import PostgresStore
from service.store.protocol import GENESIS_HASH, Metadata, NewEvent, chain

META = Metadata(actor="bench", command={"type": "bench.Move", "piece": 1}, seat=0, to_act=[1])
POOL = 18
ANCHOR = "bare INSERT of the same rows: no head check, idempotency or streams row, nothing returned"
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


def median_of(values: list[float | None]) -> float | None:
    return None if None in values else round(statistics.median(values), 1)  # type: ignore[type-var]


async def backend_cpu(pool: asyncpg.Pool, application: str | None = None) -> dict[int, float]:
    """CPU seconds so far of each backend of this database (the pool's; the scratch database has no other),
    or only of those whose application_name is `application`."""
    pids = await pool.fetch("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                            "AND backend_type = 'client backend' AND ($1::text IS NULL OR application_name = $1)",
                            application)
    seconds = {}
    for (pid,) in pids:
        try:  # only a PostgreSQL process on this machine (a remote server's pids mean nothing here)
            if Path(f"/proc/{pid}/comm").read_text().strip() == "postgres":
                seconds[pid] = int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            pass
    return seconds


async def measured(pool: asyncpg.Pool, series: Callable[[int, int], Awaitable[float]], writers: int,
                   appends: int) -> tuple[float, float, float | None]:
    """(events/s, client CPU us per event, backend CPU us per event or None) of one run of `series`."""
    before, client = await backend_cpu(pool), time.process_time()
    rate = await series(writers, appends)
    client = time.process_time() - client
    after = await backend_cpu(pool)
    events = writers * appends
    backend = sum(t - before.get(pid, 0.0) for pid, t in after.items()) if after else None
    return rate, client / events * 1e6, backend / events * 1e6 if backend is not None else None


async def main(short: bool, total: int | None = None, rounds: int | None = None) -> list[dict]:
    """At each writer count, `rounds` rounds; in each, plain inserts and the store (NOTIFY off, then on)
    take turns, the first turn alternating from round to round. Every series writes through the
    store's own pool (one acquire per statement, as the store's append does). Each rate is the
    median of its rounds; each ratio the median of the per-round ratios. The pool is opened whole
    before the first round."""
    total = total or (120 if short else 6000)  # short: a smoke run (each writer count and series once), no figure
    rounds = rounds or (1 if short else 5)
    out = []
    async with scratch_database() as dsn:
        store = await PostgresStore.connect(dsn, POOL)
        # open the whole pool first: no series pays for (or counts the CPU of) starting a backend
        held = [await store.pool.acquire() for _ in range(POOL)]
        for conn in held:
            await store.pool.release(conn)

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
            cpu: dict[str, list[tuple[float, float | None]]] = {name: [] for name in series}
            sent = [0, 0]  # the store's (statements, appends), NOTIFY off: how many appends went together
            for r in range(rounds):
                order = list(series) if r % 2 == 0 else list(reversed(series))
                for name in order:
                    before = (store.group.statements, store.group.appends)
                    rate, client, backend = await measured(store.pool, series[name], writers, appends)
                    if name == "store":
                        sent = [sent[0] + store.group.statements - before[0], sent[1] + store.group.appends - before[1]]
                    found[name].append(rate)
                    cpu[name].append((client, backend))
            ratio = {name: statistics.median(a / b for a, b in zip(found[name], found["plain"]))
                     for name in ("store", "store_notify")}
            out.append({"writers": writers, "events": writers * appends, "rounds": rounds, "anchor": ANCHOR,
                        "plain_insert_events_per_s": round(statistics.median(found["plain"]), 1),
                        "store_events_per_s": round(statistics.median(found["store"]), 1),
                        "store_vs_plain": round(ratio["store"], 2),
                        "store_vs_plain_rounds": [round(a / b, 2) for a, b in zip(found["store"], found["plain"])],
                        "store_appends_per_statement": round(sent[1] / max(1, sent[0]), 2),
                        "store_notify_events_per_s": round(statistics.median(found["store_notify"]), 1),
                        "store_notify_vs_plain": round(ratio["store_notify"], 2),
                        **{f"{name}_{side}_us": median_of([c[i] for c in cpu[name]])
                           for name in ("plain", "store") for i, side in enumerate(("client", "backend"))}})
        store.notify = False
        await store.close()
    return out


async def writers_during(store: PostgresStore, writers: int, seconds: float, every: float) -> list[float]:
    """Seconds each append took, `writers` writers appending one event to streams of their own every
    `every` s for `seconds`. Open loop: each append is due at its time, and counted from then, so a stall
    shows in every append it delays, not only in the one that was waiting when it began."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    took: list[float] = []

    async def writer() -> None:
        stream, head, version = f"bench-{uuid.uuid4()}", None, 0
        while (due := start + version * every) < start + seconds:
            await asyncio.sleep(due - loop.time())
            result = await store.append(stream, version, [event(version)], META, kind="bench", prev_hash=head)
            took.append(loop.time() - due)
            head, version = result.head, result.last_version

    await asyncio.gather(*(writer() for _ in range(writers)))
    return took


async def knocking(store: PostgresStore, stream: str, head: str, until: float) -> dict[str, int]:
    """A client of the held game retrying its next append until `until` (its store's monotonic clock):
    how each try ended, by the exception's class name."""
    loop, ended = asyncio.get_running_loop(), {}
    while loop.time() < until:
        try:
            await store.append(stream, 1, [event(1)], META, prev_hash=head)
            name = "appended"
        except Exception as exc:  # noqa: BLE001 - what the store answers is what is measured
            name = type(exc).__name__
        ended[name] = ended.get(name, 0) + 1
        await asyncio.sleep(0.05)  # (a client's back-off before it retries)
    return ended


async def lock_hold(seconds: float, writers: int, every: float, slots: int) -> dict:
    """Unrelated appends' latency while another transaction holds an uncommitted insert of one game's next
    version for `seconds`, that game's client retrying meanwhile (its try in flight at the release may
    commit), beside the same writers with nothing held; then the held game's versions."""
    async with scratch_database() as dsn:
        store = await PostgresStore.connect(dsn, POOL, slots=slots)
        quiet = await writers_during(store, writers, seconds, every)
        held = f"bench-held-{uuid.uuid4()}"
        first = await store.append(held, 0, [event(0)], META, kind="bench")
        holder = await asyncpg.connect(dsn)
        hold = holder.transaction()
        await hold.start()
        [(v, t, d, m, p, h)] = chain(held, 1, first.head, [event(1)], META)
        await holder.execute(_INSERT, held, v, t, msgspec.json.encode(d).decode(), msgspec.json.encode(m).decode(), p, h)
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds

        async def release() -> None:
            await asyncio.sleep(seconds)
            await hold.rollback()

        took, tries, _ = await asyncio.gather(writers_during(store, writers, seconds, every),
                                              knocking(store, held, first.head, until), release())
        after = [e.version for e in await store.read_stream(held)]  # the held game's log, once released
        await holder.close()
        await store.close()
    return {"writers": writers, "slots": slots, "append_every_ms": every * 1000, "hold_s": seconds, "unrelated_appends_quiet": len(quiet), "unrelated_appends_held": len(took),
            **{f"{name}_p{int(q * 100)}_ms": round(percentile(values, q) * 1000, 1)
               for name, values in (("quiet", quiet), ("held", took)) for q in (0.5, 0.99)},
            "held_max_ms": round(max(took) * 1000, 1), "held_game_tries": tries,
            "held_game_versions_after": after}


CREATED = {"kind": "bench", "options": {"variant": "basic"}, "seats": 2, "seed_commitment": "c" * 64, "seed": "5" * 64}
ENDING = [NewEvent("table.GameEnded", {"outcome": {"scores": [3, 1], "ranks": [1, 2], "winners": [0]}}),
          NewEvent("table.SeedRevealed", {"seed": "5" * 64})]
WORKER_APP = "bench_checkpoints"  # the checkpoint worker's connections, told apart by their application_name


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


async def games_written(store: PostgresStore, writers: int, appends: int, moves: int,
                        until: float | None = None) -> list[float]:
    """Seconds each append took, `writers` writers each writing whole games one after the other: a creation
    (a leaf), `moves` moves (none) and the end with its seed (two), until `appends` appends each (or, given
    `until`, a `time.perf_counter()` moment, until then: no game is begun after it)."""
    took: list[float] = []

    async def writer() -> None:
        done = 0
        while done < appends if until is None else time.perf_counter() < until:
            stream, head, version = f"bench-{uuid.uuid4()}", None, 0
            for batch in [[NewEvent("table.GameCreated", CREATED)], *([event(i)] for i in range(moves)), ENDING]:
                start = time.perf_counter()
                result = await store.append(stream, version, batch, META, kind="bench", prev_hash=head)
                took.append(time.perf_counter() - start)
                head, version, done = result.head, result.last_version, done + 1

    await asyncio.gather(*(writer() for _ in range(writers)))
    return took


async def worker_cpu(dsn: str, every: float, seconds: float) -> dict:
    """The checkpoint worker as the service runs it (`CheckpointWorker`, every `every` s) for `seconds`,
    alone in this process with a pool of its own: its checkpoints, and the CPU it and its PostgreSQL
    backends spent (by application_name)."""
    from service.commands.notes import Signer
    from service.commands.transparency import Transparency
    from service.workers.checkpoints import CheckpointWorker

    sep = "&" if "?" in dsn else "?"
    store = await PostgresStore.connect(f"{dsn}{sep}application_name={WORKER_APP}", 2)
    log = Transparency(store.ledger(), Signer.generate("bench.example/stela"), "bench.example/stela")
    worker = CheckpointWorker(log, every)
    before, cpu, size = await backend_cpu(store.pool, WORKER_APP), time.process_time(), await store.ledger().size()
    await worker.start()
    await asyncio.sleep(seconds)
    await worker.stop()
    client = time.process_time() - cpu
    after = await backend_cpu(store.pool, WORKER_APP)
    backend = sum(t - before.get(pid, 0.0) for pid, t in after.items())
    leaves = await store.ledger().size() - size
    await store.close()
    return {"every_s": every, "seconds": seconds, "checkpoints": worker.issued, "leaves": leaves,
            "client_cpu_s": round(client, 3), "backend_cpu_s": round(backend, 3),
            "cpu_percent_of_a_core": round((client + backend) / seconds * 100, 2)}


async def log_cost(writers: int, appends: int, rounds: int, every: float, seconds: float) -> list[dict]:
    """Appends a second and p99 with the transparency log's leaves written and not (`PostgresStore.logged`), in
    alternating rounds (each round's figures and the load average beside them; the CPU per append of this
    process and of the pool's PostgreSQL backends, which a busy machine moves far less than the rate), for games of 18 moves (3
    leaves in 20 appends) and of none (every append a leaf, the worst case); what integrating and signing
    those leaves costs; the checkpoint worker's CPU while 16 writers write (a process of its own at the
    shipped interval); and proof sizes at a million leaves."""
    from service.commands.notes import Signer
    from service.commands.transparency import Transparency

    out = []
    async with scratch_database() as dsn:
        store = await PostgresStore.connect(dsn, 8)  # 4 append slots and a group in flight at most
        for moves in (18, 0):
            found: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
            cpu: dict[bool, list[tuple[float, float]]] = {True: [], False: []}  # (client, backend) us per append
            for r in range(rounds):
                for logged in ((True, False) if r % 2 == 0 else (False, True)):
                    store.logged = logged
                    before, client, start = await backend_cpu(store.pool), time.process_time(), time.perf_counter()
                    took = await games_written(store, writers, appends, moves)
                    found[logged].append((len(took) / (time.perf_counter() - start), percentile(took, 0.99), loadavg()))
                    client = time.process_time() - client
                    after = await backend_cpu(store.pool)
                    backend = sum(t - before.get(pid, 0.0) for pid, t in after.items())
                    cpu[logged].append((client / len(took) * 1e6, backend / len(took) * 1e6))
            out.append({"writers": writers, "appends_per_game": moves + 2, "rounds": rounds, "appends_per_round":
                        writers * appends, **{
                            f"log_{'on' if on else 'off'}_{name}": round(statistics.median(v[i] * k for v in found[on]), 1)
                            for on in (True, False) for i, name, k in ((0, "appends_per_s", 1), (1, "p99_ms", 1000))},
                        "on_vs_off": round(statistics.median(a[0] / b[0] for a, b in zip(found[True], found[False])), 2),
                        **{f"log_{'on' if on else 'off'}_{side}_us_per_append": round(statistics.median(c[i] for c in cpu[on]), 1)
                           for on in (True, False) for i, side in enumerate(("client", "backend"))},
                        **{f"log_{'on' if on else 'off'}_rounds": [[round(v[0], 1), round(v[1] * 1000, 1), v[2]]
                                                                    for v in found[on]] for on in (True, False)}})
        store.logged = True
        log = Transparency(store.ledger(), Signer.generate("bench.example/stela"), "bench.example/stela")
        leaves = await store.pool.fetchval("SELECT count(*) FROM log_entries")
        before, cpu, wall = await backend_cpu(store.pool), time.process_time(), time.perf_counter()
        while (await log.issue()).size < leaves:
            pass
        after = await backend_cpu(store.pool)
        backend = sum(t - before.get(pid, 0.0) for pid, t in after.items())
        out.append({"checkpoint_leaves": leaves, "checkpoint_wall_s": round(time.perf_counter() - wall, 2),
                    "checkpoint_client_us_per_leaf": round((time.process_time() - cpu) / leaves * 1e6, 1),
                    "checkpoint_backend_us_per_leaf": round(backend / leaves * 1e6, 1), "load": loadavg()})
        # the worker as shipped, in a process of its own, while the writers write games of 20 appends
        worker = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.store", "--checkpoint-worker", dsn, "--checkpoint-every", str(every),
            "--checkpoint-seconds", str(seconds), stdout=asyncio.subprocess.PIPE)
        took = await games_written(store, writers, 0, 18, until=time.perf_counter() + seconds)
        found_worker = json.loads((await worker.communicate())[0])
        out.append({"worker": found_worker, "appends_meanwhile": len(took),
                    "appends_per_s_meanwhile": round(len(took) / seconds, 1), "load": loadavg()})
        await store.close()
    out.append(proof_sizes(1_000_000))
    return out


def proof_sizes(n: int) -> dict:
    """Inclusion proofs of every leaf and consistency proofs from every smaller size in a tree of `n` leaves:
    the most hashes and bytes (32 a hash; as served, the JSON of the API's proof objects, base64 hashes), and
    how many proofs are that long; the longest of each kind computed over leaves d(i) = "leaf i" and checked
    with the RFC's verification algorithms."""
    from domain.transparency import merkle
    from service.commands.transparency import ConsistencyProof, Included, b64

    inclusion = [len(merkle.inclusion_ranges(i, n)) for i in range(n)]
    consistency = [len(merkle.consistency_ranges(m, n)) for m in range(1, n + 1)]
    index, first = inclusion.index(max(inclusion)), consistency.index(max(consistency)) + 1
    node = _virtual_tree(n)
    root = node(0, n)
    path = [node(lo, hi) for lo, hi in merkle.inclusion_ranges(index, n)]
    body = f"leaf {index}".encode()
    assert merkle.verify_inclusion(index, n, merkle.leaf_hash(body), path, root)
    proof = [node(lo, hi) for lo, hi in merkle.consistency_ranges(first, n)]
    assert merkle.verify_consistency(first, n, node(0, first), root, proof)
    included = Included(index=index, version=1, body=body.decode(), leaf_hash=b64(merkle.leaf_hash(body)),
                        path=[b64(h) for h in path])
    consistent = ConsistencyProof(first=first, second=n, path=[b64(h) for h in proof])
    return {"proof_leaves": n, "inclusion_hashes_max": max(inclusion), "inclusion_hashes_min": min(inclusion),
            "inclusion_max_share": round(inclusion.count(max(inclusion)) / n, 3),
            "inclusion_bytes": 32 * max(inclusion), "inclusion_path_json_bytes": len(msgspec.json.encode(included.path)),
            "consistency_hashes_max": max(consistency), "consistency_max_share": round(consistency.count(max(consistency)) / n, 3),
            "consistency_bytes": 32 * max(consistency), "consistency_json_bytes": len(msgspec.json.encode(consistent)),
            "verified": True}


def _virtual_tree(n: int) -> Callable[[int, int], bytes]:
    """MTH of any range [lo, hi) of the tree over d(i) = "leaf i", the perfect pieces of 2^10 leaves and
    more remembered (a million leaves' proofs in seconds, without keeping every node)."""
    from domain.transparency import merkle

    memo: dict[merkle.Node, bytes] = {}

    def perfect(level: int, index: int) -> bytes:
        if level == 0:
            return merkle.leaf_hash(f"leaf {index}".encode())
        if (level, index) in memo:
            return memo[(level, index)]
        h = merkle.node_hash(perfect(level - 1, 2 * index), perfect(level - 1, 2 * index + 1))
        if level >= 10:
            memo[(level, index)] = h
        return h

    return lambda lo, hi: merkle.fold([perfect(*p) for p in merkle.pieces(lo, hi)])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--events", type=int, help="events per writer count and round (default 120 short, 6000 full)")
    parser.add_argument("--rounds", type=int, help="rounds per writer count (default 1 short, 5 full)")
    parser.add_argument("--hold", type=float, metavar="SECONDS",
                        help="instead: unrelated appends' latency while one game's next version is held uncommitted")
    parser.add_argument("--writers", type=int, default=16, help="unrelated writers during --hold")
    parser.add_argument("--slots", type=int, default=4, help="the store's append slots during --hold")
    parser.add_argument("--every", type=float, default=0.04, help="seconds between a --hold writer's appends")
    parser.add_argument("--log", action="store_true", help="instead: the transparency log's cost (on and off)")
    parser.add_argument("--checkpoint-every", type=float, default=10.0, help="--log: the checkpoint worker's interval")
    parser.add_argument("--checkpoint-seconds", type=float, default=30.0, help="--log: how long the worker is measured")
    parser.add_argument("--checkpoint-worker", metavar="DSN", help=argparse.SUPPRESS)  # --log's worker process
    args = parser.parse_args()
    if args.checkpoint_worker:
        print(json.dumps(run(worker_cpu(args.checkpoint_worker, args.checkpoint_every, args.checkpoint_seconds))))
        raise SystemExit
    if args.log:
        for line in run(log_cost(args.writers, (args.events or 4800) // args.writers, args.rounds or 3,
                                 args.checkpoint_every, args.checkpoint_seconds)):
            print(json.dumps({"bench": "store_log", **line}))
        raise SystemExit
    if args.hold:
        print(json.dumps({"bench": "store_lock_hold", **run(lock_hold(args.hold, args.writers, args.every, args.slots))}))
        raise SystemExit
    for line in run(main(args.short, args.events, args.rounds)):
        print(json.dumps({"bench": "store", **line}))
