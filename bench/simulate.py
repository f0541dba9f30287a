"""Rules speed: random legal games per kind in process (games/s, commands/s), no I/O."""

from __future__ import annotations

import argparse
import json
import time

from domain.catalog import GAMES
from domain.simulate import play_random
from domain.table import Table


def main(short: bool) -> None:
    games = 4 if short else 100
    for kind, game in sorted(GAMES.items()):
        table = Table(game)
        commands = errors = 0
        start = time.perf_counter()
        for i in range(games):
            players = game.min_players + i % (game.max_players - game.min_players + 1)
            played = play_random(table, {}, players, f"bench:{i}".encode(), alternatives=0, check_views=False)
            commands += played.commands
            errors += played.error is not None
        elapsed = time.perf_counter() - start
        print(json.dumps({"bench": "simulate", "kind": kind, "games": games, "errors": errors,
                          "games_per_s": round(games / elapsed, 2), "commands_per_s": round(commands / elapsed, 1)}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    main(parser.parse_args().short)
