"""The SDK's tests talk to a real `stela serve` process over HTTP, as any client would.

`Server` starts the service of this repository on a free port and a fresh PostgreSQL database (the
repository's test helpers make and drop it), and can stop it (SIGTERM, or SIGKILL) and start it again
on the same port and database: what a client sees across a restart. Run from the repository root
(`make test`, or `python -m pytest clients/python/tests`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import fresh_database
from testkit.live import free_port, wait_healthy

STELA = str(Path(sys.executable).with_name("stela"))


class Server:
    """One `stela serve` process (restartable) on `dsn`; `url` stays the same across restarts."""

    def __init__(self, dsn: str, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "DATABASE_URL": dsn, "STELA_PORT": str(self.port), "STELA_LOG_LEVEL": "warning",
                    "STELA_METRICS_PORT": str(free_port()), "STELA_RATE_LIMIT": "0", "STELA_STREAM_RATE_LIMIT": "0",
                    "STELA_MAX_STREAMS_PER_CLIENT": "0", "STELA_HEARTBEAT_SECONDS": "1", **env}
        self.env.pop("REDIS_URL", None)
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.proc = subprocess.Popen([STELA, "serve"], env=self.env, stderr=subprocess.DEVNULL)
        wait_healthy(self.url, self.proc, timeout=120)
        self.starts += 1

    def stop(self, kill: bool = False) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            self.proc.wait(60)
        self.proc = None


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """One server for the tests that do not restart or limit it."""
    with fresh_database("stela_sdk") as dsn:
        running = Server(dsn)
        running.start()
        try:
            yield running
        finally:
            running.stop()


@pytest.fixture
def own_server() -> Iterator[Server]:
    """A server of the test's own (to restart it, or to run it with other settings: `own_server.env`)."""
    with fresh_database("stela_sdk_own") as dsn:
        running = Server(dsn)
        try:
            yield running
        finally:
            running.stop()
