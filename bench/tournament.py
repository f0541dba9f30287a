"""Benchmark: a Swiss of N bot players at 4-seat tables over HTTP + SSE, against 1 or more replicas.

Each replica is a real process serving the app with the tournament service, its result runner
and the timeout worker started (`python -m bench.tournament serve`, `--workers` worker processes
each); players are spread over the replicas by httpx pool, 8 players a pool (Redis carries the
fan-out between processes). The bots are the load generator's tournament mode: each player follows
its personal stream and acts on "your turn". Prints wall time, commands/s, command latency p50/p99,
SSE delivery latency p50/p99, CPU milliseconds per command of the server processes, the bots and
the database's backends (the number that still means something on a shared machine), then
verifies every game and the pairings. `--short` (4 players, 2-seat tables, one round) is the
smoke run of `bench/run.py --short`.

    python -m bench.tournament                 # the issue's run: 1,000 players, 5 rounds, two replicas
    python -m bench.tournament --players 200 --rounds 3 --replicas 1
    python -m bench.tournament --think-ms 400   # bots that think: a load the machine can sustain
    python -m bench.tournament --players 10000 --rounds 1 --seats 2   # a 10,000-player field's first round

Beside the play it prints the steps before it (`sign_up_s`: every player signs up; `entries_s`: every player
enters; `streams_s`: every personal stream open; `start_s`: the start request, which pairs the first round and
writes its games in one transaction) and the memory each process held (`peak_rss_mib`: each replica's high-water
mark with its workers, the load generator's, and the database backends' own memory at the end of play).

Beside the whole run's command p99 it prints that of the commands sent in the minute after each round was paired
(`round_start_ms_p99`: the moment a round's games all start at once) and that of the rest (`steady_ms_p99`),
and their ratio (`round_start_vs_steady_p99`).

Bots that never think keep a request of every table queued at the server, so the mean command latency is
the number of tables over the throughput (Little's law: ~250 tables / ~1,050 commands/s = ~190 ms here),
however fast the server; `--think-ms` measures latency at a load below saturation instead.

Measured 2026-11-26 on the 2-core machine, quiet apart from this run (bots, servers, PostgreSQL and Redis
on the same two cores), 4-seat Coatl without sacrifice tokens, a 60 s per-move clock on every game:
- 1,000 players x 5 rounds (1,250 games), two replicas: 593.5 s, 383,777 commands, 646.6 commands/s,
  command p50 13.3 ms / p99 203 ms, "your turn" delivery p50 15.6 ms / p99 3.63 s; CPU per command:
  server 1.93 ms, bots 0.57 ms, database 0.50 ms; 1,250/1,250 games and the pairings verified, 0 errors.
- the same with one replica: 759.9 s, 385,857 commands, 507.8 commands/s, p50 52.3 ms / p99 2,042 ms,
  delivery p50 9.7 ms / p99 42.3 ms; CPU per command 1.79 / 0.74 / 0.56 ms; all verified, 0 errors.
Measured 2026-11-27 with pairing rule 3 and abandonment that lets multi-seat games go on, on the same machine
shared with six other sessions (load average 12-17 on 2 cores, this run under `nice -n 10`), so the times are
those of a crowded machine and the CPU per command is the number to compare:
- 200 players x 3 rounds (150 games), two replicas: 596.1 s, 45,812 commands, 76.8 commands/s, command
  p50 249 ms / p99 964 ms, "your turn" delivery p50 94 ms / p99 2.33 s; CPU per command: server 1.99 ms,
  bots 0.60 ms, database 0.84 ms; 150/150 games and the pairings verified, 0 errors.
- 1,000 players x 5 rounds (1,250 games), two replicas, the default run (load average 12-8 during it): 1,811.2 s,
  383,289 commands, 211.6 commands/s, command p50 307 ms / p99 2.93 s, "your turn" delivery p50 65 ms /
  p99 5.68 s; CPU per command: server 1.59 ms, bots 0.59 ms, database 0.74 ms; 1,250/1,250 games and the
  pairings verified, 0 errors.
- 1,000 players x 1 round (250 games), two replicas (load average 10-11): 414.8 s, 77,374 commands, 186.5
  commands/s, command p50 360 ms / p99 2.98 s, "your turn" delivery p50 71 ms / p99 3.03 s; CPU per command:
  server 1.72 ms, bots 0.65 ms, database 0.69 ms; 250/250 games and the pairings verified, 0 errors.
Measured 2026-11-27 (session 33), 200 players x 2 rounds, one replica, old and new taking turns, load average 5-10:
server CPU per command 2.00 / 2.00 ms before, 1.69 / 1.75 ms after the bots took each turn's legal commands
from their "your turn" notice (`?legal=true`; a third fewer requests) and Cóatl remembered its prophecy test.
`--profile` (CPU time) put a quarter of the server's CPU in Cóatl's `legal` and most of the rest in handling
the commands' requests; the personal hub and streams, Redis, the result runner and the timeouts about 10%.
Before the bots spoke aiohttp (`service.bots.aio`) they spent 2.2-2.8 ms of CPU a command in httpx, more
than the server, and the extrapolated 1,000 x 5 took ~19 minutes; before the personal hub's one-query
re-learn, the database spent 5.6 ms a command at 1,000 connected players.
Measured 2026-11-27 (session 35), the default run (1,000 players x 5 rounds, two replicas), old (2a7d656) and new
one after the other on the quiet machine (load 0.2-2.2): old 449.4 s, 856.9 commands/s, command p50 158 ms /
p99 1,010 ms, "your turn" delivery p50 25 ms / p99 246 ms, CPU per command server 1.25 / bots 0.49 / database
0.47 ms; new 392.7 s, 971.9 commands/s, p50 158 ms / p99 756 ms, delivery p50 14 ms / p99 155 ms, CPU 1.00 /
0.46 / 0.47 ms; 1,250/1,250 games and the pairings verified, 0 errors, both. (Budgets leased from Redis instead
of a call per request are not in it: the replicas run without rate limits. What is: the fan-out's one message
per round that never comes back to its sender, legal listings 3-7x cheaper, events decoded into their own type.)
Measured 2026-11-27 (session 36), the default run, old (e380c07) then new on the same machine, which ran the same
code half as fast as the day before (load 1.5-4.1, the run alone): old 760.8 s, 504.6 commands/s, command p50 313 ms /
p99 1,440 ms, delivery p50 26.5 ms / p99 258 ms, CPU per command server 1.97 / bots 0.88 / database 0.82 ms; new
700.5 s, 547.6 commands/s, p50 305 ms / p99 1,139 ms, delivery p50 24.9 ms / p99 291 ms, CPU 1.74 / 0.88 / 0.75 ms;
1,250/1,250 games and the pairings verified, 0 errors, both. (What changed: the result runners and the deadlines
model read only the events they handle, by a partial index, instead of every move of every game; a token whose
stream the revocation check finds working is not looked up again.)
Measured 2026-11-28 (session 38), the default run on the quiet machine (load 0.9-2.4), one after the other: before
(f997a8d) 362.5 s, 1,059.8 commands/s, command p50 151 ms / p99 627 ms, delivery p50 12.7 / p99 168 ms, CPU server
0.88 / bots 0.46 / database 0.41 ms; with the standings and revocation cuts (db65b30) 364.2 s, p99 604 ms, CPU
0.89 / 0.46 / 0.41 (no measurable change); with the load generator's memory settled (02b6cc4) 354.9 s, 1,086.5
commands/s, p50 122 ms / p99 962 ms, delivery p50 21.6 / p99 127 ms, CPU 0.98 / 0.34 / 0.43: the bots had spent a
quarter of their CPU in full collections of their heap and, pausing, held the load back; all verified, 0 errors.
Below saturation (`--think-ms`, 1,000 players, one round, 02b6cc4): 300 ms thinking, 588 commands/s, command p50
5.6 / p99 74.9 ms, delivery p50 1.8 / p99 26.3 ms, CPU 1.32 / 0.50 / 0.45 ms; 400 ms, 424 commands/s, p99 41.8 ms,
delivery p99 13.4 ms, CPU server 1.54 / bots 0.60 ms (before the memory fix, 400 ms: p99 94-126 ms in five runs,
12 of its 13 clusters of slow commands inside one of the load generator's ~170 ms collections, every ~11 s). The
server's CPU per command is lowest at saturation, where writes, publishes and loop turns are shared by many
commands.
Measured 2026-11-28 (session 39), the default run, old (c999cef) and new (00e6571: group commit, one fold a
command, the body read once) back to back on a machine running the old code a third faster than the day before
(load 2.3-4.0): old 231.6 s, 1,657.3 commands/s, command p50 85 / p99 553 ms, delivery p50 13.6 / p99 92.5 ms, CPU
server 0.62 / bots 0.23 / database 0.29 ms; new 159.9 s and 161.7 s, 2,396.7 and 2,383.4 commands/s, p50 74 /
p99 198 and 181 ms, delivery p50 10 / p99 66.6 and 65.6 ms, CPU 0.46 / 0.20 / 0.13 and 0.46 / 0.20 / 0.12 ms; all
verified, 0 errors. Below saturation (new, 1,000 players, one round, 200 ms thinking): 846.6 commands/s, p50 5.4 /
p99 56.6 ms, delivery p50 1.7 / p99 14.6 ms, CPU 0.91 / 0.35 / 0.33 ms.
Measured 2026-11-28 (session 40), the default run, old (a70c330) then new (029b918: a client's step answered before
the framework's router, Gold Mine's searches cached) on a machine running the old code half as fast as the day
before (load 1.0-3.1, the runs alone): old 307.1 s, 1,251.9 commands/s, command p50 141 / p99 421 ms, delivery p50
18.5 / p99 118 ms, CPU server 0.87 / bots 0.38 / database 0.22 ms; new 301.3 s, 1,277.0 commands/s, p50 132 / p99
521 ms, delivery p50 15.9 / p99 113 ms, CPU 0.80 / 0.37 / 0.22 ms; all verified, 0 errors. (A replica's profile,
400 players x 2 rounds: its request handling is now a bit over half its CPU; the rest is the personal streams,
the embedded projector, the result runner and the timeouts.)
Measured 2026-11-28 (session 42), 400 players x 2 rounds, one replica, old (e23b3b5) and new (fad8622: one group
statement of waiting appends in flight at a time) taking turns, load 0.5-2.1: old 58.7 / 63.8 s, 1,030 / 956
commands/s, p99 142 / 165 ms, server CPU 0.85 / 0.91 ms; new 66.2 / 59.1 s, 937 / 1,030 commands/s, p99 177 / 173
ms, 0.93 / 0.85 ms; no difference beyond the noise, except version conflicts: 838 / 770 old, 1,177 / 1,067 new
(an append that waits for the group in flight widens the window in which Cóatl's simultaneous seats go stale);
200/200 games verified, 0 errors, all four.
Measured 2026-11-30 (session 58; a fast machine: a bare loop of 2x10^7 additions in 1.0 s), each run alone, load
0.7-3.0: the default run 169.5 s of play, 2,280 commands/s, command p50 78 / p99 220 ms, delivery p99 66 ms, CPU
server 0.47 / bots 0.21 / database 0.10 ms; 1,000 players, one round, 200 ms thinking (two runs): p99 44.4 / 37.9 ms,
delivery p99 23.4 / 23.4 ms, server CPU 0.75 / 0.75 ms. A 10,000-player field, one round: before (5144c97, 2 seats,
session 57, a machine as fast) entries 215.8 s (each answered with the whole field so far), start 15.1 s (networkx
matching 4.75 s of it), play 959 s, server CPU 1.38 ms a command; after (entries answered with the player's entry,
rustworkx matching) at 2 seats entries 26.3 s, start 3.82 s, play 596.9 s, 835,516 commands, server CPU 0.80 ms,
5,000/5,000 games verified; at 4 seats entries 24.6 s, start 2.11 s, play 462.4 s, 763,448 commands, server CPU 0.67
ms, 2,500/2,500 verified; peak memory replicas 583 / 553 and 740 / 556 MiB, load generator 2,268 and 2,412 MiB,
database backends 705 and 595 MiB; 0 errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import contextlib
import os
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import asyncpg
import httpx
import psutil

from bench.common import REDIS_URL, scratch_database
from bench.http import BARE, cpu_seconds, process
from service.bots.loadtest import Config, Recorder, players_on, register, report, tournament
from service.commands.competition import verify_competition
from service.commands.verify import parse_ndjson, verify_log
from service.ops.memory import settle_memory
from testkit.live import free_port

OPTIONS = {"coatl": {"sacrifice_tokens": False}}
# every bot connects from this one address: no per-client stream cap or stream-opening budget
ONE_ADDRESS = {"STELA_MAX_STREAMS_PER_CLIENT": "0", "STELA_STREAM_RATE_LIMIT": "0"}


def create_app() -> Any:
    """The service app (it starts the tournament service, its result runner and the timeout worker)."""
    from service.edge.app import create_app as create

    return create()


@contextmanager
def replicas(dsn: str, count: int, workers: int = 1, profile: str | None = None) -> Iterator[list[tuple[str, int]]]:
    """`count` serving processes of `workers` workers each on one database and Redis; yields (URL, pid)s.
    With `profile`, replica i runs under cProfile and writes its stats to `profile`.i when stopped."""
    with contextlib.ExitStack() as stack:
        started = []
        for i in range(count):
            port = free_port()
            env = {"DATABASE_URL": dsn, "REDIS_URL": REDIS_URL, "STELA_PORT": str(port), "STELA_WORKERS": str(workers),
                   **BARE, **ONE_ADDRESS}
            args = [sys.executable, "-m", "bench.tournament", "serve"]
            if profile:
                args += ["--profile", f"{profile}.{i}"]
            started.append(stack.enter_context(process(args, env, f"http://127.0.0.1:{port}")))
        yield started


async def backend_pids(conn: asyncpg.Connection) -> list[int]:
    """The PostgreSQL backends serving the benchmark's database, `conn`'s own aside."""
    return [r[0] for r in await conn.fetch(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")]


async def database_cpu(conn: asyncpg.Connection) -> float:
    """CPU seconds so far of the PostgreSQL backends serving the benchmark's database (0 if not visible).

    `conn` is opened before the run: a new connection at the end may find the server's slots all taken."""
    return sum(cpu_seconds(pid) for pid in await backend_pids(conn) if psutil.pid_exists(pid))


def peak_rss_mib(pid: int) -> float | None:
    """The most resident memory (MiB) a process and its children (a replica's workers) have held so far: each
    one's high-water mark (VmHWM), summed; None where /proc does not say."""
    total = 0
    try:
        root = psutil.Process(pid)
        for proc in [root, *root.children(recursive=True)]:
            with open(f"/proc/{proc.pid}/status") as status:
                total += next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration, psutil.NoSuchProcess):
        return None
    return round(total / 1024, 1)


async def database_rss_mib(conn: asyncpg.Connection) -> float:
    """Resident memory (MiB) now of the PostgreSQL backends serving the benchmark's database, without their
    shared memory (each maps the same shared buffers, so summing their RSS would count it once per backend)."""
    total = 0
    for pid in await backend_pids(conn):
        with contextlib.suppress(psutil.Error):
            info = psutil.Process(pid).memory_info()
            total += info.rss - info.shared
    return round(total / 2**20, 1)


async def play(dsn: str, servers: list[tuple[str, int]], config: Config) -> dict[str, Any]:
    db = await asyncpg.connect(dsn)
    try:
        return await _measured(db, servers, config)
    finally:
        await db.close()


async def _measured(db: asyncpg.Connection, servers: list[tuple[str, int]], config: Config) -> dict[str, Any]:
    return await measured_competition(db, servers, config,
                                      lambda clients, recorder: tournament(config, clients, recorder, lambda: None),
                                      audit)


Drive = Callable[[list[Any], Recorder], Awaitable[Any]]
Audit = Callable[[httpx.AsyncClient, "str | None"], Awaitable[dict[str, Any]]]


async def measured_competition(db: asyncpg.Connection, servers: list[tuple[str, int]], config: Config, drive: Drive,
                               audit_: Audit) -> dict[str, Any]:
    """One competition of any format (`drive` runs it with the clients and a recorder) on `servers`: its
    report with each side's CPU per command, printed to stderr before `audit_` checks the competition."""
    async with players_on([u for u, _ in servers], config.players) as clients:
        recorder = Recorder()
        with recorder.phase("sign_up_s"):
            await register(clients, 16)
        settle_memory()  # the load generator's thousand players: no full collections pausing them all
        cpu = [sum(cpu_seconds(pid) for _, pid in servers), time.process_time(), await database_cpu(db)]
        start = time.perf_counter()
        await drive(clients, recorder)
        seconds = time.perf_counter() - start
        used = [sum(cpu_seconds(pid) for _, pid in servers) - cpu[0], time.process_time() - cpu[1],
                await database_cpu(db) - cpu[2]]
        out = report(config, recorder, seconds, sum(c.counters.throttled for c in clients))
        out["replicas"] = len(servers)
        commands = max(len(recorder.command_seconds), 1)
        out.update({f"cpu_ms_per_command_{who}": round(1000 * used[i] / commands, 2)
                    for i, who in enumerate(("server", "bots", "database"))})
        out["peak_rss_mib"] = {"replicas": [peak_rss_mib(pid) for _, pid in servers],
                               "bots": peak_rss_mib(os.getpid()), "database": await database_rss_mib(db)}
        print(json.dumps(out), file=sys.stderr)  # the measurement, before the (long) audit
        out.update(await audit_(clients[0].http, recorder.tournament_id))
        out["error_samples"] = recorder.errors[:3]
        return out


async def audit(http: httpx.AsyncClient, tid: str | None) -> dict[str, Any]:
    """Verify the tournament's pairings and every game's log."""
    from domain.catalog import GAMES

    view = (await http.get(f"/v1/tournaments/{tid}")).json()
    events = (await http.get(f"/v1/tournaments/{tid}/events")).json()["events"]
    ok_games = 0
    tables = [t for r in view["rounds"] for t in r["tables"]]
    for t in tables:
        log = parse_ndjson((await http.get(f"/v1/games/{t['game_id']}/export")).content)
        ok_games += verify_log(log, GAMES).ok
    return {"pairings_verified": verify_competition([(e["type"], e["data"]) for e in events]).ok,
            "games_verified": f"{ok_games}/{len(tables)}", "rounds_played": view["round"]}


async def main(args: argparse.Namespace) -> None:
    players, seats, rounds = (4, 2, 1) if args.short else (args.players, args.seats, args.rounds)
    config = Config(url="", players=players, seats=seats, kind=args.kind, mode="tournament", rounds=rounds,
                    concurrency=16, options=OPTIONS.get(args.kind, {}), seed=1,
                    time_control={"per_move_seconds": 60}, think=0.0 if args.short else args.think_ms / 1000)
    async with scratch_database() as dsn:
        with replicas(dsn, args.replicas, args.workers, args.profile) as servers:
            out = await play(dsn, servers, config)
    out["bench"], out["workers"], out["think_ms"] = "tournament", args.workers, config.think * 1000
    print(json.dumps(out))
    if out["errors"] or out["games_verified"] != f"{out['games']}/{out['games']}" or not out["pairings_verified"]:
        sys.exit(1)


def serve(profile: str | None) -> int:
    """A replica (the `serve` sub-command); with `profile`, under cProfile, its stats written there on stop."""
    from service.cli.serve import run
    from service.ops.settings import Settings

    if not profile:
        return run(Settings.from_env(), "bench.tournament:create_app")
    import cProfile
    import signal

    # uvicorn re-raises the SIGTERM it caught once it has shut down: exit through `finally` instead of dying
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    profiler = cProfile.Profile(time.process_time)  # CPU time: on a shared machine wall time counts waiting for a core
    try:
        return profiler.runcall(run, Settings.from_env(), "bench.tournament:create_app")
    finally:
        profiler.dump_stats(profile)


def competition_parser(doc: str, players: int, seats: int) -> argparse.ArgumentParser:
    """The options every competition benchmark takes (a format of rounds, the arena): the field, the
    replicas and their workers, the kind and the players a table."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--players", type=int, default=players)
    parser.add_argument("--replicas", type=int, default=2, help="serving processes")
    parser.add_argument("--workers", type=int, default=1, help="worker processes per replica (STELA_WORKERS)")
    parser.add_argument("--kind", default="coatl")
    parser.add_argument("--seats", type=int, default=seats, help="players per table")
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="each bot takes this long over each choice, give or take half (default 0: never thinks)")
    return parser


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        sys.exit(serve(sys.argv[3] if sys.argv[2:3] == ["--profile"] else None))
    parser = competition_parser(__doc__, players=1000, seats=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", metavar="FILE",
                        help="run each replica under cProfile (one worker); replica i writes its stats to FILE.i")
    parser.add_argument("--short", action="store_true",
                        help="4 players at 2-seat tables, one round: a smoke run of a few seconds")
    asyncio.run(main(parser.parse_args()))
