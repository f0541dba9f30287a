"""The zero-configuration default: an embedded PostgreSQL in a data folder that survives restarts."""

from __future__ import annotations

import asyncio

import pytest

from service.store.embedded import EmbeddedPostgres
from service.store.postgres import PostgresStore
from service.store.protocol import Metadata, NewEvent

pytestmark = pytest.mark.xdist_group("embedded")


async def test_embedded_postgres_keeps_events_across_restarts(tmp_path):
    for round_ in range(2):
        embedded = EmbeddedPostgres(tmp_path)
        dsn = await asyncio.to_thread(embedded.start)
        try:
            store = await PostgresStore.connect(dsn, 2)
            if round_ == 0:
                await store.append("kept", 0, [NewEvent("test.kept", {"n": 1})], Metadata())
            else:
                assert [e.data for e in await store.read_stream("kept")] == [{"n": 1}]
            await store.close()
        finally:
            await asyncio.to_thread(embedded.stop)


OWNER = ("import sys, time\n"
         "from service.store.embedded import EmbeddedPostgres\n"
         "print(EmbeddedPostgres(sys.argv[1]).start(), flush=True)\n"
         "time.sleep(600)\n")


def server_pid(pgdata) -> int | None:
    """The pid in the data folder's postmaster.pid, if the file is there."""
    try:
        return int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None


def killed_owner(tmp_path, also_the_watchdog: bool) -> int:
    """Start the embedded server in a child process, then SIGKILL it (and its watchdog); the server's pid."""
    import os
    import signal
    import subprocess
    import sys

    import psutil

    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(tmp_path)], stdout=subprocess.PIPE)
    try:
        assert owner.stdout is not None
        while not owner.stdout.readline().startswith(b"postgresql://"):  # log lines first, then the DSN
            assert owner.poll() is None, "the owner exited before starting the server"
        server = server_pid(tmp_path / "pg")
        assert server is not None
        if also_the_watchdog:
            for child in psutil.Process(owner.pid).children():
                os.kill(child.pid, signal.SIGKILL)
    finally:
        owner.kill()
        owner.wait(30)
    return server


def wait_gone(pid: int, seconds: float = 60) -> None:
    import time

    import psutil

    deadline = time.monotonic() + seconds
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the embedded server outlived its owner"
        time.sleep(0.1)


def test_an_embedded_server_stops_when_its_owner_is_killed(tmp_path):
    wait_gone(killed_owner(tmp_path, also_the_watchdog=False))


async def test_a_server_left_by_a_killed_owner_is_adopted_and_the_next_clean_stop_stops_it(tmp_path):
    import psutil

    orphan = killed_owner(tmp_path, also_the_watchdog=True)  # nothing left to stop it
    assert psutil.pid_exists(orphan)
    embedded = EmbeddedPostgres(tmp_path)
    dsn = await asyncio.to_thread(embedded.start)
    assert server_pid(tmp_path / "pg") == orphan  # adopted, not a second server
    store = await PostgresStore.connect(dsn, 2)
    await store.close()
    await asyncio.to_thread(embedded.stop)
    wait_gone(orphan)
