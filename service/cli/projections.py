"""CLI commands of the read side: `stela projector`, `stela projections rebuild|status`."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from typing import Any

from projections.catalog import PROJECTIONS, select


def _names(args: argparse.Namespace) -> list[str] | None:
    unknown = [n for n in args.names if n not in PROJECTIONS]
    if unknown:
        print(f"unknown projection {unknown[0]!r}; known: {', '.join(PROJECTIONS)}", file=sys.stderr)
        return None
    return args.names


def _run(fn: Any) -> Any:
    from service.cli.common import with_store
    from service.ops import logging as stela_logging
    from service.ops.settings import Settings

    stela_logging.configure(Settings.from_env().log_level)
    return asyncio.run(with_store(fn))


def cmd_projector(args: argparse.Namespace) -> int:
    from service.container import open_projector
    from service.ops import logging as stela_logging
    from service.ops.settings import Settings

    names = _names(args)
    if names is None:
        return 2

    async def run() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        async with open_projector(settings, select(names), args.batch, args.max_batch):
            await stop.wait()
        return 0

    settings = Settings.from_env()
    stela_logging.configure(settings.log_level)
    return asyncio.run(run())


def cmd_rebuild(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    names = _names(args)
    if names is None:
        return 2

    async def run(store: Any) -> int:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Progress(*columns, transient=False) as bar:
            for projection in select(names):
                task = bar.add_task(projection.name, total=None)
                done = await store.rebuild(projection, args.batch,
                                           lambda n, total, t=task: bar.update(t, completed=n, total=total))
                bar.update(task, completed=done.events, total=done.events)
                bar.console.print(f"{done.name}: {done.events} events in {done.seconds:.2f} s "
                                  f"({done.events / max(done.seconds, 1e-9):.0f} events/s), swapped in")
        return 0

    return _run(run)


def cmd_status(args: argparse.Namespace) -> int:
    async def run(store: Any) -> int:
        print(json.dumps(await store.projection_lag(list(PROJECTIONS))))
        return 0

    return _run(run)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register the read-side subcommands on the `stela` parser."""
    s = sub.add_parser("projector", help="run the projector (leader per read model by advisory lock)")
    s.add_argument("names", nargs="*", metavar="NAME", help=f"projections to run (default all: {', '.join(PROJECTIONS)})")
    s.add_argument("--batch", type=int, default=500, help="events per transaction while keeping up")
    s.add_argument("--max-batch", type=int, default=4000,
                   help="events per transaction while catching up (batches double up to it)")
    s.set_defaults(fn=cmd_projector)
    p = sub.add_parser("projections", help="manage read models")
    psub = p.add_subparsers(dest="action", required=True)
    s = psub.add_parser("rebuild", help="replay the whole log into fresh tables and swap them in")
    s.add_argument("names", nargs="*", metavar="NAME", help="projections to rebuild (default all)")
    s.add_argument("--batch", type=int, default=5000, help="events per transaction")
    s.set_defaults(fn=cmd_rebuild)
    s = psub.add_parser("status", help="print each projection's lag as JSON")
    s.set_defaults(fn=cmd_status, names=[])
