"""The fault suite: real games on N replicas and a projector while the servers under them fail.

`python -m bench.chaos [--short]` starts its own PostgreSQL and Redis (bench.chaos_cluster; never the
machine's shared ones), N `stela serve` replicas with the projector off and one `stela projector`,
and bots playing the four kinds over HTTP (bench.chaos_bots: Idempotency-Key on every POST, retried
with the same key on connection errors, 5xx and 429). While they play, it injects, in a shuffled
order: kill -9 of a replica (a new one takes its place), kill -9 of the projector (restarted),
PostgreSQL stopped with `-m immediate` then started, Redis killed then restarted, Redis frozen
(SIGSTOP) then thawed (SIGCONT), and a session left idle in a transaction that holds an xid.
After each fault it waits for the fleet to answer again and for new commands to be acknowledged.
Then the bots stop, the projector catches up, and bench.chaos_checks runs its checks.

Printed as JSON lines like the other benches: one per fault, then the totals
(`acknowledged`, `lost`, `duplicated`, `forked`, `unacknowledged_commits`, `http_500`, ...).
Exit status 1 when any check fails. `--short` (CI): 2 replicas, one game of each kind, each fault
once. The full mode: 3 replicas, three games of each kind, every fault three times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import asyncpg
import msgspec

from bench import chaos_checks as checks
from bench.chaos_bots import KINDS, Client, Ledger, play
from bench.chaos_cluster import Fleet, Postgres, Projector, Redis, wait_until, workdir

FAULTS = ["replica_kill", "projector_kill", "postgres_immediate", "redis_kill", "redis_hang", "idle_in_transaction"]


class Chaos:
    """The running cluster and the faults it can suffer."""

    def __init__(self, root: Path, replicas: int, rnd: random.Random, outage: float) -> None:
        self.root, self.rnd, self.outage = root, rnd, outage
        self.pg = Postgres(root)
        self.pg.start()
        self.redis = Redis(root)
        self.redis.start()
        self.fleet = Fleet(self.pg.dsn, self.redis.url, replicas)
        self.projector = Projector(self.pg.dsn, root / "projector.log")
        self.projector.start()

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
        else:
            raise ValueError(fault)
        blow = time.monotonic() - began
        wait_until(self.fleet.healthy, f"the replicas did not recover from {fault}", 180, 0.5)
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

    def stop(self) -> None:
        for stop in (self.fleet.stop, self.projector.stop, self.redis.stop,
                     lambda: self.pg.stop("fast") if self.pg.running() else None):
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


async def keep_playing(client: Client, kind: str, seats: int, stop: asyncio.Event, rnd: random.Random,
                       ended: list[str]) -> str:
    """Game after game until `stop` (or a game that could not finish), each ending kept in `ended`: commands
    keep flowing through every fault however fast a machine plays a game. Returns the last game's ending."""
    while True:
        ending = await play(client, kind, seats, stop, rnd)
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


async def run(short: bool, replicas: int, games_per_kind: int, rounds: int, seed: int, outage: float) -> int:
    rnd = random.Random(seed)
    root = workdir()
    chaos = await asyncio.to_thread(Chaos, root, replicas, rnd, outage)
    ledger = Ledger()
    stop = asyncio.Event()
    client = Client(chaos.fleet.urls, ledger, random.Random(seed + 1))
    endings: list[Any] = []
    failed = False
    try:
        ended: list[str] = []
        games = [asyncio.create_task(keep_playing(client, kind, 2, stop, random.Random(seed * 100 + i), ended))
                 for i, kind in enumerate(KINDS * games_per_kind)]
        await progressed(ledger, 0.0)
        schedule = [f for _ in range(rounds) for f in rnd.sample(FAULTS, len(FAULTS))]
        for fault in schedule:
            since = time.monotonic()
            report = await asyncio.to_thread(chaos.inject, fault)
            report["progress_s"] = await progressed(ledger, since)
            print(json.dumps({"bench": "chaos", **report}), flush=True)
        # play on until some games have finished (`stela verify --all` re-decides finished games only)
        await finished(ended, games, 1 if short else len(games) // 2, 240 if short else 1200)
        stop.set()
        results = await asyncio.gather(*games, return_exceptions=True)
        endings = [*ended, *(r for r in results if isinstance(r, BaseException))]
        result = await check(chaos, ledger, endings, schedule)
        failed = not result["ok"]
        print(json.dumps({"bench": "chaos", "mode": "short" if short else "full", **result}), flush=True)
    finally:
        stop.set()
        await client.close()
        await asyncio.to_thread(chaos.stop)
        if failed:
            print(json.dumps({"bench": "chaos", "logs": str(root)}), file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


async def _init(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", encoder=lambda v: msgspec.json.encode(v).decode(),
                              decoder=msgspec.json.decode, schema="pg_catalog")


async def check(chaos: Chaos, ledger: Ledger, endings: list[Any], schedule: list[str]) -> dict[str, Any]:
    """Every check of bench.chaos_checks; `ok` when all of them hold."""
    pool = await asyncpg.create_pool(chaos.pg.dsn, min_size=1, max_size=2, init=_init)
    try:
        async with pool.acquire() as conn:
            gaps, broken = await checks.gaps_and_chain(conn)
            found = await checks.keys(conn, ledger)
        await checks.caught_up(pool)
        read_models = await checks.read_models_equal_rebuild(pool)
    finally:
        await pool.close()
    verified = await asyncio.to_thread(checks.verify_all, chaos.pg.dsn)
    counts = {name: len(found.get(name, [])) for name in ("lost", "duplicated", "forked", "unacknowledged_commits",
                                                          "in_doubt")}
    crashed = [repr(e) for e in endings if isinstance(e, BaseException)]
    result = {
        "acknowledged": ledger.acknowledged(), **counts, "http_500": len(ledger.server_errors),
        "gapless": not gaps, "chain_linked": not broken, "verify_all": verified,
        "read_models_equal_rebuild": read_models is None, "faults": schedule,
        "games": {str(e): sum(1 for x in endings if str(x) == str(e)) for e in endings},
        "statuses": {str(k): v for k, v in sorted(ledger.statuses.items())},
        "transport_errors": ledger.transport_errors, "replica_restarts": len(chaos.fleet.retired),
        "projector_starts": chaos.projector.started,
    }
    result["ok"] = (not any(counts[k] for k in ("lost", "duplicated", "forked", "unacknowledged_commits"))
                    and not ledger.server_errors and not gaps and not broken and verified.get("exit") == 0
                    and verified.get("verified", 0) >= endings.count("finished")
                    and read_models is None and not crashed and ledger.acknowledged() > 0)
    details = {k: v[:5] for k, v in found.items() if v and k != "in_doubt"}
    if not result["ok"]:
        result["details"] = {**details, "server_errors": ledger.server_errors[:5], "gaps": gaps[:5],
                             "broken": broken[:5], "read_models": read_models, "crashed": crashed[:5]}
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
