"""`stela projector` as its own process: killed with SIGKILL mid-way it resumes exactly once;
two at once, only the leader projects and the standby takes over when the leader dies."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from projections.base import lock_key
from projections.catalog import PROJECTIONS
from projections.runner import lag
from tests.projections.support import append_games, wait_caught_up
from testkit.readmodels import assert_equal_to_rebuild

ROOT = Path(__file__).resolve().parents[2]
LEADER_KEYS = [lock_key("leader", name) for name in PROJECTIONS]
LEADERS = """SELECT pid FROM pg_locks
             WHERE locktype = 'advisory' AND granted AND objsubid = 1
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND (classid::bigint << 32) | objid::bigint = ANY($1::bigint[])"""


async def leaders(pool) -> list[int]:
    """The backend pid holding each leader lock of this database (a bigint advisory key shows as
    classid = high half, objid = low half)."""
    return [r[0] for r in await pool.fetch(LEADERS, LEADER_KEYS)]


def start_projector(dsn: str, *args: str) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": dsn, "STELA_LOG_LEVEL": "warning"}
    return subprocess.Popen([sys.executable, "-m", "service.cli", "projector", *args], cwd=ROOT, env=env)


def stop(proc: subprocess.Popen) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    return proc.wait(10)


async def checkpoints_moved(pool, beyond: int = 0) -> None:
    """Wait until every projection's checkpoint is past position `beyond`."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        rows = await pool.fetch("SELECT position FROM projection_checkpoints") \
            if await pool.fetchval("SELECT to_regclass('projection_checkpoints')") else []
        if len(rows) == len(PROJECTIONS) and min(r[0] for r in rows) > beyond:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the projector made no progress")


async def test_a_projector_killed_mid_way_resumes_and_counts_nothing_twice(store, pg_dsn):
    appending = asyncio.create_task(append_games(store, range(160), abort_every=11, pause=0.001))
    names = list(PROJECTIONS)
    position = 0
    for _ in range(3):  # kill it three times while games keep arriving
        proc = start_projector(pg_dsn, "--batch", "7", "--max-batch", "7")
        try:
            await checkpoints_moved(store.pool, position)
            await asyncio.sleep(0.3)
        finally:
            proc.kill()
            proc.wait(5)
        position = await store.pool.fetchval("SELECT min(position) FROM projection_checkpoints")
    events = await appending
    proc = start_projector(pg_dsn)
    try:
        # running (it leads every model) before "caught up" counts: the models may have been caught up
        # already, and a SIGTERM before its handler is installed ends the process with -15
        deadline = time.monotonic() + 30
        while len(await leaders(store.pool)) < len(names):
            assert time.monotonic() < deadline and proc.poll() is None, "the projector never took the lead"
            await asyncio.sleep(0.05)
        await wait_caught_up(lambda: lag(store.pool, names))
    finally:
        assert stop(proc) == 0
    await assert_equal_to_rebuild(store.pool)
    assert await store.pool.fetchval("SELECT sum(events) FROM rm_stats_days") == events
    assert await store.pool.fetchval("SELECT sum(games) FROM rm_ratings") == await store.pool.fetchval(
        "SELECT count(*) FROM rm_player_games WHERE status = 'finished'")


async def test_a_second_projector_waits_and_takes_over_when_the_first_dies(store, pg_dsn):
    names = list(PROJECTIONS)
    first = start_projector(pg_dsn)
    second = None
    try:
        await append_games(store, range(5))
        await wait_caught_up(lambda: lag(store.pool, names))
        (leader_pid,) = set(await leaders(store.pool))
        second = start_projector(pg_dsn)
        await asyncio.sleep(1.5)  # long enough for the second to try the locks
        assert second.poll() is None, "the standby must wait, not exit"
        assert await leaders(store.pool) == [leader_pid] * len(names)

        first.kill()
        first.wait(5)
        await append_games(store, range(5, 10))
        # the standby takes over (how fast is the lock's business, not a test's: no timed assertion)
        await wait_caught_up(lambda: lag(store.pool, names), timeout=120)
        (new_leader,) = set(await leaders(store.pool))
        assert new_leader != leader_pid
    finally:
        stop(first)
        if second is not None:
            assert stop(second) == 0
    await assert_equal_to_rebuild(store.pool)
