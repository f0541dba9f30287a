"""Benchmark: an arena of N bot players for a fixed time over HTTP + SSE, against 1 or more replicas.

The replicas are `bench.tournament`'s (real serving processes on one database, Redis carrying the
fan-out between them; each runs the arena process manager, which pairs, records and closes). The
organiser creates the arena; every player follows its personal stream, joins, and plays whatever
game the arena pairs it in when "your turn" comes (the load generator's `TurnPlayer`); the organiser
follows the arena's stream until its end (`tournament.TournamentEnded`). Prints wall time, commands/s,
command latency p50/p99, "your turn" delivery latency p50/p99 and CPU milliseconds per command of the
servers, the bots and the database, then verifies the arena from its public log and every game's log.
`--short` (4 players, one minute: the shortest arena there is) is the smoke run of `bench/run.py --short`,
which runs it beside the other benchmarks since it mostly waits for its minute.

    nice -n 10 python -m bench.arena --players 1000 --minutes 10 --replicas 2

Results: see docs/arena.md (measured on the shared 2-core machine, with its load average).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from typing import Any

import asyncpg

from bench.common import scratch_database
from bench.tournament import OPTIONS, competition_parser, measured_competition, replicas
from service.bots.client import ApiClient
from service.bots.loadtest import Config, Recorder, _connected, _thinking
from service.bots.play import TurnPlayer
from service.bots.strategies import RandomStrategy
from service.commands.competition import verify_competition
from service.commands.verify import parse_ndjson, verify_log


SHORT_THINK_MS = 50.0


async def arena(config: Config, minutes: int, clients: list[ApiClient], recorder: Recorder) -> None:
    """One arena of every player for `minutes`, played until it has ended (the last game scored)."""
    organiser = clients[0]
    created = await organiser.request("POST", "/v1/arenas", json={
        "kind": config.kind, "name": "bench", "options": config.options, "seats": config.seats, "minutes": minutes,
        "time_control": config.time_control, "berserk": False})
    recorder.tournament_id = created["arena_id"]
    path = f"/v1/arenas/{created['arena_id']}"
    players = [TurnPlayer(api, _thinking(config, i, RandomStrategy(random.Random(f"{config.seed}:{i}"))), recorder)
               for i, api in enumerate(clients)]
    running = [asyncio.create_task(p.run()) for p in players]
    gate = asyncio.Semaphore(max(config.concurrency, 1))

    async def join(api: ApiClient) -> None:
        async with gate:
            await api.request("POST", f"{path}/join", json={})

    async def watch() -> None:
        """Until the arena has ended (its last game scored); then the games it scored are counted."""
        while (await organiser.request("GET", path))["status"] != "finished":
            await asyncio.sleep(1.0)
        events = (await organiser.request("GET", f"{path}/events"))["events"]
        recorder.games_done = sum(e["type"] == "arena.GameScored" for e in events)

    watching = asyncio.create_task(watch())
    try:
        await asyncio.gather(*(_connected(p, task) for p, task in zip(players, running)))
        await asyncio.gather(*(join(api) for api in clients))
        await watching
    finally:
        watching.cancel()
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        recorder.errors += [e for p in players for e in p.errors]


async def audit(http: Any, arena_id: str | None) -> dict[str, Any]:
    """Verify the arena from its public log, and every game's log."""
    from domain.catalog import GAMES

    events = (await http.get(f"/v1/arenas/{arena_id}/events")).json()["events"]
    report_ = verify_competition([(e["type"], e["data"]) for e in events])
    games = [g["game_id"] for e in events if e["type"] == "arena.PlayersPaired" for g in e["data"]["games"]]
    ok = 0
    for game_id in games:
        ok += verify_log(parse_ndjson((await http.get(f"/v1/games/{game_id}/export")).content), GAMES).ok
    return {"arena_verified": report_.ok, "arena_problems": report_.problems[:3],
            "games_verified": f"{ok}/{len(games)}", "pairings": report_.pairings_checked}


async def measured(dsn: str, servers: list[tuple[str, int]], config: Config, minutes: int) -> dict[str, Any]:
    db = await asyncpg.connect(dsn)
    try:
        out = await measured_competition(db, servers, config,
                                         lambda clients, recorder: arena(config, minutes, clients, recorder), audit)
        out["minutes"] = minutes
        return out
    finally:
        await db.close()


async def main(args: argparse.Namespace) -> None:
    players, minutes = (4, 1) if args.short else (args.players, args.minutes)  # one minute: the shortest arena
    # the smoke run's bots think SHORT_THINK_MS a move: its minute still pairs, plays, scores and verifies
    # several games, without its bots keeping a core busy beside the benchmarks that measure
    think_ms = SHORT_THINK_MS if args.short else args.think_ms
    config = Config(url="", players=players, seats=args.seats, kind=args.kind, mode="arena", concurrency=16,
                    options=OPTIONS.get(args.kind, {}), seed=1, time_control={"per_move_seconds": 60},
                    think=think_ms / 1000)
    async with scratch_database() as dsn:
        with replicas(dsn, args.replicas, args.workers) as servers:
            out = await measured(dsn, servers, config, minutes)
    out["bench"], out["think_ms"] = "arena", think_ms
    print(json.dumps(out))
    if out["errors"] or out["games_verified"] != f"{out['games']}/{out['games']}" or not out["arena_verified"]:
        sys.exit(1)


if __name__ == "__main__":
    parser = competition_parser(__doc__, players=64, seats=2)
    parser.add_argument("--minutes", type=int, default=2)
    parser.add_argument("--short", action="store_true", help="4 players for one minute: a smoke run")
    asyncio.run(main(parser.parse_args()))
