"""Listing legal commands, in process: µs of CPU per `legal` call and per command played, by kind.

What a client's step costs the server beyond the command itself is mostly the legal listing it
reads (`GET /legal`, `include=legal`, a "your turn" notice with its commands): issue 29 measured
it at 3-6 times the cost of deciding and folding a command. Each kind is played from fixed seeds
with the bots' weighted random choice (the same games every run), listing the legal commands of
the seat to act before every command; every round replays those games and times the listings
and the commands apart (process CPU time, steadier than wall time on a shared machine). Printed
per kind and seat count: the median round's µs per listing, the commands listed on average, and
µs per command played (decide and fold), as JSON lines.

    python -m bench.legal [--short] [--kind tikal] [--rounds 5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from typing import Any

from domain.catalog import GAMES
from domain.kernel import Rng
from domain.simulate import pick, start_table
from domain.table import Table

CASES = [("tikal", 2), ("tikal", 4), ("coatl", 2), ("coatl", 4), ("tobago", 2), ("tobago", 4),
         ("goldmine", 2), ("goldmine", 4)]


def games(kind: str, seats: int, count: int) -> list[list[tuple[Any, int]]]:
    """`count` games of `kind`: the (state, seat to act) before each command, and each game's commands."""
    table = Table(GAMES[kind])
    played = []
    for g in range(count):
        seed = hashlib.sha256(f"bench.legal/{kind}/{seats}/{g}".encode()).digest()
        state, _ = start_table(table, {}, seats, seed)
        bot, weigh = Rng(seed + b"/bot", 0), table.game.bot_weights
        steps = []
        while state.status == "active":
            seat = min(table.to_act(state))
            legal = table.legal(state, seat)
            command = pick(bot, legal, weigh(state.game, seat, legal) if weigh else None)
            steps.append((state, seat, command))
            state = table.fold(table.play(state, seat, command), state)
        played.append(steps)
    return played


def measure(kind: str, seats: int, count: int, rounds: int) -> dict[str, Any]:
    table = Table(GAMES[kind])
    played = [step for game in games(kind, seats, count) for step in game]
    listing, playing, listed = [], [], 0
    for _ in range(rounds):
        start = time.process_time()
        for state, seat, _command in played:
            listed += len(table.legal(state, seat))
        middle = time.process_time()
        for state, seat, command in played:
            table.fold(table.play(state, seat, command), state)
        end = time.process_time()
        listing.append((middle - start) / len(played))
        playing.append((end - middle) / len(played))
    return {"bench": "legal", "kind": kind, "seats": seats, "listings": len(played),
            "us_per_listing": round(statistics.median(listing) * 1e6, 1),
            "commands_per_listing": round(listed / rounds / len(played), 1),
            "us_per_command_played": round(statistics.median(playing) * 1e6, 1)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--kind", help="one kind only")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for kind, seats in CASES:
        if args.kind in (None, kind):
            print(json.dumps(measure(kind, seats, 1 if args.short else 6, 1 if args.short else args.rounds)),
                  flush=True)
