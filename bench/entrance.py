"""The command entrance in process: µs per command through the whole ASGI app, no network, no database.

The app is `create_app` with the shipped defaults (request logging, metrics, rate limiting with
in-process counters, CORS, the JSON-only rule) on a memory store, so what is measured is the HTTP
edge, the router and the route (the pipeline's work on a warm Tally game is the same on every
path). Each round posts `Add(1)` for the seat to act (a real command: decided, appended, shown)
and then the same as a dry run, each `--commands` times, calling the app directly with a raw
ASGI scope; the rounds' medians of this process's CPU time per command (steadier than wall time on a shared
machine) are printed as JSON lines. `--profile` prints the hottest
functions of one more round of dry runs instead (cProfile, by own time).

    python -m bench.entrance [--rounds 7] [--commands 2000] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import statistics
import sys
import time
from typing import Any

import msgspec
from litestar.testing import AsyncTestClient

from domain.catalog import GAMES
from service.edge.app import create_app
from service.ops.settings import Settings
from service.store.memory import MemoryStore
from testkit.api import player
from testkit.tally import TALLY

BODY = msgspec.json.encode({"command": {"type": "tally.Add", "amount": 1}})
TARGET = 1000  # Tally's largest target: a game lasts 999 commands


def scope(path: str, query: bytes, authorization: str) -> dict[str, Any]:
    """A raw HTTP scope for a command as uvicorn would hand it to the app."""
    return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
            "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
            "query_string": query, "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 50000),
            "headers": [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"bench"), (b"accept", b"*/*"),
                        (b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode()),
                        (b"authorization", authorization.encode())]}


async def post(app: Any, path: str, query: bytes, authorization: str) -> int:
    """One command through the app; its status."""
    status = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope(path, query, authorization), receive, send)
    return status


class Table:
    """A started two-seat Tally game and whose turn it is, replaced by a new one before it ends."""

    def __init__(self, client: AsyncTestClient) -> None:
        self.client = client
        self.path, self.tokens, self.sent = "", [""], 0

    async def open(self) -> Table:
        players = [await player(self.client, f"P{i}") for i in range(2)]
        resp = await self.client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {"target": TARGET}},
                                      headers=players[0]["headers"])
        game_id = resp.json()["id"]
        await self.client.post(f"/v1/games/{game_id}/join", json={}, headers=players[1]["headers"])
        await self.client.post(f"/v1/games/{game_id}/start", headers=players[0]["headers"])
        to_act = (await self.client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
        self.path, self.sent = f"/v1/games/{game_id}/commands", 0
        self.tokens = [players[(to_act + i) % 2]["headers"]["Authorization"] for i in range(2)]
        return self

    async def timed(self, app: Any, commands: int, dry_run: bool) -> float:
        """µs per command for `commands` commands (a new game first when this one would end)."""
        if not dry_run and self.sent + commands >= TARGET - 2:
            await self.open()
        query = b"dry_run=true" if dry_run else b""
        began = time.process_time()  # CPU, not wall time: the machine is shared
        for i in range(commands):
            status = await post(app, self.path, query, self.tokens[(self.sent + i) % 2 if not dry_run else self.sent % 2])
            assert status == 200, status
        elapsed = time.process_time() - began
        if not dry_run:
            self.sent += commands
        return elapsed * 1e6 / commands


async def main(rounds: int, commands: int, profile: bool) -> list[dict[str, Any]]:
    settings = Settings(redis_url=None, rate_limit=100_000_000, projector="off", admin_token=None)
    app = create_app(settings, games={**GAMES, "tally": TALLY}, store=MemoryStore())
    async with AsyncTestClient(app, timeout=30) as client:
        table = await Table(client).open()
        handler = app  # the whole ASGI app: edge middleware, framework, route
        await table.timed(handler, 200, True)  # warm
        await table.timed(handler, 200, False)
        if profile:
            profiler = cProfile.Profile()
            profiler.enable()
            await table.timed(handler, commands, True)
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(40)
            return []
        real: list[float] = []
        dry: list[float] = []
        for _ in range(rounds):
            real.append(await table.timed(handler, min(commands, TARGET // 2), False))
            dry.append(await table.timed(handler, commands, True))
    return [{"entrance": "post", "us_per_command": round(statistics.median(real), 1),
             "rounds": [round(r, 1) for r in real]},
            {"entrance": "dry_run", "us_per_command": round(statistics.median(dry), 1),
             "rounds": [round(r, 1) for r in dry]}]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    for line in asyncio.run(main(args.rounds, args.commands, args.profile)):
        print(json.dumps({"bench": "entrance", **line}))
