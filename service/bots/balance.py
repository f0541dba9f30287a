"""Seat balance: one strategy in every seat, many games; each seat's win rate and a 95 % interval.

`python -m service.bots.balance --kind tikal --seats 2 --games 1000 --strategy greedy` plays the games
in process (as `headtohead --in-process` does: each seat decides from its own view and legal commands
as JSON) and prints one JSON line: per seat, the games it was among the winners (a shared win counts
for every winner), its rate, the Wilson 95 % interval, and the fair share (winning seat-places over
seats). A seat whose interval lies wholly above the fair share wins more than its share beyond noise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from service.bots.headtohead import play_in_process, wilson
from service.bots.strategies import make_strategy


def seat_balance(kind: str, seats: int, games: int, strategy: str = "greedy",
                 options: dict[str, Any] | None = None, seed: int = 1) -> dict[str, Any]:
    """`games` games of `kind` at `seats` seats, `strategy` in every seat; wins per seat and intervals."""
    wins, places, errors, started = [0] * seats, 0, 0, time.perf_counter()
    for index in range(games):
        strategies = [make_strategy(strategy, f"{seed}:{index}:{seat}") for seat in range(seats)]
        try:
            outcome, _ = play_in_process(kind, strategies, f"balance/{seed}/{index}".encode(), options)
        except RuntimeError as exc:  # a stalled game is counted, the batch goes on
            print(f"game {index}: {exc}", file=sys.stderr)
            errors += 1
            continue
        for seat in outcome["winners"]:
            wins[seat] += 1
        places += len(outcome["winners"])
    decided = games - errors
    fair = round(places / decided / seats, 3) if decided else None
    return {"kind": kind, "options": options or {}, "seats": seats, "strategy": strategy, "games": games,
            "errors": errors, "fair_share": fair,
            "seat_wins": wins, "seat_rates": [round(w / decided, 3) if decided else None for w in wins],
            "ci95": [wilson(w, decided) for w in wins], "seconds": round(time.perf_counter() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m service.bots.balance", description=__doc__)
    p.add_argument("--kind", default="tikal")
    p.add_argument("--seats", default="2", help="one count or several, comma-separated")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--strategy", default="greedy")
    p.add_argument("--options", default="{}", help="the table's options as JSON")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    for seats in (int(s) for s in args.seats.split(",")):
        print(json.dumps(seat_balance(args.kind, seats, args.games, args.strategy, json.loads(args.options),
                                      args.seed)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
