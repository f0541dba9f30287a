"""The fault suite's own servers: a throwaway PostgreSQL cluster, a Redis, replicas and a projector.

Nothing here touches the machine's shared PostgreSQL or Redis. PostgreSQL is a cluster made by
`initdb` in a temporary folder and run by `pg_ctl` on a free port (the machine's PostgreSQL 15
binaries, or `STELA_CHAOS_PG_BIN`); Redis is `redis-server` on a free port with persistence off.
Each can be hurt the way an operator's bad day would: PostgreSQL stopped with `-m immediate` (a
crash: no checkpoint, clients cut) and started again, Redis killed and restarted on the same port
or frozen with SIGSTOP and thawed with SIGCONT. Replicas are `stela serve` processes
(testkit.processes.Replica) and the projector is `stela projector`; either is killed with
SIGKILL and a new one started in its place.
"""

from __future__ import annotations

import contextlib

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from testkit.live import free_port
from testkit.processes import Replica

PG_BIN_CANDIDATES = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/local/pgsql/bin"]


def pg_bin() -> Path:
    """The folder with `initdb` and `pg_ctl` (STELA_CHAOS_PG_BIN, else a known place, else PATH)."""
    for candidate in [os.environ.get("STELA_CHAOS_PG_BIN"), *PG_BIN_CANDIDATES]:
        if candidate and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    raise RuntimeError("no PostgreSQL binaries (initdb, pg_ctl): set STELA_CHAOS_PG_BIN")


def wait_until(condition, what: str, timeout: float = 60.0, every: float = 0.1) -> None:
    """Poll `condition()` until it is true; RuntimeError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {timeout:.0f} s")
        time.sleep(every)


class Postgres:
    """A private PostgreSQL cluster in a temporary folder, on a free port; `dsn` names its database."""

    def __init__(self, root: Path) -> None:
        self.bin = pg_bin()
        self.data = root / "pg"
        self.port = free_port()
        self.log = root / "pg.log"
        # root may run the suite (CI containers): PostgreSQL refuses to run as root, so use `postgres`
        self._as: list[str] = []
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "postgres", "--"]
            shutil.chown(root, "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write(f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{root}'\n"
                       "fsync = on\nmax_connections = 200\nshared_buffers = 32MB\n")
        self.dsn = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run([*self._as, str(self.bin / tool), *args], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "120", "start")

    def stop(self, mode: str = "fast") -> None:
        """`pg_ctl stop -m mode`; `immediate` is a crash (recovery replays the WAL at the next start)."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "120", "-m", mode, "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()


class Redis:
    """A private redis-server on a free port, no persistence; killed, restarted, frozen and thawed."""

    def __init__(self, root: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = root / "redis.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--logfile", str(self.log)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self._answers, "redis-server did not answer", 30)

    def _answers(self) -> bool:
        import socket

        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def freeze(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.thaw()
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Projector:
    """`stela projector` as its own process (the replicas run with STELA_PROJECTOR=off)."""

    def __init__(self, dsn: str, log: Path) -> None:
        self.dsn, self.log = dsn, log
        self.proc: subprocess.Popen | None = None
        self.started = 0

    def start(self) -> None:
        env = {**os.environ, "DATABASE_URL": self.dsn, "STELA_LOG_LEVEL": "warning"}
        env.pop("REDIS_URL", None)
        stela = Path(sys.executable).with_name("stela")
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([str(stela), "projector"], env=env, stderr=log, stdout=log)
        self.started += 1

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


class Fleet:
    """N replicas sharing the cluster's PostgreSQL and Redis; a killed one is replaced by a new process."""

    def __init__(self, dsn: str, redis_url: str, count: int) -> None:
        self.dsn, self.redis_url = dsn, redis_url
        self.env = {"STELA_PROJECTOR": "off", "STELA_RATE_LIMIT": "0", "STELA_LOG_LEVEL": "warning",
                    "STELA_DB_COMMAND_TIMEOUT": "5"}
        self.replicas = [Replica(dsn, redis_url, **self.env) for _ in range(count)]
        self.retired: list[str] = []  # the logs of the replicas killed
        try:
            for replica in self.replicas:
                replica.wait_ready(120)
        except BaseException:  # one did not come up: none is left running
            for replica in self.replicas:
                with contextlib.suppress(Exception):
                    replica.stop()
            raise

    def urls(self) -> list[str]:
        return [r.url for r in self.replicas]

    def kill_one(self, rnd: random.Random, ready: bool = True) -> Replica:
        """SIGKILL a replica, then start a fresh one in its place (new port: clients find it via `urls`);
        with `ready`, wait until it answers (not while its database is down: it waits for that)."""
        i = rnd.randrange(len(self.replicas))
        victim = self.replicas[i]
        victim.stop(kill=True)
        self.retired.append(victim.log_tail(10**9))
        fresh = Replica(self.dsn, self.redis_url, **self.env)
        if ready:
            fresh.wait_ready(120)
        self.replicas[i] = fresh
        return fresh

    def healthy(self) -> bool:
        for url in self.urls():
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code != 200:
                    return False
            except httpx.HTTPError:
                return False
        return True

    def logs(self) -> dict[str, str]:
        """Each replica's whole log: `replica-N` for the running ones, `retired-N` for those killed."""
        return {**{f"replica-{i}": r.log_tail(10**9) for i, r in enumerate(self.replicas)},
                **{f"retired-{i}": text for i, text in enumerate(self.retired)}}


def workdir() -> Path:
    """A temporary folder for one run's cluster and logs (kept on failure, and always with STELA_CHAOS_KEEP=1)."""
    return Path(tempfile.mkdtemp(prefix="stela-chaos-"))
