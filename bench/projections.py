"""Projection benchmark: catch-up speed as the log grows, the game list's filters, live lag, rebuild speed.

Creates a scratch database (bench.common.scratch_database) and grows one log of
random `tally` games to each size in turn (default about 16k and 160k events;
`--short`, a smoke run for CI: 400 and 1.6k, the list padded to 2k games). At each size a projector
in this process catches up from zero (read models truncated), so the per-event speeds can be compared
side by side (each catch-up is run three times and the median reported); `lag()` is timed while the projector is fully behind, and the
`kind`+`status` and `player` filters of the game list are timed on the result
and on a game list padded to 50k games. Without `--short`, a live run
(`stela projector` as its own process following concurrent writers) and a
rebuild of every model follow on the smaller log.

    .venv/bin/python -m bench.projections [--short] [--sizes 16000,160000] [--writers N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import scratch_database  # noqa: E402
from domain.simulate import play_random  # noqa: E402
from domain.table import SeatTaken, Table  # noqa: E402
from projections.base import ensure_tables  # noqa: E402
from projections.catalog import PROJECTIONS, select  # noqa: E402
from projections.log import read_after  # noqa: E402
from projections.queries import ReadModels  # noqa: E402
from projections.rebuild import rebuild  # noqa: E402
from projections.runner import Projector, lag  # noqa: E402
from service.ops import logging as stela_logging  # noqa: E402
from service.store.postgres import PostgresStore  # noqa: E402
from service.store.protocol import Metadata, NewEvent  # noqa: E402
from testkit.tally import TALLY  # noqa: E402

TABLE = Table(TALLY)
PLAYERS = 500
Batch = tuple[list[NewEvent], Metadata]
_BULK = """INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash)
           SELECT s, v, t, d::jsonb, m::jsonb, 'bench', 'bench'
           FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[]) AS u(s, v, t, d, m)"""


def game_batches(seed: int) -> list[Batch]:
    """One random game as the batches the service would append, with `to_act` metadata."""
    rnd = random.Random(seed)
    seats = rnd.randint(2, 4)
    played = play_random(TABLE, {"target": 20}, seats, f"b{seed}".encode(), alternatives=0, check_views=False)
    events = [e if not isinstance(e, SeatTaken) else SeatTaken(seat=e.seat, player_id=f"p{rnd.randrange(PLAYERS)}-{e.seat}",
                                                               name="P") for e in played.events]
    out, state, i = [], None, 0
    while i < len(events):
        n = 1 if i < seats + 1 else 2
        chunk = events[i:i + n]
        state = TABLE.fold(chunk, state)
        out.append(([NewEvent(TABLE.event_type(e), TABLE.event_data(e)) for e in chunk],
                    Metadata(actor="bench", to_act=TABLE.to_act(state))))
        i += n
    return out


async def grow(store: PostgresStore, seed: int, target: int, running: int = 64) -> int:
    """Append games until the log holds `target` events; `running` games progress side by side, one
    batch each per transaction (a fast loader: no hash chain, which projections never read)."""
    total = await store.pool.fetchval("SELECT count(*) FROM events")
    games: dict[str, tuple[list[Batch], int]] = {}
    while total < target or games:
        while total < target and len(games) < running:
            games[str(uuid.uuid4())] = (game_batches(seed), 0)
            seed += 1
        rows: list[tuple[str, int, str, str, str]] = []
        for game_id, (batches, version) in list(games.items()):
            events, meta = batches.pop(0)
            metadata = json.dumps({"actor": meta.actor, "to_act": sorted(meta.to_act)})
            rows += [(game_id, version + k + 1, e.type, json.dumps(e.data), metadata) for k, e in enumerate(events)]
            games[game_id] = (batches, version + len(events))
            if not batches:
                del games[game_id]
        await store.pool.execute(_BULK, *(list(c) for c in zip(*rows)))
        total += len(rows)
    return seed


async def last_cursor(pool: Any) -> tuple[int, int]:
    row = await pool.fetchrow("SELECT tx, position FROM events ORDER BY tx DESC, position DESC LIMIT 1")
    return (row[0], row[1])


async def wait_checkpoints(pool: Any, cursor: tuple[int, int]) -> None:
    """Until every projection's checkpoint reached `cursor` (reads only the checkpoint table)."""
    while True:
        rows = await pool.fetch("SELECT tx, position FROM projection_checkpoints")
        if len(rows) == len(PROJECTIONS) and all((r[0], r[1]) >= cursor for r in rows):
            return
        await asyncio.sleep(0.05)


_BUFFERS = """SELECT coalesce(sum(coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0) + coalesce(idx_blks_hit, 0)
                                + coalesce(idx_blks_read, 0)), 0)::bigint FROM pg_statio_user_tables"""


async def catch_up(store: PostgresStore, dsn: str) -> dict[str, float]:
    """A projector (in this process, on its own pool) from zero over the whole log, no competing writers.

    Besides wall time (which a busy machine disturbs), two measures that load does
    not move: table and index pages the server touched, and this process's CPU,
    per event; flat per-event values mean the projector does not slow as the log grows.
    """
    events = await store.pool.fetchval("SELECT count(*) FROM events")
    async with store.pool.acquire() as conn:
        await ensure_tables(conn, select(None))
        await conn.execute("DELETE FROM projection_checkpoints")
        for projection in select(None):
            for table in projection.tables:
                await conn.execute(f"TRUNCATE {table}")
        await conn.execute("ANALYZE")
    names = list(PROJECTIONS)
    lag_started = time.perf_counter()
    await lag(store.pool, names)
    lag_ms = (time.perf_counter() - lag_started) * 1000
    end = await last_cursor(store.pool)
    await asyncio.sleep(1.0)  # let the statistics of earlier sessions reach the counters
    buffers = await store.pool.fetchval(_BUFFERS)
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
    started, cpu = time.perf_counter(), time.process_time()
    projector = Projector(pool)
    await projector.start()
    try:
        await wait_checkpoints(store.pool, end)
    finally:
        await projector.stop()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    await pool.close()  # its backends exit and flush their statistics
    await asyncio.sleep(1.0)
    buffers = await store.pool.fetchval(_BUFFERS) - buffers
    return {"events": events, "catch_up_s": seconds, "catch_up_events_per_s": events / seconds,
            "pages_per_event": buffers / events, "client_cpu_us_per_event": cpu / events * 1e6,
            "lag_call_when_behind_ms": lag_ms}


async def timed(call: Any, repeat: int = 20) -> float:
    """Median milliseconds of `repeat` awaits of `call()`."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        await call()
        times.append((time.perf_counter() - started) * 1000)
    return sorted(times)[len(times) // 2]


async def list_filters(store: PostgresStore) -> dict[str, float]:
    """Median ms of the game list's `kind`+`status` and `player` filters (first page of 50)."""
    models = ReadModels(store.pool)
    games = await store.pool.fetchval("SELECT count(*) FROM rm_games")
    return {"games": games,
            "list_kind_status_ms": await timed(lambda: models.list_games(kind="tally", status="finished")),
            "list_player_ms": await timed(lambda: models.list_games(player="p7-0")),
            "list_player_open_ms": await timed(lambda: models.list_games(player="p7-0", status="open"))}


async def pad_games(store: PostgresStore, count: int) -> None:
    """Copy finished games under new ids (and positions) until the game list holds `count` games."""
    async with store.pool.acquire() as conn:
        have = await conn.fetchval("SELECT count(*) FROM rm_games")
        if have >= count:
            return
        cols = await conn.fetch("SELECT column_name FROM information_schema.columns WHERE table_name = 'rm_games' "
                                "AND column_name NOT IN ('id', 'created_pos') ORDER BY ordinal_position")
        names = ", ".join(r[0] for r in cols)
        base = await conn.fetchval("SELECT max(created_pos) FROM rm_games")
        while have < count:
            n = min(have, count - have)
            await conn.execute(
                f"""INSERT INTO rm_games (id, created_pos, {names})
                    SELECT 'pad-' || (row_number() OVER () + $1), $2 + row_number() OVER (), {names}
                    FROM rm_games LIMIT $3""", have, base + have, n)
            have += n
        if await conn.fetchval("SELECT to_regclass('rm_game_players')"):
            await conn.execute("""INSERT INTO rm_game_players (player_id, created_pos, game_id)
                                  SELECT p, g.created_pos, g.id FROM rm_games g, unnest(g.seat_players) AS p
                                  WHERE g.id LIKE 'pad-%' AND p IS NOT NULL ON CONFLICT DO NOTHING""")
        await conn.execute("ANALYZE")


async def writer(store: PostgresStore, games: list[list[Batch]]) -> int:
    appended = 0
    for batches in games:
        game_id, version = str(uuid.uuid4()), 0
        for events, meta in batches:
            await store.append(game_id, version, events, meta, kind="tally")
            version += len(events)
            appended += len(events)
    return appended


def start_projector(dsn: str) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": dsn, "STELA_LOG_LEVEL": "warning"}
    return subprocess.Popen([sys.executable, "-m", "service.cli", "projector"], cwd=ROOT, env=env)


async def live(store: PostgresStore, dsn: str, games: list[list[Batch]], writers: int) -> dict[str, float]:
    """Writers append (through the store) while a projector process follows; lag sampled throughout."""
    names = list(PROJECTIONS)
    proc = start_projector(dsn)
    samples: list[tuple[float, float]] = []

    async def sample() -> None:
        lags = await lag(store.pool, names)
        samples.append((max(v["events"] for v in lags.values()), max(v["seconds"] for v in lags.values())))

    try:
        await asyncio.sleep(1.0)  # let the process start and take the leader locks
        started = time.perf_counter()
        tasks = [asyncio.create_task(writer(store, games[i::writers])) for i in range(writers)]
        while not all(t.done() for t in tasks):
            await sample()
            await asyncio.sleep(0.2)
        events = sum(t.result() for t in tasks)
        appended_in = time.perf_counter() - started
        await wait_checkpoints(store.pool, await last_cursor(store.pool))
        projected_in = time.perf_counter() - started
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    return {"live_events": events, "append_events_per_s": events / appended_in,
            "projector_events_per_s": events / projected_in, "max_lag_events": max(s[0] for s in samples),
            "max_lag_seconds": max(s[1] for s in samples), "drain_after_load_s": projected_in - appended_in}


async def rebuild_speed(store: PostgresStore) -> dict[str, float]:
    """Rebuild every model (swapped in) and read the same rows with a plain SELECT, in this run."""
    async with store.pool.acquire() as conn:
        started = time.perf_counter()
        after, rows = (0, 0), 0
        while batch := await read_after(conn, after, 5000):
            after, rows = batch[-1].cursor, rows + len(batch)
        select_s = time.perf_counter() - started
        raw_started = time.perf_counter()
        raw = len(await conn.fetch("SELECT * FROM events ORDER BY tx, position"))
        raw_s = time.perf_counter() - raw_started
        out: dict[str, float] = {"select_events_per_s": rows / select_s, "raw_select_events_per_s": raw / raw_s}
        total = 0.0
        for projection in select(None):
            done = await rebuild(conn, projection)
            out[f"rebuild_{projection.name}_events_per_s"] = done.events / done.seconds
            total += done.seconds
        out["rebuild_all_events_per_s"] = rows / total
    return out


def rounded(values: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in values.items()}


async def main(args: argparse.Namespace) -> None:
    """One JSON line per measurement, like the other benchmarks (bench/run.py)."""
    stela_logging.configure("warning")
    seed = 0
    async with scratch_database() as dsn:
        store = await PostgresStore.connect(dsn, args.writers + 4)
        try:
            if not args.short:
                live_games = [game_batches(s) for s in range(10**6, 10**6 + 300)]
                print(json.dumps({"bench": "projections.live", **rounded(
                    await live(store, dsn, live_games, args.writers))}), flush=True)
                print(json.dumps({"bench": "projections.rebuild", **rounded(await rebuild_speed(store))}),
                      flush=True)
            for size in args.sizes:
                seed = await grow(store, seed, size)
                runs = sorted([await catch_up(store, dsn) for _ in range(args.repeat)],
                              key=lambda r: r["catch_up_events_per_s"])
                report = runs[len(runs) // 2]  # the median run: one machine hiccup moves a single run by 20%
                report["catch_up_events_per_s_runs"] = [round(r["catch_up_events_per_s"]) for r in runs]
                report.update(await list_filters(store))
                print(json.dumps({"bench": "projections.catch_up", **rounded(report)}), flush=True)
            await pad_games(store, args.pad)
            print(json.dumps({"bench": "projections.list_50k", **rounded(await list_filters(store))}), flush=True)
        finally:
            await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="a smoke run (400 and 1.6k events, 2k games listed, no live run)")
    parser.add_argument("--sizes", help="comma-separated log sizes in events (default 16000,160000)")
    parser.add_argument("--writers", type=int, default=8, help="concurrent appending tasks in the live run")
    parser.add_argument("--repeat", type=int, help="catch-ups per size, the median reported (default 3; 1 with --short)")
    parsed = parser.parse_args()
    parsed.repeat = parsed.repeat or (1 if parsed.short else 3)
    parsed.sizes = [int(s) for s in (parsed.sizes or ("400,1600" if parsed.short else "16000,160000")).split(",")]
    parsed.pad = 2_000 if parsed.short else 50_000  # the padded game list (`games` in its line says how many)
    asyncio.run(main(parsed))
