"""Two strategies play each other; prints each one's wins and a 95 % interval (the greedy-vs-random check).

`python -m service.bots.headtohead --url URL --kind coatl --games 20` registers one player per
strategy, alternates who takes the first seat, plays every game over HTTP + SSE with `SeatPlayer`s
and counts a game as a strategy's win when only its seat is among the winners (shared wins are draws).
`--in-process` plays the same match on the domain directly, hundreds of games a minute: each seat
gets exactly what the API would send it (its own view and its legal commands, as JSON) and nothing else.
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
import msgspec

from service.bots.client import ApiClient
from service.bots.play import SeatPlayer
from service.bots.strategies import GreedyStrategy, Strategy, make_strategy

Z95 = 1.959963984540054


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a win rate (draws count half in `wins`); None without games."""
    if n <= 0:
        return None
    p = wins / n
    centre, half = p + z * z / (2 * n), z * ((p * (1 - p) + z * z / (4 * n)) / n) ** 0.5
    return (round((centre - half) / (1 + z * z / n), 3), round((centre + half) / (1 + z * z / n), 3))


def tally(kind: str, games: int, wins: dict[str, int], first: str) -> dict[str, Any]:
    """The match's summary: wins, draws, errors, `first`'s win rate (draws half) and its 95 % interval."""
    decided = games - wins["errors"]
    score = wins[first] + wins["draws"] / 2
    return {"kind": kind, "games": games, **wins, f"{first}_win_rate": round(score / decided, 3) if decided else None,
            "ci95": wilson(score, decided)}


def play_in_process(kind: str, strategies: list[Strategy], seed: bytes, options: dict[str, Any] | None = None,
                    max_commands: int = 50_000) -> tuple[dict[str, Any], int]:
    """One game on the domain, seat i played by `strategies[i]`; its outcome (as JSON) and command count.

    Every decision sees only what `GET /v1/games/{id}` (the seat's view) and `/legal` would return, as
    JSON decoded from the bytes the API would send.
    The game's own decider is driven directly (decide, evolve, outcome), as the platform's `Table` would
    with the same seed and stream versions; a strategy that reads nothing (`reads = False`, random)
    gets only the number of commands, so no view or JSON is built for it.
    """
    from domain.catalog import GAMES
    from domain.kernel import Rng
    from domain.simulate import start_table
    from domain.table import Table

    game = GAMES[kind]
    started, _ = start_table(Table(game), options, len(strategies), seed)
    state, version, secret = started.game, started.version, bytes.fromhex(started.seed)
    commands = 0
    while (outcome := game.outcome(state)) is None:
        if commands >= max_commands:
            raise RuntimeError(f"{kind}: no end after {commands} commands")
        seat = min(game.to_act(state))
        legal = game.legal(state, seat)
        command = legal[_choice(game, state, strategies[seat], seat, legal)]
        for event in game.decide(state, seat, command, Rng(secret, version)):
            state = game.evolve(state, event)
            version += 1
        commands += 1
    return msgspec.to_builtins(outcome), commands


def _choice(game: Any, state: Any, strategy: Strategy, seat: int, legal: list[Any]) -> int:
    """The index in `legal` of `strategy`'s choice, from the seat's view and legal commands as JSON."""
    if not getattr(strategy, "reads", True):
        return strategy.pick(len(legal))  # type: ignore[attr-defined]
    wire = msgspec.json.decode(msgspec.json.encode(legal))  # the JSON the wire carries (lists, string keys)
    view = msgspec.json.decode(msgspec.json.encode(game.view(state, seat)))
    chosen = strategy.decide(view, seat, wire)
    for index, command in enumerate(wire):
        if command is chosen:
            return index
    if chosen in wire:
        return wire.index(chosen)
    raise AssertionError(f"{strategy.name} chose a command /legal did not offer: {chosen}")


def match_in_process(kind: str, games: int, first: str = "greedy", second: str = "random",
                     options: dict[str, Any] | None = None, seed: int = 1) -> dict[str, Any]:
    """`games` two-seat games of `kind` on the domain, seats alternated; the tally as `head_to_head` gives."""
    wins = {first: 0, second: 0, "draws": 0, "errors": 0}
    commands, started = 0, time.perf_counter()
    for index in range(games):
        order = [first, second] if index % 2 == 0 else [second, first]
        strategies = [make_strategy(name, f"{seed}:{index}:{name}") for name in order]
        outcome, played = play_in_process(kind, strategies, f"{seed}/{index}".encode(), options)
        commands += played
        winners = outcome["winners"]
        wins[order[winners[0]] if len(winners) == 1 else "draws"] += 1
    return {**tally(kind, games, wins, first), "commands": commands,
            "seconds": round(time.perf_counter() - started, 1)}


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
    return {**tally(kind, games, wins, first), "commands": commands, "greedy_blind_choices": blind,
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
    p.add_argument("--in-process", action="store_true", help="play on the domain directly, without a server")
    args = p.parse_args(argv)
    if args.in_process:
        for kind in args.kind.split(","):
            print(json.dumps(match_in_process(kind, args.games, args.first, args.second, seed=args.seed)), flush=True)
        return 0
    out = asyncio.run(head_to_head(args.url, args.kind, args.games, args.first, args.second, seed=args.seed,
                                   concurrency=args.concurrency))
    print(json.dumps(out))
    return 1 if out["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
