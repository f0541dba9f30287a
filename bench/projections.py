"""Projection benchmark: projector throughput and lag under a load of appended games, and rebuild speed.

Creates a scratch database (bench.common.scratch_database), appends random `tally`-shaped games from several concurrent
writers while `stela projector` runs as its own process, samples the lag, then
measures a catch-up from zero and a rebuild of every read model against a plain
SELECT of the same rows. `--short` finishes in well under 30 s.

    .venv/bin/python -m bench.projections [--short] [--games N] [--writers N]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import scratch_database  # noqa: E402
from domain.simulate import play_random  # noqa: E402
from domain.table import SeatTaken, Table  # noqa: E402
from projections.catalog import PROJECTIONS, select  # noqa: E402
from projections.log import read_after  # noqa: E402
from projections.rebuild import rebuild  # noqa: E402
from projections.runner import Projector, lag  # noqa: E402
from service import logging as stela_logging  # noqa: E402
from service.store.postgres import PostgresStore  # noqa: E402
from service.store.protocol import Metadata, NewEvent  # noqa: E402
from tests.support.tally import TALLY  # noqa: E402

TABLE = Table(TALLY)


def game_batches(seed: int) -> list[tuple[list[NewEvent], Metadata]]:
    """One random game as the batches the service would append, with `to_act` metadata."""
    rnd = random.Random(seed)
    seats = rnd.randint(2, 4)
    played = play_random(TABLE, {"target": 20}, seats, f"b{seed}".encode(), alternatives=0, check_views=False)
    events = [e if not isinstance(e, SeatTaken) else SeatTaken(seat=e.seat, player_id=f"p{rnd.randrange(500)}-{e.seat}",
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


async def writer(store: PostgresStore, games: list[list[Any]]) -> int:
    appended = 0
    for batches in games:
        game_id, version = str(uuid.uuid4()), 0
        for events, meta in batches:
            await store.append(game_id, version, events, meta, kind="tally")
            version += len(events)
            appended += len(events)
    return appended


async def wait_caught_up(pool: Any, names: list[str], samples: list[tuple[float, float]]) -> None:
    while True:
        lags = await lag(pool, names)
        samples.append((max(v["events"] for v in lags.values()), max(v["seconds"] for v in lags.values())))
        if all(v["events"] == 0 for v in lags.values()):
            return
        await asyncio.sleep(0.1)


def start_projector(dsn: str) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": dsn, "STELA_LOG_LEVEL": "warning"}
    return subprocess.Popen([sys.executable, "-m", "service.cli", "projector"], cwd=ROOT, env=env)


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(10)


async def live(store: PostgresStore, dsn: str, games: list[list[Any]], writers: int) -> dict[str, float]:
    """Writers append while the projector process follows; lag sampled throughout."""
    names = list(PROJECTIONS)
    proc = start_projector(dsn)
    try:
        samples: list[tuple[float, float]] = []
        await asyncio.sleep(1.0)  # let the process start and take the leader locks
        started = time.perf_counter()
        tasks = [asyncio.create_task(writer(store, games[i::writers])) for i in range(writers)]
        sampler_done = asyncio.Event()

        async def sample() -> None:
            while not sampler_done.is_set():
                lags = await lag(store.pool, names)
                samples.append((max(v["events"] for v in lags.values()), max(v["seconds"] for v in lags.values())))
                await asyncio.sleep(0.2)

        sampler = asyncio.create_task(sample())
        events = sum(await asyncio.gather(*tasks))
        appended_in = time.perf_counter() - started
        sampler_done.set()
        await sampler
        await wait_caught_up(store.pool, names, samples)
        projected_in = time.perf_counter() - started
    finally:
        stop(proc)
    return {"events": events, "append_events_per_s": events / appended_in,
            "projector_events_per_s": events / projected_in, "max_lag_events": max(s[0] for s in samples),
            "max_lag_seconds": max(s[1] for s in samples), "drain_after_load_s": projected_in - appended_in}


async def catch_up(store: PostgresStore, events: int) -> dict[str, float]:
    """A projector (in this process) starting from zero over the whole log, with no competing writers."""
    async with store.pool.acquire() as conn:
        await conn.execute("DELETE FROM projection_checkpoints")
        for projection in select(None):
            for table in projection.tables:
                await conn.execute(f"TRUNCATE {table}")
    started = time.perf_counter()
    projector = Projector(store.pool)
    await projector.start()
    try:
        await wait_caught_up(store.pool, list(PROJECTIONS), [])
    finally:
        await projector.stop()
    seconds = time.perf_counter() - started
    return {"catch_up_events_per_s": events / seconds, "catch_up_s": seconds}


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


async def main(args: argparse.Namespace) -> None:
    stela_logging.configure("warning")
    async with scratch_database() as dsn:
        store = await PostgresStore.connect(dsn, args.writers + 4)
        try:
            await run(store, dsn, args)
        finally:
            await store.close()


async def run(store: PostgresStore, dsn: str, args: argparse.Namespace) -> None:
    """One JSON line, like the other benchmarks (bench/run.py)."""
    games = [game_batches(seed) for seed in range(args.games)]
    report: dict[str, Any] = {"bench": "projections", "games": args.games, "writers": args.writers}
    report.update(await live(store, dsn, games, args.writers))
    report.update(await catch_up(store, int(report["events"])))
    report.update(await rebuild_speed(store))
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in report.items()}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="a small run (under 30 s)")
    parser.add_argument("--games", type=int, help="games to append (default 3000, 300 with --short)")
    parser.add_argument("--writers", type=int, default=8, help="concurrent appending tasks")
    parsed = parser.parse_args()
    parsed.games = parsed.games or (300 if parsed.short else 3000)
    asyncio.run(main(parsed))
