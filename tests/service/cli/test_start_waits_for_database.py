"""`stela projector` and `stela serve` started while the database is unreachable wait for it and retry
(`service.store.reaching`), then run once it answers, instead of exiting at start-up.

The database is reached through a TCP relay on a port of its own: nothing listens there at first
(a refused connection, as while PostgreSQL restarts); once the process has logged a failed attempt,
the relay opens on that port and forwards to the test PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx
import pytest

from tests.conftest import fresh_database
from testkit.api import until
from testkit.live import free_port

STELA = str(Path(sys.executable).with_name("stela"))


class Relay:
    """A TCP relay from 127.0.0.1:`port` to `target`: `open` it (the database appears on that port), `cut` it
    (its connections dropped, new ones refused, as when PostgreSQL stops), open it again."""

    def __init__(self, port: int, target: tuple[str, int]) -> None:
        self.port, self.target = port, target
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    async def open(self) -> None:
        self.server = await asyncio.start_server(self._forward, "127.0.0.1", self.port)

    async def cut(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
        for writer in list(self.writers):
            writer.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            self.writers.discard(writer)
            writer.close()

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))


def logged(path: Path, event: str) -> bool:
    return any(json.loads(line).get("event") == event for line in path.read_text().splitlines()
               if line.startswith("{"))


async def projected(dsn: str) -> bool:
    """The projector has made its checkpoint table (it got past its start)."""
    conn = await asyncpg.connect(dsn)
    try:
        return await conn.fetchval("SELECT to_regclass('projection_checkpoints') IS NOT NULL")
    finally:
        await conn.close()


async def healthy(url: str) -> bool:
    async with httpx.AsyncClient() as client:
        try:
            return (await client.get(url + "/healthz", timeout=2)).status_code == 200
        except httpx.HTTPError:
            return False


@pytest.fixture
def dsn():
    with fresh_database("stela_wait") as made:
        yield made


@pytest.mark.parametrize("command", ["projector", "serve"])
async def test_a_process_started_before_its_database_waits_for_it_and_then_runs(command, dsn, tmp_path):
    parts = urlsplit(dsn)
    port = free_port()
    late_dsn = urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{port}"))
    http_port = free_port()
    env = {**os.environ, "DATABASE_URL": late_dsn, "STELA_LOG_LEVEL": "info", "STELA_PROJECTOR": "off",
           "STELA_PORT": str(http_port), "STELA_METRICS_PORT": "0"}
    env.pop("REDIS_URL", None)
    log = tmp_path / f"{command}.log"
    with open(log, "wb") as sink:
        proc = subprocess.Popen([STELA, command], env=env, stderr=sink, stdout=sink)
    server = None
    try:
        await until(lambda: proc.poll() is not None or logged(log, "database_unreachable"), 120)
        assert proc.poll() is None, f"exited {proc.returncode} while the database was unreachable:\n" \
                                    f"{log.read_text()[-2000:]}"
        server = Relay(port, (parts.hostname, parts.port or 5432))
        await server.open()
        deadline = asyncio.get_running_loop().time() + 120
        while not (await projected(dsn) if command == "projector" else await healthy(f"http://127.0.0.1:{http_port}")):
            assert proc.poll() is None, log.read_text()[-2000:]
            assert asyncio.get_running_loop().time() < deadline, log.read_text()[-2000:]
            await asyncio.sleep(0.1)
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 30)
        if server is not None:
            await server.cut()
