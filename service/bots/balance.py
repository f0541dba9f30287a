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
from pathlib import Path
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
    if jobs <= 1:
        results = play_games(kind, seats, strategy, options, seed, list(range(games)))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(play_games, kind, seats, strategy, options, seed, chunk)
                       for chunk in _chunks(range(games))]
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
            "fair_share": fair, "places": places, "seat_wins": wins,
            "seat_rates": [round(w / decided, 3) if decided else None for w in wins],
            "ci95": [wilson(w, decided) for w in wins],
            "commands": sum(c for _, _, c in results), "seconds": round(seconds, 1)}


GRID: list[tuple[str, list[int], dict[str, Any]]] = [
    ("tikal", [2, 3, 4], {}), ("coatl", [2, 3, 4], {}), ("tobago", [2, 3, 4], {}),
    ("goldmine", [2, 3, 4, 5, 6], {}), ("goldmine", [4], {"alliances": True})]


def grid(out: Path, games: int, batch: int, strategies: list[str], jobs: int, seed: int = 1) -> None:
    """Every kind and seat count of `GRID` with each strategy, `batch` games of each row in turn, so
    that every row grows evenly; one line per row and batch appended to `out` (its `start` is the
    batch's first game). Batches `out` already holds are skipped, so a stopped grid resumes."""
    rows = [(kind, seats, options, strategy) for kind, counts, options in GRID for seats in counts
            for strategy in strategies]
    done: dict[tuple[Any, ...], list[range]] = {}
    for line in _lines(out):
        done.setdefault(_row_key(line), []).append(range(line.get("start", 0), line.get("start", 0) + line["games"]))
    with ProcessPoolExecutor(max_workers=max(jobs, 1)) as pool:
        for start in range(0, games, batch):
            todo = [row for row in rows if not any(start in held and min(start + batch, games) - 1 in held
                                                   for held in done.get(_row_key(_line_of(row)), []))]
            futures = [(row, [pool.submit(play_games, row[0], row[1], row[3], row[2], seed, chunk)
                              for chunk in _chunks(range(start, min(start + batch, games)))]) for row in todo]
            for (kind, seats, options, strategy), parts in futures:
                started = time.perf_counter()
                results = [game for part in parts for game in part.result()]
                line = summary(kind, seats, strategy, options, results, time.perf_counter() - started)
                with out.open("a") as file:
                    file.write(json.dumps({**line, "start": start}) + "\n")


def _chunks(indices: range, size: int = 10) -> list[list[int]]:
    return [list(indices[i:i + size]) for i in range(0, len(indices), size)]


def _line_of(row: tuple[str, int, dict[str, Any], str]) -> dict[str, Any]:
    return {"kind": row[0], "seats": row[1], "options": row[2], "strategy": row[3]}


def _row_key(line: dict[str, Any]) -> tuple[Any, ...]:
    return (line["kind"], json.dumps(line["options"], sort_keys=True), line["seats"], line["strategy"])


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text().splitlines() if text.strip()] if path.exists() else []


def table(path: Path) -> str:
    """The markdown table of docs/balance.md from a grid's lines: batches of one row are summed."""
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    for line in _lines(path):
        row = rows.setdefault(_row_key(line), {"games": 0, "errors": 0, "places": 0, "wins": [0] * line["seats"]})
        row["games"] += line["games"]
        row["errors"] += line["errors"]
        row["places"] += line.get("places", sum(line["seat_wins"]))
        row["wins"] = [a + b for a, b in zip(row["wins"], line["seat_wins"])]
    strategies = {key[3] for key in rows}
    if len(strategies) > 1:  # each kind and seat count over all its games, whichever bot played them
        for (kind, options, seats, _), row in list(rows.items()):
            both = rows.setdefault((kind, options, seats, "all bots"),
                                   {"games": 0, "errors": 0, "places": 0, "wins": [0] * seats})
            for name in ("games", "errors", "places"):
                both[name] += row[name]
            both["wins"] = [a + b for a, b in zip(both["wins"], row["wins"])]
    out = ["| kind | seats | bot | games | fair share | seat win rates (95 % Wilson interval) | beyond noise |",
           "|---|---|---|---|---|---|---|"]
    for (kind, options, seats, strategy), row in sorted(rows.items()):
        decided = row["games"] - row["errors"]
        fair = row["places"] / decided / seats
        cells, beyond = [], []
        for seat, wins in enumerate(row["wins"]):
            low, high = wilson(wins, decided) or (0.0, 1.0)
            cells.append(f"{seat}: {wins / decided:.3f} [{low:.3f}, {high:.3f}]")
            if low > fair or high < fair:
                beyond.append(f"seat {seat} {'above' if low > fair else 'below'}")
        name = kind + (" " + " ".join(k for k, v in json.loads(options).items() if v) if options != "{}" else "")
        games = f"{decided}" + (f" (+{row['errors']} stalled)" if row["errors"] else "")
        out.append(f"| {name} | {seats} | {strategy} | {games} | {fair:.3f} | {'; '.join(cells)} | "
                   f"{', '.join(beyond) or '—'} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m service.bots.balance", description=__doc__)
    p.add_argument("--kind", default="tikal")
    p.add_argument("--seats", default="2", help="one count or several, comma-separated")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--strategy", default="greedy", help="one strategy, or several comma-separated with --grid")
    p.add_argument("--options", default="{}", help="the table's options as JSON")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="worker processes (the games are shared out)")
    p.add_argument("--grid", type=Path, help="play every kind and seat count, appending batches to this file")
    p.add_argument("--batch", type=int, default=100, help="games per row and batch with --grid")
    p.add_argument("--table", type=Path, help="print the markdown table of a --grid file and stop")
    args = p.parse_args(argv)
    if args.table:
        print(table(args.table))
        return 0
    if args.grid:
        grid(args.grid, args.games, args.batch, args.strategy.split(","), args.jobs, args.seed)
        return 0
    for seats in (int(s) for s in args.seats.split(",")):
        print(json.dumps(seat_balance(args.kind, seats, args.games, args.strategy, json.loads(args.options),
                                      args.seed, args.jobs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
