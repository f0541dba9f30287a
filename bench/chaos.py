"""The fault suite: real games on N replicas and a projector while the servers under them fail.

`python -m bench.chaos [--short]` starts its own PostgreSQL and Redis (bench.chaos_cluster; never the
machine's shared ones), N `stela serve` replicas with the projector off and one `stela projector`,
and bots playing the four kinds over HTTP (bench.chaos_bots: Idempotency-Key on every POST, retried
with the same key on connection errors, 5xx and 429): game loops without a clock, and one loop per
kind on a 2-second per-move clock whose seats now and then wait out their deadline, so the timeout
worker plays for them; and a Swiss tournament and an arena on one-second clocks (bench.chaos_compete).
Every game is followed on its SSE stream (bench.chaos_watch). While they
play, it injects, in a shuffled order: kill -9 of a replica (a new one takes its place), kill -9 of
the projector (restarted at once, so the next fault may hit its start-up), PostgreSQL stopped with
`-m immediate` then started, Redis killed then restarted, Redis frozen (SIGSTOP) then thawed
(SIGCONT), a session left idle in a transaction that holds an xid, and a start during an outage
(PostgreSQL stopped, then a replica and the projector killed and started again while it is down:
they must wait for it). After each fault it waits for
the fleet to answer again and for new commands to be acknowledged, and notes a projector that ended
by itself. Then the game loops stop and their followers catch up while the competitions end (the
arena's minutes are the short mode's floor), the log goes quiet (the timeout worker plays out the
clocked games left), the projector catches up, and the checks of bench.chaos_checks and
bench.chaos_watch run (`stela verify --all` beside the others).

Printed as JSON lines like the other benches: one per fault, then the totals (`acknowledged`,
`lost`, `duplicated`, `forked`, `unacknowledged_commits`, `http_500`, `timeouts_fired`,
`sse_events_checked`, `tracebacks`, ...). Exit status 1 when any check fails. The run's folder
(the clusters' data and every server's log) is kept when a check fails or the run crashes, and
always with `STELA_CHAOS_KEEP=1`; its path is printed on stderr. `--short` (CI): 2 replicas, one
game loop of each kind plus the clocked ones, each fault once (the plain replica and projector kills
left to the start during an outage, which does both). The full mode: 3 replicas, three
loops of each kind plus the clocked ones, every fault three times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec

from bench import chaos_checks as checks
from bench import chaos_compete as compete
from bench.chaos_bots import KINDS, Client, Ledger, Pace, play
from bench.chaos_watch import Follower, early_endings, outages, settle, sse_findings, tracebacks
from bench.chaos_cluster import Fleet, Postgres, Projector, Redis, wait_until, workdir

FAULTS = ["replica_kill", "projector_kill", "postgres_immediate", "redis_kill", "redis_hang", "idle_in_transaction",
          "start_during_outage"]
# the CI mode's faults: `start_during_outage` kills -9 and restarts a replica and the projector as well
SHORT_FAULTS = [f for f in FAULTS if f not in ("replica_kill", "projector_kill")]


class Chaos:
    """The running cluster and the faults it can suffer."""

    def __init__(self, root: Path, replicas: int, rnd: random.Random, outage: float) -> None:
        self.root, self.rnd, self.outage = root, rnd, outage
        started: list[Any] = []  # what to stop, last first, should a later start fail
        try:
            self.pg = Postgres(root)
            self.pg.start()
            started.append(lambda: self.pg.stop("fast"))
            self.redis = Redis(root)
            self.redis.start()
            started.append(self.redis.stop)
            self.fleet = Fleet(self.pg.dsn, self.redis.url, replicas)
            started.append(lambda: [r.stop() for r in self.fleet.replicas])
            self.projector = Projector(self.pg.dsn, root / "projector.log")
            self.projector.start()
        except BaseException:
            for stop in reversed(started):
                _tried(stop)
            raise
        self.projector_exits: list[str] = []  # a projector that ended by itself (it must wait out any fault)

    def inject(self, fault: str) -> dict[str, Any]:
        """One fault, from the blow to the recovery (blocking: run it in a thread)."""
        began = time.monotonic()
        if fault == "replica_kill":
            self.fleet.kill_one(self.rnd)
        elif fault == "projector_kill":
            wait_until(self.projector.alive, "the projector is not running", 30)
            self.projector.kill()
            self.projector.start()
        elif fault == "postgres_immediate":
            self.pg.stop("immediate")
            time.sleep(self.outage)  # the outage itself: how long the database is gone
            self.pg.start()
        elif fault == "redis_kill":
            self.redis.kill()
            time.sleep(self.outage)
            self.redis.start()
        elif fault == "redis_hang":
            self.redis.freeze()
            time.sleep(self.outage * 2)
            self.redis.thaw()
        elif fault == "idle_in_transaction":
            asyncio.run(self._idle_in_transaction(self.outage * 2))
        elif fault == "start_during_outage":  # a replica and the projector start while PostgreSQL is down
            self.pg.stop("immediate")
            self.projector.kill()
            mark = self.projector.log.stat().st_size  # what the new projector writes comes after this
            self.projector.start()
            fresh = self.fleet.kill_one(self.rnd, ready=False)
            wait_until(lambda: "database_unreachable" in fresh.log_tail(5)
                       and b"database_unreachable" in self.projector.log.read_bytes()[mark:],
                       "a replica and the projector starting while PostgreSQL is down", 120, 0.2)
            self.pg.start()
            fresh.wait_ready(120)
        else:
            raise ValueError(fault)
        blow = time.monotonic() - began
        wait_until(self.fleet.healthy, f"the replicas did not recover from {fault}", 180, 0.5)
        if not self.projector.alive():  # noted as a failure, and restarted so that the run can finish
            self.projector_exits.append(f"after {fault}: exit {self.projector.proc and self.projector.proc.returncode}")
            self.projector.start()
        return {"fault": fault, "seconds": round(blow, 1), "recovered_s": round(time.monotonic() - began - blow, 1)}

    async def _idle_in_transaction(self, seconds: float) -> None:
        """A session that takes an xid and then sits idle in its transaction (holding back the horizon)."""
        conn = await asyncpg.connect(self.pg.dsn)
        try:
            async with conn.transaction():
                await conn.fetchval("SELECT pg_current_xact_id()")
                await asyncio.sleep(seconds)
        finally:
            await conn.close()

    def logs(self) -> dict[str, str]:
        """Every server's log by name: the replicas (running and retired) and the projector."""
        return {**self.fleet.logs(), "projector": self.projector.log.read_text(errors="replace")}

    def save_logs(self) -> None:
        """The replicas' logs (kept in temporary files) written beside the projector's in the run's folder."""
        for name, text in self.fleet.logs().items():
            (self.root / f"{name}.log").write_text(text)

    def stop(self) -> None:
        """The servers all at once (each takes a moment to drain), then Redis and PostgreSQL under them."""
        with ThreadPoolExecutor() as threads:
            list(threads.map(_tried, [*(r.stop for r in self.fleet.replicas), self.projector.stop]))
        for stop in (self.redis.stop, lambda: self.pg.stop("fast") if self.pg.running() else None):
            _tried(stop)


def _tried(stop: Any) -> None:
    try:
        stop()
    except Exception as exc:  # a failing stop must not keep the rest running
        print(json.dumps({"bench": "chaos", "cleanup_error": repr(exc)}), file=sys.stderr)


async def progressed(ledger: Ledger, since: float, timeout: float = 180.0) -> float:
    """Seconds until some command is acknowledged after `since` (the service works again)."""
    deadline = time.monotonic() + timeout
    while not any(t > since for t in ledger.acked_at):
        if time.monotonic() > deadline:
            raise RuntimeError("no command was acknowledged after the fault")
        await asyncio.sleep(0.2)
    return round(time.monotonic() - since, 1)


async def keep_playing(client: Client, kind: str, stop: asyncio.Event, rnd: random.Random, ended: list[str],
                       pace: Pace) -> str:
    """Game after game until `stop` (or a game that could not finish), each ending kept in `ended`: commands
    keep flowing through every fault however fast a machine plays a game. Returns the last game's ending."""
    while True:
        ending = await play(client, kind, 2, stop, rnd, pace=pace)
        ended.append(ending)
        if stop.is_set() or ending != "finished":
            return ending


async def finished(ended: list[str], games: list[asyncio.Task], count: int, timeout: float) -> None:
    """Until `count` games have ended with an outcome, or `timeout` seconds (then the check goes on)."""
    deadline = time.monotonic() + timeout
    while ended.count("finished") < count:
        if time.monotonic() > deadline or all(g.done() for g in games):
            return
        await asyncio.sleep(0.5)


class Watch:
    """The SSE followers of every game the bots create (one each, as its first seat's player)."""

    def __init__(self, client: Client, urls: Any, seed: int) -> None:
        self.client, self.urls, self.rnd = client, urls, random.Random(seed)
        self.http = httpx.AsyncClient()
        self.followers: list[Follower] = []
        self.tokens: dict[str, str] = {}
        self.tasks: list[asyncio.Task] = []

    def __call__(self, game_id: str, token: str) -> None:
        follower = Follower(self.urls, game_id, token, random.Random(self.rnd.random()))
        self.followers.append(follower)
        self.tokens[game_id] = token
        self.tasks.append(asyncio.create_task(follower.run(self.http)))

    async def findings(self, timeout: float) -> dict[str, Any]:
        """Once the bots stop: every follower run up to its viewer's last version, then what never arrived."""
        shown = await settle(self.followers, self.client, self.tokens, timeout)
        await self.close()
        found = sse_findings({f.game_id: f.ids for f in self.followers}, shown)
        return {**found, "events": sum(len(v) for v in shown.values()), "streams": len(self.followers),
                "reconnects": sum(f.reconnects for f in self.followers)}

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.http.aclose()


async def run(short: bool, replicas: int, games_per_kind: int, rounds: int, seed: int, outage: float) -> int:
    rnd = random.Random(seed)
    root = workdir()
    began = time.monotonic()
    try:
        chaos = await asyncio.to_thread(Chaos, root, replicas, rnd, outage)
    except BaseException:  # its own PostgreSQL, Redis or a replica did not start: their logs are in `root`
        print(json.dumps({"bench": "chaos", "failed": "start", "logs": str(root)}), file=sys.stderr, flush=True)
        raise
    phases = {"start_s": round(time.monotonic() - began)}  # wall-clock seconds per phase (printed only)
    ledger = Ledger()
    stop = asyncio.Event()
    # the competitions' own stop: they end by themselves (the arena after its minutes) while the game loops
    # are stopped and their streams followed to the end
    stop_competing = asyncio.Event()
    client = Client(chaos.fleet.urls, ledger, random.Random(seed + 1))
    watch = Watch(client, chaos.fleet.urls, seed + 2)
    failed = True  # until the checks say otherwise: a crash keeps the logs too
    try:
        ended: list[str] = []
        paces = [Pace(watch=watch)] * games_per_kind + [Pace(per_move_seconds=2, dawdle=0.15, watch=watch)]
        loops = [(kind, pace) for pace in paces for kind in KINDS]
        games = [asyncio.create_task(keep_playing(client, kind, stop, random.Random(seed * 100 + i), ended, pace))
                 for i, (kind, pace) in enumerate(loops)]
        deadline = time.monotonic() + (300 if short else 1500)
        competitions = [
            asyncio.create_task(compete.tournament(client, stop_competing, random.Random(seed + 3), deadline,
                                                   2 if short else 3)),
            asyncio.create_task(compete.arena(client, stop_competing, random.Random(seed + 4), deadline,
                                              1 if short else 2))]
        await progressed(ledger, 0.0)
        faults = SHORT_FAULTS if short else FAULTS
        schedule = [f for _ in range(rounds) for f in rnd.sample(faults, len(faults))]
        for fault in schedule:
            since = time.monotonic()
            report = await asyncio.to_thread(chaos.inject, fault)
            report["progress_s"] = await progressed(ledger, since)
            print(json.dumps({"bench": "chaos", **report}), flush=True)
        phases["faults_s"] = round(time.monotonic() - began) - sum(phases.values())
        # play on until some games have finished (`stela verify --all` re-decides finished games only)
        await finished(ended, games, 1 if short else len(games) // 2, 240 if short else 1200)
        stop.set()
        results = await asyncio.gather(*games, return_exceptions=True)
        # the streams of the stopped games are followed to their end while the competitions finish
        sse, competed = await asyncio.gather(watch.findings(180),
                                             asyncio.gather(*competitions, return_exceptions=True))  # by deadline
        endings = [*ended, *(r for r in results if isinstance(r, BaseException)), *competed]
        phases["play_on_s"] = round(time.monotonic() - began) - sum(phases.values())
        result = await check(chaos, ledger, endings, schedule, sse)
        failed = not result["ok"]
        phases["checks_s"] = round(time.monotonic() - began) - sum(phases.values())
        phases["of_which_quiet_s"] = result.pop("quiet_s")
        print(json.dumps({"bench": "chaos", "mode": "short" if short else "full", "seed": seed, **result,
                          "phases": phases}), flush=True)
    finally:
        stop.set()
        stop_competing.set()
        await watch.close()
        await client.close()
        await asyncio.to_thread(chaos.stop)
        chaos.save_logs()
        if failed or os.environ.get("STELA_CHAOS_KEEP"):
            print(json.dumps({"bench": "chaos", "logs": str(root)}), file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


async def _init(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", encoder=lambda v: msgspec.json.encode(v).decode(),
                              decoder=msgspec.json.decode, schema="pg_catalog")


async def from_database(dsn: str, ledger: Ledger) -> dict[str, Any]:
    """The checks that read the database, once the projector has caught up."""
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2, init=_init)
    began = time.monotonic()
    try:
        await checks.quiet(pool)
        quiet_s = round(time.monotonic() - began)
        # `stela verify --all` (a process of its own) meanwhile, once the games are played out
        verifying = asyncio.create_task(asyncio.to_thread(checks.verify_all, dsn))
        async with pool.acquire() as conn:
            gaps, broken = await checks.gaps_and_chain(conn)
            found = await checks.keys(conn, ledger)
            rehashed = await checks.hashes(conn)
            clocks = await checks.clocks(conn)
            competitions = await checks.results(conn)
        await checks.caught_up(pool)
        read_models = await checks.read_models_equal_rebuild(pool)
        verified = await verifying
    finally:
        await pool.close()
    return {"gaps": gaps, "broken": broken, "found": found, "rehashed": rehashed, "clocks": clocks,
            "competitions": competitions, "read_models": read_models, "verified": verified,
            "quiet_s": quiet_s}


async def check(chaos: Chaos, ledger: Ledger, endings: list[Any], schedule: list[str],
                sse: dict[str, Any]) -> dict[str, Any]:
    """Every check of bench.chaos_checks and bench.chaos_watch; `ok` when all of them hold."""
    db = await from_database(chaos.pg.dsn, ledger)
    found, clocks, results, verified = db["found"], db["clocks"], db["competitions"], db["verified"]
    counts = {name: len(found.get(name, [])) for name in ("lost", "duplicated", "forked", "unacknowledged_commits",
                                                          "in_doubt")}
    early = early_endings(endings)
    logs = chaos.logs()
    traced = tracebacks(logs)
    problems = {
        **{k: found.get(k, [])[:5] for k in ("lost", "duplicated", "forked", "unacknowledged_commits")},
        "server_errors": ledger.server_errors[:5], "gaps": db["gaps"][:5], "broken": db["broken"][:5],
        "hashes": db["rehashed"][:5], "read_models": db["read_models"], "early_endings": early[:5],
        "timeouts_twice": clocks["twice"][:5], "timeouts_early": clocks["early"][:5],
        "timeouts_overdue": clocks["overdue"][:5],
        **{f"results_{k}": results[k][:5] for k in ("twice", "no_result", "premature", "unfinished")},
        "sse_missing": sse["missing"][:5],
        "sse_duplicated": sse["duplicated"][:5], "tracebacks": {k: v[:3] for k, v in traced.items()},
        "projector_exits": chaos.projector_exits[:3],
        "verify_all": [] if verified.get("exit") == 0 and verified.get("verified", 0) >= endings.count("finished")
        else [verified],
        "nothing_acknowledged": [] if ledger.acknowledged() > 0 else ["no command was acknowledged"],
    }
    result = {
        "acknowledged": ledger.acknowledged(), **counts, "http_500": len(ledger.server_errors),
        "rehashed_bad": len(db["rehashed"]), "timeouts_fired": clocks["fired"],
        "timeouts_twice": len(clocks["twice"]), "competitions": results["competitions"],
        "results_recorded": results["recorded"], "results_twice": len(results["twice"]), "sse_streams": sse["streams"], "sse_events_checked": sse["events"],
        "sse_missing": len(sse["missing"]), "sse_reconnects": sse["reconnects"],
        "tracebacks": sum(len(v) for v in traced.values()), "outage_tracebacks": outages(logs), "verify_all": verified, "faults": schedule,
        "games": dict(Counter(str(e) for e in endings)),
        "statuses": {str(k): v for k, v in sorted(ledger.statuses.items())},
        "transport_errors": ledger.transport_errors, "stale_reads": len(ledger.stale_reads), "replica_restarts": len(chaos.fleet.retired),
        "projector_starts": chaos.projector.started, "quiet_s": db["quiet_s"],
    }
    result["ok"] = not any(problems.values())
    if not result["ok"]:
        result["details"] = {k: v for k, v in problems.items() if v}
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="the CI mode: 2 replicas, 4 games, each fault once")
    parser.add_argument("--replicas", type=int)
    parser.add_argument("--games-per-kind", type=int)
    parser.add_argument("--rounds", type=int, help="times each fault is injected")
    parser.add_argument("--outage", type=float, help="seconds PostgreSQL / Redis stay down (a hang lasts twice)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    short = args.short
    return asyncio.run(run(short, args.replicas or (2 if short else 3), args.games_per_kind or (1 if short else 3),
                           args.rounds or (1 if short else 3), args.seed, args.outage or (2.0 if short else 5.0)))


if __name__ == "__main__":
    sys.exit(main())
