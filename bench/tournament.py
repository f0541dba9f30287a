"""Benchmark: a Swiss of N bot players at 4-seat tables over HTTP + SSE, against 1 or more replicas.

Each replica is a real process serving the app with the tournament service, its result runner
and the timeout worker started (`python -m bench.tournament serve`); players are spread over the
replicas round-robin (Redis carries the fan-out between them). The bots are the load
generator's tournament mode. Prints wall time, commands/s, command latency p50/p99, SSE delivery
latency p50/p99, then verifies every game and the pairings.

    python -m bench.tournament --players 64 --rounds 3 --replicas 2

Measured 2026-11-26 on the shared 2-core machine (load average ~5 from other work; bots, replicas,
PostgreSQL and Redis on the same cores), 64 players, 3 rounds of 4-seat Coatl, 48 games:
one replica 341 s, 15,235 commands, 44.7 commands/s, command p50 86 ms / p99 1,170 ms, SSE
delivery p99 10 ms; two replicas 317 s, 14,731 commands, 46.5 commands/s, p50 101 ms / p99 881 ms,
SSE p99 85 ms; every game and the pairings verified in both. The machine is CPU-bound, so a
second replica adds no throughput here: 1,000 players x 5 rounds (~384,000 commands at ~300 a
game) would take about 2.3 hours at this rate; 15 minutes needs about 430 commands/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import contextlib
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from bench.common import REDIS_URL, scratch_database
from bench.http import BARE, process
from service.bots.client import ApiClient
from service.bots.loadtest import Config, Recorder, report, tournament
from service.tournaments import verify_tournament
from service.verify import parse_ndjson, verify_log
from tests.support.live import free_port


def create_app() -> Any:
    """The service app (it starts the tournament service, its result runner and the timeout worker)."""
    from service.app import create_app as create

    return create()


@contextmanager
def replicas(dsn: str, count: int) -> Iterator[list[str]]:
    """`count` serving processes on one database and Redis; yields their base URLs."""
    with contextlib.ExitStack() as stack:
        urls = []
        for _ in range(count):
            port = free_port()
            env = {"DATABASE_URL": dsn, "REDIS_URL": REDIS_URL, "STELA_PORT": str(port), **BARE}
            url, _ = stack.enter_context(process([sys.executable, "-m", "bench.tournament", "serve"], env,
                                                 f"http://127.0.0.1:{port}"))
            urls.append(url)
        yield urls


async def play(urls: list[str], config: Config) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=2 * config.players + 20)
    https = [httpx.AsyncClient(base_url=u, limits=limits, timeout=60.0) for u in urls]
    try:
        clients = [ApiClient(https[i % len(https)]) for i in range(config.players)]
        gate = asyncio.Semaphore(16)

        async def register(i: int) -> None:
            async with gate:
                await clients[i].register(f"bot-{i}")  # the names the tournament mode maps players by

        await asyncio.gather(*(register(i) for i in range(config.players)))
        recorder = Recorder()
        start = time.perf_counter()
        await tournament(config, clients, recorder, lambda: None)
        seconds = time.perf_counter() - start
        out = report(config, recorder, seconds, sum(c.counters.throttled for c in clients))
        out["replicas"] = len(urls)
        out.update(await audit(https[0]))
        out["error_samples"] = recorder.errors[:3]
        return out
    finally:
        for http in https:
            await http.aclose()


async def audit(http: httpx.AsyncClient) -> dict[str, Any]:
    """Verify the tournament's pairings and every game's log."""
    from domain.catalog import GAMES

    tid = (await http.get("/v1/tournaments", params={"status": "finished"})).json()["items"][0]["tournament_id"]
    view = (await http.get(f"/v1/tournaments/{tid}")).json()
    events = (await http.get(f"/v1/tournaments/{tid}/events")).json()["events"]
    ok_games = 0
    tables = [t for r in view["rounds"] for t in r["tables"]]
    for t in tables:
        log = parse_ndjson((await http.get(f"/v1/games/{t['game_id']}/export")).content)
        ok_games += verify_log(log, GAMES).ok
    return {"pairings_verified": verify_tournament([(e["type"], e["data"]) for e in events]).ok,
            "games_verified": f"{ok_games}/{len(tables)}", "rounds_played": view["round"]}


async def main(args: argparse.Namespace) -> None:
    config = Config(url="", players=args.players, seats=4, kind=args.kind, mode="tournament", rounds=args.rounds,
                    concurrency=16, options={"sacrifice_tokens": False}, seed=1,
                    time_control={"per_move_seconds": 60})
    async with scratch_database() as dsn:
        with replicas(dsn, args.replicas) as urls:
            out = await play(urls, config)
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        from service.serve import run
        from service.settings import Settings

        sys.exit(run(Settings.from_env(), "bench.tournament:create_app"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--kind", default="coatl")
    asyncio.run(main(parser.parse_args()))
