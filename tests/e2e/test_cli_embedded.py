"""The command line with the embedded database, as the README shows it: `stela serve` says where it
listens, and `stela export ID > game.ndjson && stela verify game.ndjson` works (data on stdout,
logs on stderr)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support.live import free_port, wait_healthy

pytestmark = pytest.mark.xdist_group("embedded")

STELA = str(Path(sys.executable).with_name("stela"))


def finished_game(url: str) -> str:
    """A two-seat game, created, joined, started and ended by a resignation; its id."""
    with httpx.Client(base_url=url, headers={"Content-Type": "application/json"}) as client:
        tokens = [client.post("/v1/players", json={"name": name}).json()["token"] for name in ("Ann", "Bob")]
        auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
        game_id = client.post("/v1/games", json={"kind": "coatl", "seats": 2}, headers=auth[0]).json()["id"]
        assert client.post(f"/v1/games/{game_id}/join", json={}, headers=auth[1]).status_code == 200
        assert client.post(f"/v1/games/{game_id}/start", headers=auth[0]).status_code == 200
        done = client.post(f"/v1/games/{game_id}/commands", json={"command": {"type": "table.Resign"}},
                           headers=auth[0])
        assert done.status_code == 200 and done.json()["status"] == "finished", done.text
    return game_id


def test_serve_logs_its_address_and_export_then_verify_works_with_the_embedded_database(tmp_path):
    port = free_port()
    env = {**os.environ, "STELA_PORT": str(port), "STELA_METRICS_PORT": str(free_port()),
           "STELA_DATA_DIR": str(tmp_path / "data"), "STELA_LOG_LEVEL": "info"}
    for name in ("DATABASE_URL", "REDIS_URL", "STELA_ADMIN_TOKEN"):
        env.pop(name, None)
    log = tmp_path / "serve.log"
    with open(log, "wb") as sink:
        server = subprocess.Popen([STELA, "serve"], env=env, cwd=tmp_path, stdout=sink, stderr=sink)
        try:
            wait_healthy(f"http://127.0.0.1:{port}", server, timeout=120)  # the first start runs initdb
            game_id = finished_game(f"http://127.0.0.1:{port}")
        finally:
            server.terminate()
            server.wait(60)
    lines = [json.loads(line) for line in log.read_text().splitlines()]  # every line is JSON, initdb's too
    assert (tmp_path / "data" / "postgres.log").read_text().strip()  # the embedded server's own output is kept
    assert {"event": "listening", "url": f"http://127.0.0.1:{port}"}.items() <= next(
        line for line in lines if line.get("event") == "listening").items()

    done = subprocess.run(["bash", "-euo", "pipefail", "-c",
                           f"{STELA} export {game_id} > game.ndjson && {STELA} verify game.ndjson"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    exported = [json.loads(line) for line in (tmp_path / "game.ndjson").read_text().splitlines()]
    assert [e["version"] for e in exported] == list(range(1, len(exported) + 1))
    assert {e["stream_id"] for e in exported} == {game_id} and exported[-1]["type"] == "table.SeedRevealed"
    report = json.loads(done.stdout)  # verify's stdout is its report and nothing else
    assert report["game_id"] == game_id and report["ok"] is True and report["problems"] == []
    assert report["outcome"]["winners"] == [1]  # seat 0 resigned
    for line in done.stderr.splitlines():
        json.loads(line)
