"""`stela serve` as a process: it says it listens only once it does, and its access lines reach stderr
while it runs (they are buffered for at most `service.ops.logging.ACCESS_FLUSH` seconds, not until exit)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from testkit.live import free_port, wait_healthy

STELA = str(Path(sys.executable).with_name("stela"))


def environment(pg_dsn: str, port: int) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": pg_dsn, "STELA_PORT": str(port), "STELA_LOG_LEVEL": "info",
           "STELA_METRICS_PORT": "0", "STELA_PROJECTOR": "off"}
    env.pop("REDIS_URL", None)
    return env


def lines(path: Path) -> list[dict]:
    """The complete lines written so far (a line still being written is left for the next look)."""
    return [json.loads(line) for line in path.read_text().split("\n")[:-1] if line.strip()]


def test_an_access_line_reaches_stderr_while_the_server_runs(pg_dsn, tmp_path):
    port, log = free_port(), tmp_path / "serve.log"
    with open(log, "wb") as sink:
        server = subprocess.Popen([STELA, "serve"], env=environment(pg_dsn, port), stderr=sink)
        try:
            wait_healthy(f"http://127.0.0.1:{port}", server, timeout=60)
            assert httpx.get(f"http://127.0.0.1:{port}/v1/kinds", headers={"X-Request-ID": "req-7"}).status_code == 200
            deadline = time.monotonic() + 30
            while not any(line.get("request_id") == "req-7" for line in lines(log)):  # no later line pushes it out
                assert time.monotonic() < deadline and server.poll() is None, log.read_text()[-2000:]
                time.sleep(0.05)
        finally:
            server.terminate()
            server.wait(30)
    written = lines(log)
    at = next(i for i, line in enumerate(written) if line.get("request_id") == "req-7")
    assert {"event": "request", "path": "/v1/kinds", "status": 200}.items() <= written[at].items()
    listening = [i for i, line in enumerate(written) if line.get("event") == "listening"]
    assert len(listening) == 1 and listening[0] < at


def test_a_port_in_use_is_an_error_and_never_announced_as_listening(pg_dsn, tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port, log = taken.getsockname()[1], tmp_path / "serve.log"
        with open(log, "wb") as sink:
            done = subprocess.run([STELA, "serve"], env=environment(pg_dsn, port), stderr=sink, timeout=120)
    finally:
        taken.close()
    assert done.returncode != 0
    assert not any(line.get("event") == "listening" for line in lines(log)), log.read_text()[-2000:]
    assert "address already in use" in log.read_text().lower()


def test_a_setting_that_cannot_run_is_refused_in_a_json_line(pg_dsn, tmp_path):
    env = {**environment(pg_dsn, free_port()), "STELA_WORKERS": "2"}  # two workers need REDIS_URL
    done = subprocess.run([STELA, "serve"], env=env, capture_output=True, timeout=120)
    assert done.returncode == 2
    refusal = [json.loads(line) for line in done.stderr.decode().splitlines() if line.strip()]
    assert {"event": "config_error", "level": "error"}.items() <= refusal[-1].items()
    assert "REDIS_URL" in refusal[-1]["detail"]
