"""The `stela` command line: serve, simulate, export, verify, projector, projections, openapi."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

from domain.catalog import GAMES
from domain.simulate import play_random
from domain.table import SeedRevealed, Table
from service.bots import add_parsers as add_bot_commands
from service.cli.common import with_store
from service.cli.projections import add_commands
from service.cli.transparency import cmd_witness, log_problems
from service.ops.arguments import key_values
from service.ops.settings import Settings


def cmd_serve(args: argparse.Namespace) -> int:
    from service.cli.serve import run

    settings = Settings.from_env()
    if args.no_bots:
        settings = msgspec.structs.replace(settings, bots="off")
    return run(settings, host=args.host, port=args.port)


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.game not in GAMES:
        print(f"unknown game {args.game!r}; known: {', '.join(sorted(GAMES))}", file=sys.stderr)
        return 2
    game = GAMES[args.game]
    table = Table(game)
    options = key_values(args.option)
    counts = [args.players] if args.players else list(range(game.min_players, game.max_players + 1))
    errors = capped = commands = games = 0
    start = time.perf_counter()
    for i in range(args.games):
        players = counts[i % len(counts)]
        played = play_random(table, options, players, f"{args.seed}:{i}".encode(), alternatives=args.alternatives,
                             check_views=not args.fast, heuristic=args.bot == "weighted")
        games += 1
        commands += played.commands
        capped += played.capped or bool(played.outcome and played.outcome.details.get("capped"))
        if played.error:
            errors += 1
            if errors <= 10:
                print(f"game {i} ({players} players): {played.error}", file=sys.stderr)
    elapsed = time.perf_counter() - start
    print(json.dumps({"game": args.game, "games": games, "players": counts, "options": options, "bot": args.bot,
                      "errors": errors, "capped": capped, "commands": commands,
                      "seconds": round(elapsed, 2), "games_per_s": round(games / elapsed, 2),
                      "commands_per_s": round(commands / elapsed, 1)}))
    return 1 if errors else 0


def cmd_export(args: argparse.Namespace) -> int:
    async def run(store: Any) -> int:
        events = await store.read_stream(args.game_id)
        if not events:
            print(f"no game {args.game_id!r}", file=sys.stderr)
            return 1
        for event in events:
            sys.stdout.buffer.write(msgspec.json.encode(event) + b"\n")
        return 0

    return asyncio.run(with_store(run))


def cmd_verify(args: argparse.Namespace) -> int:
    from domain.tournament.competition import FORMATS
    from service.commands import verify as V
    from service.commands.competition import verify_competition
    from service.commands.repository import platform_event
    from service.commands.tournaments import verify_report

    if args.all:
        async def run(store: Any) -> list[Any]:
            reports, after = [], ""
            while ids := await store.stream_ids(after=after, limit=500):
                for game_id in ids:
                    events = await store.read_stream(game_id)
                    if game_id.split("-")[0] in FORMATS:  # a competition, verified once it has ended
                        if any(e.type.endswith(".SeedRevealed") for e in events):
                            reports.append(verify_competition([(e.type, e.data) for e in events]))
                    elif any(isinstance(platform_event(e), SeedRevealed) for e in events):
                        reports.append(V.verify_log(events, GAMES))
                after = ids[-1]
            return reports

        reports = asyncio.run(with_store(run))
        bad = [r for r in reports if not r.ok]
        for report in bad:
            print(msgspec.json.encode(report).decode())
        print(json.dumps({"verified": len(reports), "failed": len(bad)}))
        return 1 if bad else 0
    if not args.file and args.log:  # the whole transparency log audited against the service
        result = log_problems(args, None)
        print(json.dumps(result))
        return 1 if result["problems"] else 0
    if not args.file:
        print("verify needs a file (or --all, or --log)", file=sys.stderr)
        return 2
    text = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    document = _report_document(text)
    if document is not None:  # a tournament report (getTournamentReport): its log and what it claims
        problems = verify_report(document)
        if args.log:  # and its chain, and its creation, end and seed leaves proven in the transparency log
            try:
                stored = V.published_events(document["log"] or [])
            except ValueError as exc:
                stored, problems = [], [*problems, f"the report's log: {exc}"]
            if stored:
                problems += V.chain_problems(stored) + log_problems(args, stored)["problems"]
        print(json.dumps({"ok": not problems, "problems": problems}))
        return 0 if not problems else 1
    events = V.parse_ndjson(text)
    report = V.verify_log(events, GAMES)
    if args.log:  # and its creation, end and seed leaves proven in the transparency log
        report.problems += log_problems(args, events)["problems"]
        report.ok = not report.problems
    print(msgspec.json.encode(report).decode())
    return 0 if report.ok else 1


def _report_document(text: bytes) -> dict | None:
    """The file as a tournament report (one JSON object with its `log` and `standings`), else None."""
    try:
        document = json.loads(text)
    except ValueError:
        return None  # NDJSON: a game's log
    return document if isinstance(document, dict) and "log" in document and "standings" in document else None


def cmd_openapi(args: argparse.Namespace) -> int:
    from service.edge.openapi import render

    Path(args.out).write_text(render())
    print(f"wrote {args.out}")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="stela", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="run the API (and the embedded projector and bot worker)")
    s.add_argument("--host")
    s.add_argument("--port", type=int)
    s.add_argument("--no-bots", action="store_true",
                   help="run no bot worker in process (STELA_BOTS=off): `stela bot-worker` plays the bots")
    s.set_defaults(fn=cmd_serve)
    s = sub.add_parser("simulate", help="play random legal games in process")
    s.add_argument("--game", required=True)
    s.add_argument("--games", type=int, default=100)
    s.add_argument("--seed", default="1")
    s.add_argument("--players", type=int)
    s.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    s.add_argument("--alternatives", type=int, default=1, help="extra legal commands tried per step")
    s.add_argument("--fast", action="store_true", help="skip serialising every view and redacted event")
    s.add_argument("--bot", choices=["weighted", "uniform"], default="weighted",
                   help="weighted: the game's bot_weights bias the random choice (if it has them)")
    s.set_defaults(fn=cmd_simulate)
    s = sub.add_parser("export", help="print a game's full log as NDJSON")
    s.add_argument("game_id")
    s.set_defaults(fn=cmd_export)
    s = sub.add_parser("verify", help="check a log's hash chain, seed and every decision (or a tournament report)")
    s.add_argument("file", nargs="?", help="an NDJSON export, or - for stdin")
    s.add_argument("--all", action="store_true", help="verify every finished game in the database")
    s.add_argument("--log", metavar="URL", help="prove the export's (or the report's) leaves in the service's "
                                                "transparency log (without a file: audit the whole log against the "
                                                "service)")
    s.add_argument("--log-key", help="the log's verifier key (default: the one the service publishes)")
    s.add_argument("--checkpoint", metavar="FILE", help="a signed checkpoint to prove against (default: the newest)")
    s.add_argument("--witness", action="append", default=[], metavar="KEY",
                   help="a witness's verifier key (type 0x04, the witness_key `stela witness` prints): the checkpoint "
                        "must carry its cosignature (repeatable)")
    s.add_argument("--witnesses", type=int, metavar="N",
                   help="how many of the --witness keys must have cosigned the checkpoint (default: all of them)")
    s.set_defaults(fn=cmd_verify)
    s = sub.add_parser("witness", help="witness the transparency log: check, cosign and submit each new checkpoint")
    s.add_argument("url")
    s.add_argument("--key", default="witness.key", help="the witness's Ed25519 key file (generated if missing)")
    s.add_argument("--name", default="witness.example/stela", help="the witness's key name, for a new key")
    s.add_argument("--state", default="witness.json", help="where the last checkpoint seen is kept")
    s.add_argument("--log-key", help="the log's verifier key (default: the service's, trusted on first use)")
    s.add_argument("--every", type=float, default=0, help="seconds between rounds (0: one round)")
    s.set_defaults(fn=cmd_witness)
    s = sub.add_parser("openapi", help="write the OpenAPI document generated from the app")
    s.add_argument("--out", default="openapi/openapi.json")
    s.set_defaults(fn=cmd_openapi)
    add_commands(sub)
    add_bot_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    from service.ops import logging as stela_logging

    args = parser().parse_args(argv)
    stela_logging.configure(Settings.from_env().log_level)  # JSON lines on stderr: stdout is for data
    return int(args.fn(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
