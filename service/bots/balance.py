"""Seat balance: one strategy in every seat, many games; each seat's win rate and a 95 % interval.

`python -m service.bots.balance --kind tikal --seats 2 --games 1000 --strategy greedy --jobs 2` plays
the games in process (`headtohead.play_in_process`: the kind's decider driven directly, each seat
deciding from its own view and legal commands as the JSON the API sends) and prints one JSON line per
seat count: per seat, the games it was among the winners (a shared win counts for every winner), its
rate, the Wilson 95 % interval, and the fair share (winning seat-places over seats). A seat whose
interval lies wholly above the fair share wins more than its share beyond noise.

Game `i` of a batch always has the same seed (`balance/<seed>/<i>`) and the same bots, so a batch
gives the same numbers whatever `--jobs` spreads it over (worker processes, each a share of the games).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from service.bots.headtohead import play_in_process, wilson
from service.bots.strategies import make_strategy


def play_games(kind: str, seats: int, strategy: str, options: dict[str, Any] | None, seed: int,
               indices: list[int]) -> list[tuple[int, list[int] | None, int]]:
    """Games `indices` of a batch: (index, winners or None when the game stalled, commands played)."""
    out: list[tuple[int, list[int] | None, int]] = []
    for index in indices:
        strategies = [make_strategy(strategy, f"{seed}:{index}:{seat}") for seat in range(seats)]
        try:
            outcome, commands = play_in_process(kind, strategies, f"balance/{seed}/{index}".encode(), options)
        except RuntimeError as exc:  # a stalled game is counted, the batch goes on
            print(f"{kind} {seats} {strategy} game {index}: {exc}", file=sys.stderr)
            out.append((index, None, 0))
            continue
        out.append((index, list(outcome["winners"]), commands))
    return out


def seat_balance(kind: str, seats: int, games: int, strategy: str = "greedy",
                 options: dict[str, Any] | None = None, seed: int = 1, jobs: int = 1) -> dict[str, Any]:
    """`games` games of `kind` at `seats` seats, `strategy` in every seat; wins per seat and intervals."""
    started = time.perf_counter()
    indices = list(range(games))
    if jobs <= 1:
        results = play_games(kind, seats, strategy, options, seed, indices)
    else:
        chunks = [indices[i:i + 10] for i in range(0, games, 10)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(play_games, kind, seats, strategy, options, seed, chunk) for chunk in chunks]
            results = [game for future in futures for game in future.result()]
    return summary(kind, seats, strategy, options, results, time.perf_counter() - started)


def summary(kind: str, seats: int, strategy: str, options: dict[str, Any] | None,
            results: list[tuple[int, list[int] | None, int]], seconds: float) -> dict[str, Any]:
    """The batch's line: wins, rates and intervals per seat over the games that ended."""
    wins, places = [0] * seats, 0
    ended = [winners for _, winners, _ in results if winners is not None]
    for winners in ended:
        for seat in winners:
            wins[seat] += 1
        places += len(winners)
    decided = len(ended)
    fair = round(places / decided / seats, 3) if decided else None
    return {"kind": kind, "options": options or {}, "seats": seats, "strategy": strategy, "games": len(results),
            "errors": len(results) - decided, "stalled": [i for i, w, _ in results if w is None],
            "fair_share": fair, "seat_wins": wins,
            "seat_rates": [round(w / decided, 3) if decided else None for w in wins],
            "ci95": [wilson(w, decided) for w in wins],
            "commands": sum(c for _, _, c in results), "seconds": round(seconds, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m service.bots.balance", description=__doc__)
    p.add_argument("--kind", default="tikal")
    p.add_argument("--seats", default="2", help="one count or several, comma-separated")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--strategy", default="greedy")
    p.add_argument("--options", default="{}", help="the table's options as JSON")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="worker processes (the games are shared out)")
    args = p.parse_args(argv)
    for seats in (int(s) for s in args.seats.split(",")):
        print(json.dumps(seat_balance(args.kind, seats, args.games, args.strategy, json.loads(args.options),
                                      args.seed, args.jobs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
