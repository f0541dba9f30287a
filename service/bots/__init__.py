"""Bots as API clients and the load generator: `stela bot`, `stela bot-worker` and `stela loadtest`.

Everything here talks to a running service over HTTP and SSE only, like any third-party client, through
the Python SDK (`clients/python`, package `stela_client`): no in-process shortcut (`client` the
SDK client with JSON-shaped answers for the strategies, `strategies` random and greedy —
greedy asks each kind's scorer, `domain/<kind>/bot.py` reached through the catalogue as
`Game.bot_scores`, to judge moves from the seat's own view and /legal only —, `play` one seat of one game, `bot` finding and playing games,
`loadtest` the generator, `runner` the worker that plays bots players ask for, `embedded` that worker
inside `stela serve`). The `stela` distribution ships the SDK package, so an installed Stela runs them.
`add_parsers` registers the subcommands on the `stela` parser.

The server never imports its clients (only the command line, which runs one beside it): this package
imports nothing of the service but itself and `service.ops` (and, outside the service, the SDK `stela_client`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys

from service.ops.arguments import key_values


def cmd_bot(args: argparse.Namespace) -> int:
    from stela_client import Client

    from service.bots.bot import Bot, Seeker
    from service.bots.client import ApiClient
    from service.bots.strategies import make_strategy

    async def run() -> int:
        async with Client(args.url, args.token) as sdk:
            api = ApiClient(sdk)
            seeker = None
            if args.join_open or args.create:
                seeker = Seeker(api, join_open=args.join_open, create=args.create, seats=args.seats,
                                options=key_values(args.option))
            strategy = make_strategy(args.strategy, args.seed)
            bot = Bot(api, strategy, player_id=args.player, seeker=seeker, games=args.games or None,
                      poll=args.poll)
            try:
                played = await bot.run()
            except ValueError as exc:
                print(str(exc), file=sys.stderr)
                return 2
            for game in played:
                print(json.dumps(game.__dict__))
            failed = sum(g.status == "error" for g in played)
            print(json.dumps({"strategy": strategy.name, "games": len(played), "won": sum(g.won for g in played),
                              "commands": sum(g.commands for g in played), "errors": failed}))
            return 1 if failed else 0

    return asyncio.run(run())


def cmd_bot_worker(args: argparse.Namespace) -> int:
    """`stela bot-worker`: play the bots players asked for (service.bots.runner), until interrupted."""
    import httpx

    from service.bots.runner import BotWorker

    async def run() -> int:
        async with httpx.AsyncClient(base_url=args.url, timeout=30.0) as http:
            await BotWorker(http, args.token, args.name, lease_seconds=args.lease_seconds, poll=args.poll).run()
        return 0

    try:
        return asyncio.run(run())
    except KeyboardInterrupt:
        return 0


def cmd_loadtest(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from service.bots.loadtest import Config, run

    clock = {"per_move_seconds": args.per_move_seconds} if args.per_move_seconds else {}
    config = Config(url=args.url, players=args.players, seats=args.seats, kind=args.kind, games=args.games,
                    concurrency=args.concurrency, options=key_values(args.option), seed=args.seed, mode=args.mode,
                    rounds=args.rounds, time_control=clock)
    console = Console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        out = asyncio.run(run(config, progress))
    for sample in out.pop("error_samples"):
        console.print(f"[red]error[/red] {sample}")
    print(json.dumps(out))
    return 1 if out["errors"] else 0


MODES = ("free", "tournament")  # the load generator's schedules (`service.bots.loadtest.MODES`)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register `stela bot`, `stela bot-worker` and `stela loadtest` on the `stela` parser. Nothing here
    imports the SDK or the commands' modules: every `stela` command parses its arguments without them."""
    s = sub.add_parser("bot", help="play this player's games over HTTP + SSE (random or greedy)")
    s.add_argument("--url", default="http://127.0.0.1:8000", help="the service's base URL")
    s.add_argument("--token", required=True, help="the player's bearer token")
    s.add_argument("--player", help="the player's id (found from the token when the service can tell)")
    s.add_argument("--strategy", choices=["random", "greedy"], default="random")
    s.add_argument("--games", type=int, default=1, help="stop after this many games ended (0: never)")
    s.add_argument("--seed", default=None, help="seed of the bot's choices")
    s.add_argument("--join-open", metavar="KIND", help="join open games of KIND when idle")
    s.add_argument("--create", metavar="KIND", help="create a game of KIND when idle (and none to join)")
    s.add_argument("--seats", type=int, default=2, help="seats of the games it creates")
    s.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="an option of created games")
    s.add_argument("--poll", type=float, default=3.0, help="seconds between looks for new games")
    s.set_defaults(fn=cmd_bot)
    s = sub.add_parser("bot-worker", help="play the bots players ask for (games and tournaments) over HTTP + SSE")
    s.add_argument("--url", default="http://127.0.0.1:8000", help="the service's base URL")
    s.add_argument("--token", default=os.environ.get("STELA_ADMIN_TOKEN"), help="the admin token (STELA_ADMIN_TOKEN)")
    s.add_argument("--name", default=socket.gethostname(), help="this worker's stable name (a restart resumes its bots)")
    s.add_argument("--lease-seconds", type=float, default=30.0, help="how long a bot stays leased unrenewed")
    s.add_argument("--poll", type=float, default=None,
                   help="seconds between lease asks: how long a new bot game may wait (default: a third of the lease)")
    s.set_defaults(fn=cmd_bot_worker)
    s = sub.add_parser("loadtest", help="N bot players play games over HTTP + SSE; prints throughput and latency")
    s.add_argument("--url", default="http://127.0.0.1:8000", help="the service's base URL")
    s.add_argument("--players", type=int, default=8)
    s.add_argument("--seats", type=int, default=2, help="seats per table")
    s.add_argument("--kind", default="coatl")
    s.add_argument("--games", type=int, default=8)
    s.add_argument("--concurrency", type=int, default=4, help="games played at once")
    s.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--mode", choices=sorted(MODES), default="free",
                   help="free games, or a Swiss tournament of every player")
    s.add_argument("--rounds", type=int, default=3, help="tournament rounds")
    s.add_argument("--per-move-seconds", type=int, default=0, help="a per-move clock on every game (0: none)")
    s.set_defaults(fn=cmd_loadtest)
