"""What the fault suite checks once the faults are over, from the database and the bots' ledger.

- gapless: every stream's versions are exactly 1..n;
- chain: each event's `prev_hash` is its predecessor's `hash` (the genesis hash first), and
  `stela verify --all` (which recomputes the hashes and re-decides every finished game) is clean;
- keys: every acknowledged key has its idempotency row, committed (not a stored refusal), covering the
  versions the answer showed; a key refused for good committed nothing; a key given up on (no final
  answer) may have committed: that is what a retry with the same key would have answered ("in doubt");
- coverage: the committed keys' version ranges tile each stream exactly: a version under no key is an
  event no request explains (a retry applied twice would leave one: "duplicated"), a version under two
  keys is a fork, and so are two acknowledged answers claiming the same version;
- the stored command of every acknowledged command key is the one that was sent, by its actor;
- read models: the live tables equal a rebuild from zero once the projector has caught up.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import asyncpg

from bench.chaos_bots import Ledger
from projections.catalog import PROJECTIONS
from projections.runner import lag
from service.store.protocol import GENESIS_HASH
from testkit.readmodels import assert_equal_to_rebuild


async def gaps_and_chain(conn: asyncpg.Connection) -> tuple[list[str], list[str]]:
    """Streams whose versions are not 1..n, and streams whose hash links break."""
    gaps = [r[0] for r in await conn.fetch(
        "SELECT stream_id FROM events GROUP BY stream_id HAVING min(version) <> 1 OR max(version) <> count(*)")]
    broken = [r[0] for r in await conn.fetch(
        """SELECT DISTINCT e.stream_id FROM events e
           LEFT JOIN events p ON p.stream_id = e.stream_id AND p.version = e.version - 1
           WHERE (e.version = 1 AND e.prev_hash <> $1) OR (e.version > 1 AND p.hash IS DISTINCT FROM e.prev_hash)""",
        GENESIS_HASH)]
    return gaps, broken


async def keys(conn: asyncpg.Connection, ledger: Ledger) -> dict[str, Any]:
    """Every key of the ledger against the idempotency table and the streams' versions."""
    rows = await conn.fetch("SELECT stream_id, actor, key, first_version, last_version, refusal FROM idempotency")
    stored = {(r["actor"], r["key"]): r for r in rows}
    heads = dict(await conn.fetch("SELECT stream_id, max(version) FROM events GROUP BY stream_id"))
    sent_keys = set()
    found: dict[str, list[str]] = defaultdict(list)
    acked_ranges: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for s in ledger.sent:
        name = f"create:{s.key}" if s.what == "create" else s.key
        sent_keys.add((s.actor, name))
        row = stored.get((s.actor, name))
        committed = row is not None and row["refusal"] is None and row["first_version"] > 0
        if s.outcome == "acknowledged":
            if not committed or (s.game_id is not None and row["stream_id"] != s.game_id):
                found["lost"].append(f"{s.what} {s.key}: acknowledged, no committed key row ({row and dict(row)})")
                continue
            first, last = row["first_version"], row["last_version"]
            shown_ok = s.versions is None or (first <= s.versions[0] and s.versions[1] <= last)
            if not shown_ok or (s.answered_version is not None and s.answered_version < last) \
                    or heads.get(row["stream_id"], 0) < last:
                found["lost"].append(f"{s.what} {s.key}: answered {s.versions}/{s.answered_version}, "
                                     f"stored {first}..{last}, head {heads.get(row['stream_id'])}")
            acked_ranges[row["stream_id"]].append((first, last, s.key))
        elif s.outcome == "refused" and committed:
            found["unacknowledged_commits"].append(f"{s.what} {s.key}: refused {s.status} yet committed")
        elif s.outcome in ("gave_up", "pending") and committed:
            found["in_doubt"].append(f"{s.what} {s.key}: no final answer, committed (a retry would say so)")
    ranges: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for r in rows:
        if r["refusal"] is None and r["first_version"] > 0:
            ranges[r["stream_id"]].append((r["first_version"], r["last_version"]))
            if (r["actor"], r["key"]) not in sent_keys:
                found["unacknowledged_commits"].append(f"{r['stream_id']} {r['key']}: a key nobody sent")
    for stream_id, head in heads.items():
        covered = [0] * (head + 1)
        for first, last in ranges.get(stream_id, []):
            for v in range(first, last + 1):
                if v <= head:
                    covered[v] += 1
        unexplained = [v for v in range(1, head + 1) if covered[v] == 0]
        twice = [v for v in range(1, head + 1) if covered[v] > 1]
        if unexplained:
            found["duplicated"].append(f"{stream_id}: versions {unexplained[:10]} under no key")
        if twice:
            found["forked"].append(f"{stream_id}: versions {twice[:10]} under two keys")
    for stream_id, claimed in acked_ranges.items():
        claimed.sort()
        for (f1, l1, k1), (f2, l2, k2) in zip(claimed, claimed[1:]):
            if f2 <= l1:
                found["forked"].append(f"{stream_id}: {k1} ({f1}..{l1}) and {k2} ({f2}..{l2}) both acknowledged")
    found["forked"] += await sent_commands_stored(conn, ledger, stored)
    return found


async def sent_commands_stored(conn: asyncpg.Connection, ledger: Ledger, stored: dict) -> list[str]:
    """Acknowledged game commands whose first stored event does not carry the command sent, by its actor."""
    wrong = []
    for s in ledger.sent:
        row = stored.get((s.actor, s.key))
        if s.what != "command" or s.outcome != "acknowledged" or row is None or row["first_version"] < 1:
            continue
        meta = await conn.fetchval("SELECT metadata FROM events WHERE stream_id = $1 AND version = $2",
                                   row["stream_id"], row["first_version"])
        meta = json.loads(meta) if isinstance(meta, str) else meta
        if meta is None or meta.get("actor") != s.actor or meta.get("command") != s.body["command"]:
            wrong.append(f"{row['stream_id']} v{row['first_version']}: stored {meta and meta.get('command')}, "
                         f"sent {s.body['command']} by {s.actor}")
    return wrong


async def caught_up(pool: asyncpg.Pool, timeout: float = 300.0) -> None:
    """Until every read model has projected the whole log (the projector runs as its own process)."""
    names = list(PROJECTIONS)
    deadline = time.monotonic() + timeout
    while True:
        lags = await lag(pool, names)
        if lags and all(v["events"] == 0 for v in lags.values()):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the projector did not catch up: {lags}")
        await asyncio.sleep(0.2)


async def read_models_equal_rebuild(pool: asyncpg.Pool) -> str | None:
    """None when the live read models equal a rebuild; else what differs."""
    try:
        await assert_equal_to_rebuild(pool)
    except AssertionError as exc:
        return str(exc)
    return None


def verify_all(dsn: str) -> dict[str, Any]:
    """`stela verify --all` on the cluster: its summary line, its failures and its exit code."""
    stela = Path(sys.executable).with_name("stela")
    env = {**os.environ, "DATABASE_URL": dsn, "STELA_LOG_LEVEL": "warning"}
    env.pop("REDIS_URL", None)
    done = subprocess.run([str(stela), "verify", "--all"], env=env, capture_output=True, text=True, timeout=600)
    lines = done.stdout.strip().splitlines()
    summary = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    return {"exit": done.returncode, **summary, "failures": lines[:-1][:5],
            "stderr": done.stderr[-1000:] if done.returncode else ""}
