"""`stela serve` as real processes (for replica, shutdown and benchmark runs)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from testkit.live import free_port


class Replica:
    """One `stela serve` process on a free port."""

    STARTS = 3  # a port picked free can be taken before the server binds it (by any client's ephemeral port)

    def __init__(self, dsn: str, redis_url: str | None, **env: str) -> None:
        self._environ = {**os.environ, "DATABASE_URL": dsn, "STELA_RATE_LIMIT": "0", "STELA_LOG_LEVEL": "warning",
                         "STELA_PROJECTOR": "off", **env}
        self._environ.pop("REDIS_URL", None)
        if redis_url:
            self._environ["REDIS_URL"] = redis_url
        self._log = tempfile.TemporaryFile()
        self._start()

    def _start(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        environ = {**self._environ, "STELA_PORT": str(self.port), "STELA_METRICS_PORT": str(free_port())}
        self._log.seek(0)
        self._log.truncate()
        stela = Path(sys.executable).with_name("stela")
        self.proc = subprocess.Popen([str(stela), "serve"], env=environ, stderr=self._log)

    def log_tail(self, lines: int = 20) -> str:
        self._log.seek(0)
        return b"\n".join(self._log.read().splitlines()[-lines:]).decode(errors="replace")

    def wait_ready(self, timeout: float = 60) -> None:
        """Until `/healthz` answers; a start that fails (exit 3: a port taken meanwhile) is retried on new ports."""
        deadline = time.monotonic() + timeout
        starts = 1
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                if self.proc.returncode == 3 and starts < self.STARTS and "address already in use" in self.log_tail().lower():
                    starts += 1
                    self._start()
                    continue
                raise RuntimeError(f"stela serve exited with {self.proc.returncode}:\n{self.log_tail()}")
            time.sleep(0.1)
        raise RuntimeError(f"{self.url} did not start:\n{self.log_tail()}")

    def stop(self, kill: bool = False) -> int:
        if self.proc.poll() is None:
            (self.proc.kill if kill else self.proc.terminate)()
        try:
            return self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


@contextmanager
def replicas(dsn: str, count: int, redis_url: str | None, **env: str) -> Iterator[list[Replica]]:
    """`count` running replicas sharing one database (and Redis, when given)."""
    started = [Replica(dsn, redis_url, **env) for _ in range(count)]
    try:
        for replica in started:
            replica.wait_ready()
        yield started
    finally:
        for replica in started:
            replica.stop()
