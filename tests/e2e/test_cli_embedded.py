"""The command line with the embedded database, as the README shows it: `stela serve` says where it
listens, and `stela export ID > game.ndjson && stela verify game.ndjson` works (data on stdout,
logs on stderr)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from stela_client import Client

from testkit.live import free_port, wait_healthy

pytestmark = pytest.mark.xdist_group("embedded")

STELA = str(Path(sys.executable).with_name("stela"))


async def finished_game(url: str) -> str:
    """A two-seat game, created, joined, started and ended by a resignation (through the SDK); its id."""
    async with Client(url) as ann, Client(url) as bob:
        await ann.register("Ann")
        await bob.register("Bob")
        game = await ann.create_game("coatl", 2)
        await bob.join(game.id)
        await ann.start(game.id)
        done = await ann.resign(game.id)
        assert done.status == "finished", done
    return game.id


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
            game_id = asyncio.run(finished_game(f"http://127.0.0.1:{port}"))
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
