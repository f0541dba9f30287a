"""Two strategies play each other over HTTP + SSE; prints each one's wins (the greedy-vs-random check).

`python -m service.bots.headtohead --url URL --kind coatl --games 20` registers one player per
strategy, alternates who takes the first seat, plays every game with `SeatPlayer`s and counts a
game as a strategy's win when only its seat is among the winners (shared wins are draws).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from typing import Any

import httpx

from service.bots.client import ApiClient
from service.bots.play import SeatPlayer
from service.bots.strategies import GreedyStrategy, make_strategy


async def head_to_head(url: str, kind: str, games: int, first: str = "greedy", second: str = "random",
                       options: dict[str, Any] | None = None, seed: int = 1, concurrency: int = 2) -> dict[str, Any]:
    """Play `games` two-seat games of `kind` between strategies `first` and `second`; the tally."""
    wins = {first: 0, second: 0, "draws": 0, "errors": 0}
    commands, blind, started = 0, 0, time.perf_counter()
    gate = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=60.0) as http:
        players = {name: ApiClient(http, rng=random.Random(seed)) for name in (first, second)}
        for name, api in players.items():
            await api.register(f"{name}-bot")

        async def game(index: int) -> None:
            nonlocal commands, blind
            order = [first, second] if index % 2 == 0 else [second, first]
            strategies = {name: make_strategy(name, f"{seed}:{index}:{name}") for name in order}
            async with gate:
                try:
                    game_id = (await players[order[0]].create(kind, 2, options))["id"]
                    await players[order[1]].join(game_id, 1)
                    await players[order[0]].start(game_id)
                    seats = [SeatPlayer(players[name], game_id, strategies[name]) for name in order]
                    final = (await asyncio.gather(*(s.run() for s in seats)))[0]
                except Exception as exc:  # noqa: BLE001 - counted, the match goes on
                    print(f"game {index}: {type(exc).__name__}: {exc}", file=sys.stderr)
                    wins["errors"] += 1
                    return
            commands += sum(s.commands for s in seats)
            blind += sum(s.blind for s in strategies.values() if isinstance(s, GreedyStrategy))
            winners = (final.get("outcome") or {}).get("winners", [])
            wins[order[winners[0]] if len(winners) == 1 else "draws"] += 1

        await asyncio.gather(*(game(i) for i in range(games)))
    decided = games - wins["errors"]
    return {"kind": kind, "games": games, **wins, "commands": commands, "greedy_blind_choices": blind,
            f"{first}_win_rate": round(wins[first] / decided, 3) if decided else None,
            "seconds": round(time.perf_counter() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m service.bots.headtohead", description=__doc__)
    p.add_argument("--url", default="http://127.0.0.1:8000")
    p.add_argument("--kind", default="coatl")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--first", default="greedy")
    p.add_argument("--second", default="random")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--concurrency", type=int, default=2)
    args = p.parse_args(argv)
    out = asyncio.run(head_to_head(args.url, args.kind, args.games, args.first, args.second, seed=args.seed,
                                   concurrency=args.concurrency))
    print(json.dumps(out))
    return 1 if out["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
