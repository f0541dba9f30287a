"""`stela projector` and `stela serve` started while the database is unreachable wait for it and retry
(`service.store.reaching`), then run once it answers, instead of exiting at start-up; and so do they when
the database goes away later in their start-up, after the pool has opened and the migrations have run.

The database is reached through a TCP relay on a port of its own (`Relay`). For a process started before
its database, nothing listens there at first (a refused connection, as while PostgreSQL restarts); once
the process has logged a failed attempt, the relay opens on that port and forwards to the test PostgreSQL.
For a database lost after the migrations, the start-up runs in the test's own process (`open_projector`,
`open_services`, what the two commands run) and the relay is cut (its connections dropped, new ones
refused) just before a chosen later step of it; once the start-up has logged two failed attempts, the
relay opens again.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx
import pytest

from projections.catalog import PROJECTIONS, select
from projections.runner import Projector
from service.container import Services, open_projector, open_services
from service.ops.settings import Settings
from service.store import reaching
from service.workers.timeouts import TimeoutWorker
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


class Warnings:
    """What `service.store.reaching` logs, kept (structlog's capture_logs misses a logger cached earlier)."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def __getattr__(self, level: str) -> Any:
        return lambda event, **_: self.events.append(event)

    def unreachable(self) -> int:
        return self.events.count("database_unreachable")


def cut_before(monkeypatch: pytest.MonkeyPatch, owner: type, name: str, relay: Relay) -> list[bool]:
    """`owner.name` (a start-up step) cuts `relay` the first time it is called, then runs as before."""
    cuts: list[bool] = []
    original = getattr(owner, name)

    async def cutting(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not cuts:
            cuts.append(True)
            await relay.cut()
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, cutting)
    return cuts


async def lose_then_restore(relay: Relay, cuts: list[bool], warnings: Warnings, task: asyncio.Task[Any],
                            ready: asyncio.Event) -> None:
    """Once the step has cut the database away: the start-up waits (two failed attempts logged, still
    running); then the database is back and the start-up gets to ready."""
    await until(lambda: task.done() or (cuts and warnings.unreachable() >= 2), 120)
    assert not task.done(), f"the start-up ended while the database was away: {task.exception()!r}"
    assert not ready.is_set()
    await relay.open()
    await until(lambda: task.done() or ready.is_set(), 120)
    assert not task.done(), f"the start-up ended after the database came back: {task.exception()!r}"


@pytest.fixture
def relayed(dsn):
    """A relay to the test database, open, and the DSN through it."""
    parts = urlsplit(dsn)
    port = free_port()
    return Relay(port, (parts.hostname, parts.port or 5432)), \
        urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{port}"))


@pytest.fixture
def warnings(monkeypatch):
    kept = Warnings()
    monkeypatch.setattr(reaching, "log", kept)
    return kept


async def test_a_projector_whose_database_goes_away_after_the_migrations_waits_for_it_and_then_runs(
        relayed, warnings, monkeypatch):
    relay, through = relayed
    await relay.open()
    cuts = cut_before(monkeypatch, Projector, "start", relay)  # `stela projector`'s start: its tables
    ready, done = asyncio.Event(), asyncio.Event()
    leading: list[set[str]] = []

    async def projector() -> None:
        async with open_projector(Settings(database_url=through, redis_url=None), select(None), 500, 4000) as running:
            leading.append(running.leading)
            ready.set()
            await done.wait()

    task = asyncio.create_task(projector())
    try:
        await lose_then_restore(relay, cuts, warnings, task, ready)
        await until(lambda: task.done() or len(leading[0]) == len(PROJECTIONS), 120)  # it leads every model
        assert not task.done(), repr(task.exception())
    finally:
        done.set()
        await asyncio.wait_for(task, 60)
        await relay.cut()


async def test_a_replica_whose_database_goes_away_after_the_migrations_waits_for_it_and_then_serves(
        relayed, warnings, monkeypatch, games):
    relay, through = relayed
    await relay.open()
    # the fourth step of the workers' start: the read models, the projector and the result runner have
    # started, and must each be running once (not twice, nor stopped) when the start-up is done
    cuts = cut_before(monkeypatch, TimeoutWorker, "start", relay)
    ready, done = asyncio.Event(), asyncio.Event()
    opened: list[Services] = []

    async def replica() -> None:
        settings = Settings(database_url=through, redis_url=None, projector="embedded")
        async with open_services(settings, games) as services:
            opened.append(services)
            ready.set()
            await done.wait()

    task = asyncio.create_task(replica())
    try:
        await lose_then_restore(relay, cuts, warnings, task, ready)
        projector = opened[0].projector
        assert projector is not None
        await until(lambda: task.done() or len(projector.leading) == len(PROJECTIONS), 120)
        assert not task.done(), repr(task.exception())
        names = [t.get_name() for t in asyncio.all_tasks()]
        workers = ("projector", "tournament-results", "timeouts", "arena-results", "checkpoints")
        assert {name: names.count(name) for name in workers} == dict.fromkeys(workers, 1)
    finally:
        done.set()
        await asyncio.wait_for(task, 60)
        await relay.cut()
