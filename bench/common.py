"""Shared benchmark plumbing: scratch databases, `stela serve` replicas, percentiles."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import uuid
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import asyncpg
import httpx

ADMIN_DSN = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
ROOT = Path(__file__).resolve().parent.parent


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    procs, urls = [], []
    for _ in range(count):
        port = free_port()
        environ = {**os.environ, "DATABASE_URL": dsn, "STELA_PORT": str(port), "STELA_RATE_LIMIT": "0",
                   "STELA_LOG_LEVEL": "warning", **env}
        environ.pop("REDIS_URL", None)
        if redis_url:
            environ["REDIS_URL"] = redis_url
        stela = Path(sys.executable).with_name("stela")
        procs.append(subprocess.Popen([str(stela), "serve"], env=environ, stderr=subprocess.DEVNULL))
        urls.append(f"http://127.0.0.1:{port}")
    try:
        for url in urls:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{url} did not start")
                time.sleep(0.1)
        yield urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()


async def register(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    body = (await client.post("/v1/players", json={"name": name})).json()
    body["headers"] = {"Authorization": f"Bearer {body['token']}"}
    return body


async def new_game(client: httpx.AsyncClient, kind: str, seats: int, options: dict | None = None
                   ) -> tuple[str, list[dict[str, Any]]]:
    players = [await register(client, f"bench{i}") for i in range(seats)]
    game_id = (await client.post("/v1/games", json={"kind": kind, "seats": seats, "options": options or {}},
                                 headers=players[0]["headers"])).json()["id"]
    for p in players[1:]:
        await client.post(f"/v1/games/{game_id}/join", json={}, headers=p["headers"])
    await client.post(f"/v1/games/{game_id}/start", headers=players[0]["headers"])
    return game_id, players


def run(coro: Any) -> Any:
    return asyncio.run(coro)
