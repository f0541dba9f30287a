"""Shared benchmark plumbing: scratch databases, `stela serve` replicas, percentiles."""

from __future__ import annotations

import asyncio
import os
import uuid
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import asyncpg

from testkit.api import started_game as new_game  # noqa: F401 - the benchmarks' game setup
from testkit.processes import replicas as running

ADMIN_DSN = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
ROOT = Path(__file__).resolve().parent.parent


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@asynccontextmanager
async def scratch_database() -> AsyncIterator[str]:
    """A fresh database for one benchmark, dropped afterwards."""
    name = f"stela_bench_{uuid.uuid4().hex[:8]}"
    conn = await asyncpg.connect(ADMIN_DSN)
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    try:
        yield ADMIN_DSN.rpartition("/")[0] + "/" + name
    finally:
        conn = await asyncpg.connect(ADMIN_DSN)
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()


@contextmanager
def replicas(dsn: str, count: int, redis_url: str | None, **env: str) -> Iterator[list[str]]:
    """`count` `stela serve` processes on free ports; yields their base URLs."""
    with running(dsn, count, redis_url, **env) as started:
        yield [replica.url for replica in started]


def run(coro: Any) -> Any:
    return asyncio.run(coro)
