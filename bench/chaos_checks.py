"""What the fault suite checks once the faults are over, from the database and the bots' ledger.

- gapless: every stream's versions are exactly 1..n;
- chain: each event's `prev_hash` is its predecessor's `hash` (the genesis hash first), and
  `stela verify --all` (which recomputes the hashes and re-decides every finished game) is clean;
- keys: every acknowledged key has its idempotency row, committed (not a stored refusal), covering the
  versions the answer showed; a key refused for good committed nothing; a key given up on (no final
  answer) may have committed: that is what a retry with the same key would have answered ("in doubt");
- coverage: the committed keys' version ranges tile each stream exactly: a version under no key is an
  event no request explains (a retry applied twice would leave one: "duplicated"), a version under two
  keys is a fork, and so are two acknowledged answers claiming the same version. Keyless batches the
  service writes itself are explained by their command (a timeout), and the opening batch of a game a
  competition paired by the pairing; a competition's own stream is not the bots' to explain;
- the stored command of every acknowledged command key is the one that was sent, by its actor;
- read models: the live tables equal a rebuild from zero once the projector has caught up;
- hashes: every event's hash is recomputed from its content and predecessor, in every stream,
  finished or not (`stela verify --all` re-decides finished games only);
- clocks: each `table.TimedOut` fired for the deadline its stream's last `table.ClockSet` set, not
  before it, and only once per (seat, deadline); no running game is left long past a deadline;
- competitions: every game a tournament or an arena paired that ended has its result recorded exactly
  once (`tournament.ResultRecorded`, `arena.GameScored`), none is recorded for a game that did not
  end, and every competition that paired anybody ended;
- the rest is in bench.chaos_watch: SSE completeness, game loops ending early, server tracebacks.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from itertools import groupby
from pathlib import Path
from typing import Any

import asyncpg
import msgspec

from bench.chaos_bots import Ledger
from projections.catalog import PROJECTIONS
from projections.runner import lag
from domain.clock import ClockSet, TimedOut, TimeOut
from service.store.protocol import ENDINGS, GENESIS_HASH, event_hash
from testkit.readmodels import assert_equal_to_rebuild

CLOCK_SET, TIMED_OUT = str(ClockSet.__struct_config__.tag), str(TimedOut.__struct_config__.tag)
WORKER_COMMANDS = (str(TimeOut.__struct_config__.tag),)  # commands the service sends itself, with no key


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
    written = {s.game_id for s in ledger.sent if s.game_id}
    created = {s.game_id for s in ledger.sent if s.what == "create" and s.game_id}
    for stream_id, head in heads.items():
        covered = [0] * (head + 1)
        for first, last in ranges.get(stream_id, []):
            for v in range(first, last + 1):
                if v <= head:
                    covered[v] += 1
        unexplained = await _not_by_workers(conn, stream_id, _ours(stream_id, written, created, covered))
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


def _ours(stream_id: str, written: set[str], created: set[str], covered: list[int]) -> list[int]:
    """The versions under no key that a request of the bots should explain: every one in a game they
    created; in a game a competition created (and paired them in), those after its opening batch; none
    in a stream they never wrote to (a competition's own: its requests carry no key)."""
    if stream_id not in written:
        return []
    bare = [v for v in range(1, len(covered)) if covered[v] == 0]
    if stream_id in created:
        return bare
    opening = next((v for v in range(1, len(covered)) if covered[v]), len(covered))
    return [v for v in bare if v > opening]


async def _not_by_workers(conn: asyncpg.Connection, stream_id: str, versions: list[int]) -> list[int]:
    """`versions` (under no key) less those of a worker's keyless batch (a timeout): a batch's first event
    carries its command in the metadata, the rest carry none, so each version belongs to the batch of
    the nearest version at or before it that names a command."""
    if not versions:
        return []
    rows = await conn.fetch("SELECT version, metadata FROM events WHERE stream_id = $1 AND version = ANY($2::int[]) "
                            "ORDER BY version", stream_id, versions)
    left, by_worker, previous = [], False, None
    for r in rows:
        command = (_json(r["metadata"]) or {}).get("command")
        if command is not None:
            by_worker = command.get("type") in WORKER_COMMANDS
        elif previous is None or r["version"] != previous + 1:
            by_worker = False  # a batch's later event after a keyed one: no worker batch explains it
        previous = r["version"]
        if not by_worker:
            left.append(r["version"])
    return left


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


async def quiet(pool: asyncpg.Pool, still: float = 6.0, timeout: float = 300.0) -> None:
    """Until nothing is appended for `still` seconds: the clocked games the bots left are played out by
    the timeout worker (every 2 s or less while one runs) before the read models are compared."""
    deadline = time.monotonic() + timeout
    head, since = None, time.monotonic()
    while time.monotonic() - since < still:
        now = await pool.fetchval("SELECT max(position) FROM events")
        if now != head:
            head, since = now, time.monotonic()
        if time.monotonic() > deadline:
            raise RuntimeError("the log never went quiet (a clocked game that never ends?)")
        await asyncio.sleep(0.5)


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




def _json(value: Any) -> Any:
    """A jsonb column as Python values, whether or not the connection decodes jsonb itself."""
    return msgspec.json.decode(value) if isinstance(value, str) else value


async def hashes(conn: asyncpg.Connection, batch: int = 5000) -> list[str]:
    """Events (every stream, finished or not) whose stored hash is not recomputed from their content."""
    wrong, after = [], 0
    while rows := await conn.fetch("SELECT position, stream_id, version, type, data, prev_hash, hash FROM events "
                                   "WHERE position > $1 ORDER BY position LIMIT $2", after, batch):
        for r in rows:
            if event_hash(r["prev_hash"], r["stream_id"], r["version"], r["type"], _json(r["data"])) != r["hash"]:
                wrong.append(f"{r['stream_id']} v{r['version']}: hash does not match its content")
        after = rows[-1]["position"]
    return wrong


async def clocks(conn: asyncpg.Connection, grace_ms: int = 60_000) -> dict[str, Any]:
    """`clock_findings` over the database's clock and ending events, at the database's time."""
    rows = await conn.fetch("SELECT stream_id, version, type, data FROM events WHERE type = ANY($1::text[]) "
                            "ORDER BY stream_id, version", [CLOCK_SET, TIMED_OUT, *ENDINGS])
    now_ms = await conn.fetchval("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")
    return clock_findings([(r["stream_id"], r["type"], _json(r["data"])) for r in rows], now_ms, grace_ms)


def clock_findings(rows: list[tuple[str, str, dict]], now_ms: int, grace_ms: int) -> dict[str, Any]:
    """From (stream, type, data) in stream order: timeouts `fired`; those fired `twice` for one deadline,
    `early` (before their deadline, or with none); running games `overdue` by more than `grace_ms`."""
    found: dict[str, Any] = {"fired": 0, "twice": [], "early": [], "overdue": []}
    for stream_id, events in groupby(rows, key=lambda r: r[0]):
        deadlines: list[int | None] = []
        fired: set[tuple[int, int]] = set()
        ended = False
        for _, type_, data in events:
            if type_ == CLOCK_SET:
                deadlines = data["deadlines_ms"]
            elif type_ == TIMED_OUT:
                found["fired"] += 1
                seat = data["seat"]
                due = deadlines[seat] if seat < len(deadlines) else None
                if due is None or data["at_ms"] < due:
                    found["early"].append(f"{stream_id}: seat {seat} timed out at {data['at_ms']}, deadline {due}")
                elif (seat, due) in fired:
                    found["twice"].append(f"{stream_id}: seat {seat}'s deadline {due} fired twice")
                else:
                    fired.add((seat, due))
            else:
                ended = True
        late = [d for d in deadlines if d is not None and d < now_ms - grace_ms]
        if not ended and late:
            found["overdue"].append(f"{stream_id}: deadline {min(late)} passed {(now_ms - min(late)) // 1000} s ago")
    return found


PAIRED = {"tournament.RoundPaired": "tables", "arena.PlayersPaired": "games"}
RESULTS = ("tournament.ResultRecorded", "arena.GameScored")
OVER = ("tournament.TournamentEnded", "arena.ArenaEnded")  # as stored: older arenas ended with the latter


async def results(conn: asyncpg.Connection) -> dict[str, Any]:
    """`result_findings` over the competitions' pairings, results and ends, and the games that ended."""
    rows = await conn.fetch("SELECT stream_id, type, data FROM events WHERE type = ANY($1::text[]) "
                            "ORDER BY stream_id, version", [*PAIRED, *RESULTS, *OVER])
    ended = {r[0] for r in await conn.fetch("SELECT DISTINCT stream_id FROM events WHERE type = ANY($1::text[])",
                                            list(ENDINGS))}
    return result_findings([(r["stream_id"], r["type"], _json(r["data"])) for r in rows], ended)


def result_findings(rows: list[tuple[str, str, dict]], ended_games: set[str]) -> dict[str, Any]:
    """From competitions' (stream, type, data) in stream order: results `recorded`; games recorded `twice`,
    paired games that ended with `no_result`, results of games that did not end (`premature`), and
    competitions that paired games but never ended (`unfinished`)."""
    found: dict[str, Any] = {"competitions": 0, "recorded": 0, "twice": [], "no_result": [], "premature": [],
                             "unfinished": []}
    for stream_id, events in groupby(rows, key=lambda r: r[0]):
        paired: list[str] = []
        recorded: dict[str, int] = defaultdict(int)
        over = False
        for _, type_, data in events:
            if type_ in PAIRED:
                paired += [table["game_id"] for table in data[PAIRED[type_]]]
            elif type_ in RESULTS:
                recorded[data["game_id"]] += 1
            else:
                over = True
        found["competitions"] += 1
        found["recorded"] += sum(recorded.values())
        found["twice"] += [f"{stream_id}: {g} recorded {n} times" for g, n in recorded.items() if n > 1]
        found["no_result"] += [f"{stream_id}: {g} ended, no result" for g in paired
                               if g in ended_games and g not in recorded]
        found["premature"] += [f"{stream_id}: {g} recorded, not ended" for g in recorded if g not in ended_games]
        if paired and not over:
            found["unfinished"].append(f"{stream_id}: paired {len(paired)} games, never ended")
    return found
