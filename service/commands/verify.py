"""Offline audit of one game's log: hash chain, seed commitment, and a re-run of every decision.

Given the exported events of a finished game, `verify_log` checks that the
versions are contiguous and each hash chains to its predecessor, that the
revealed seed matches the commitment published at creation, and then replays
the game: every batch that a command produced is decided again from the state
before it, with the Rng derived from the revealed seed, and must produce
exactly the stored events. The final fold must give the recorded outcome.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime
from typing import Any

import msgspec

from domain.kernel import Game, RuleViolation
from domain.clock import ClockSet, TimeOut, unchanged_at
from domain.table import GameCreated, GameEnded, GameStarted, SeatLeft, SeatTaken, SeedRevealed, Table, TableState
from domain.tournament.facts import RENAMED
from domain.transparency import merkle
from domain.transparency.leaves import leaf
from service.commands.repository import platform_event
from service.store.protocol import GENESIS_HASH, StoredEvent, event_hash


class Report(msgspec.Struct, kw_only=True):
    game_id: str | None = None
    kind: str | None = None
    events: int = 0
    ok: bool = True
    problems: list[str] = []
    outcome: dict[str, Any] | None = None
    decisions_checked: int = 0


def parse_ndjson(text: str | bytes) -> list[StoredEvent]:
    decoder = msgspec.json.Decoder(StoredEvent)
    lines = text.splitlines() if isinstance(text, bytes) else text.encode().splitlines()
    return [decoder.decode(line) for line in lines if line.strip()]


def verify_log(events: list[StoredEvent], games: dict[str, Game]) -> Report:
    """Every problem found in the log (an empty list means it is intact and fair)."""
    report = Report(events=len(events))
    if not events:
        report.problems.append("the log is empty")
        report.ok = False
        return report
    report.game_id = events[0].stream_id
    _check_chain(events, report)
    try:
        created = platform_event(events[0])
    except msgspec.ValidationError:
        created = None
    if not isinstance(created, GameCreated):
        report.problems.append("the log does not start with table.GameCreated")
    else:
        kind = created.kind
        report.kind = kind
        if kind not in games:
            report.problems.append(f"unknown game kind {kind!r}")
        else:
            _replay(Table(games[kind]), events, report)
    report.ok = not report.problems
    return report


def _check_chain(events: list[StoredEvent], report: Report) -> None:
    report.problems += chain_problems(events)


def chain_problems(events: list[StoredEvent]) -> list[str]:
    """Problems with a whole stream's hash chain (a game's export, a competition's published log): one
    stream, versions 1.., each hash over its predecessor's and its own content."""
    problems = []
    prev = GENESIS_HASH
    for expected_version, event in enumerate(events, start=1):
        if event.stream_id != events[0].stream_id:
            problems.append(f"v{event.version}: belongs to another stream")
        if event.version != expected_version:
            problems.append(f"v{event.version}: expected version {expected_version}")
        if event.prev_hash != prev:
            problems.append(f"v{event.version}: prev_hash does not match the previous event")
        recomputed = event_hash(event.prev_hash, event.stream_id, event.version, event.type, event.data)
        if recomputed != event.hash:
            problems.append(f"v{event.version}: hash mismatch (the event was altered)")
        prev = event.hash
    return problems


def _batches(events: list[StoredEvent]) -> list[list[StoredEvent]]:
    """Consecutive events appended together (same command id; creation has none)."""
    out: list[list[StoredEvent]] = []
    for event in events:
        cid = event.metadata.get("command_id")
        if out and cid is not None and out[-1][0].metadata.get("command_id") == cid:
            out[-1].append(event)
        elif out and cid is None and out[-1][0].metadata.get("command_id") is None:
            out[-1].append(event)
        else:
            out.append([event])
    return out


def _replay(table: Table, events: list[StoredEvent], report: Report) -> None:
    try:
        decoded = [table.decode_event(e.type, e.data) for e in events]
    except msgspec.ValidationError as exc:
        report.problems.append(f"an event does not decode: {exc}")
        return
    created = decoded[0]
    assert isinstance(created, GameCreated)
    revealed = [e for e in decoded if isinstance(e, SeedRevealed)]
    if not revealed:
        report.problems.append("the seed was never revealed (is the game over?)")
        return
    seed = revealed[-1].seed
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != created.seed_commitment:
        report.problems.append("the revealed seed does not match the commitment")
    if created.seed is not None and created.seed != seed:
        report.problems.append("the stored seed differs from the revealed one")
    state: TableState | None = None
    index = 0
    for batch in _batches(events):
        produced = decoded[index:index + len(batch)]
        if state is not None:
            _recheck(table, state, batch, produced, report)
        for event in produced:
            state = table.evolve(state, event) if state is not None else table.evolve(
                None, msgspec.structs.replace(event, seed=seed))
        index += len(batch)
    assert state is not None
    ended = [e for e in decoded if isinstance(e, GameEnded)]
    if ended and not state.resigned:  # a resignation's outcome was re-decided with its batch
        final = table.game.outcome(state.game) if state.game is not None else None
        if final is None or msgspec.to_builtins(final) != msgspec.to_builtins(ended[-1].outcome):
            report.problems.append("the recorded outcome differs from the rules' outcome")
    if ended:
        report.outcome = msgspec.to_builtins(ended[-1].outcome)


def _recheck(table: Table, state: TableState, batch: list[StoredEvent], produced: list[Any],
             report: Report) -> None:
    first = produced[0]
    command = batch[0].metadata.get("command")
    # a clocked decision is re-run at the time its own ClockSet recorded (or, with none, at a time
    # that changes no clock: see domain.clock.unchanged_at)
    now_ms = next((e.at_ms for e in produced if isinstance(e, ClockSet)), None)
    seat = batch[0].metadata.get("seat")
    if now_ms is None and state.clock is not None:
        now_ms = unchanged_at(state.clock, seat)
    try:
        if command is not None and command.get("type") == TimeOut.__struct_config__.tag:
            again = table.timeout(state, msgspec.convert(command, TimeOut))
        elif command is not None:
            again = table.play(state, seat, table.decode_command(command), now_ms)
        elif isinstance(first, GameStarted):
            again = table.start(state, None, now_ms)
        elif isinstance(first, SeatTaken):
            again = table.join(state, first.player_id, first.name, first.seat)
        elif isinstance(first, SeatLeft):
            again = table.leave(state, first.player_id)
        else:
            return  # an administrative batch (abort): nothing to re-decide
    except (RuleViolation, msgspec.ValidationError) as exc:
        report.problems.append(f"v{batch[0].version}: the rules refuse the recorded command now: {exc}")
        return
    report.decisions_checked += 1
    if [msgspec.to_builtins(e) for e in again] != [msgspec.to_builtins(e) for e in produced]:
        report.problems.append(f"v{batch[0].version}: re-deciding the command gives different events")


def logged_leaves(events: list[StoredEvent]) -> dict[int, bytes]:
    """The transparency log's leaves an export's events must have written, by stream version."""
    out = {}
    for e in events:
        body = leaf(e.stream_id, e.version, e.type, e.data, e.hash)
        if body is not None:
            out[e.version] = body
    return out


def check_inclusion(events: list[StoredEvent], proof: dict[str, Any], size: int, root: bytes) -> list[str]:
    """Problems with an inclusion proof (`getInclusionProof`'s answer) of an export's leaves against a signed
    checkpoint (size, root): a leaf the export writes and the log lacks or proves wrong, or a leaf the log
    holds for the stream that the export does not write (another creation, end or seed)."""
    expected = logged_leaves(events)
    problems = []
    if proof.get("size") != size:
        return [f"the proof is for a tree of {proof.get('size')} leaves, not the checkpoint's {size}"]
    found = {item["version"]: item for item in proof.get("leaves", [])}
    for version, body in expected.items():
        item = found.get(version)
        if item is None or item["body"].encode() != body:
            problems.append(f"v{version}: the log holds no such leaf for this export (the log was written "
                            f"with another event, or none)")
            continue
        path = [base64.b64decode(h) for h in item["path"]]
        if not merkle.verify_inclusion(item["index"], size, merkle.leaf_hash(body), path, root):
            problems.append(f"v{version}: the leaf's inclusion proof does not verify against the checkpoint")
    for version in sorted(set(found) - set(expected)):
        problems.append(f"v{version}: the log holds a leaf of this stream that the export does not write "
                        f"({found[version]['body']})")
    return problems


def published_events(log: list[dict[str, Any]]) -> list[StoredEvent]:
    """A competition's published log (a report's `log`, its `/events` once it has ended) as the stored events
    it shows, for `chain_problems` and `check_inclusion`. An older arena log's event shown under its shared
    tag (`tournament.PlayerWithdrew`) was stored, hashed and logged under its old one (`arena.PlayerLeft`):
    the tag is the one of its names its hash was computed over. A ValueError when the log carries no chain."""
    out = []
    for e in log:
        if not isinstance(e, dict) or not all(isinstance(e.get(k), str) for k in ("stream_id", "prev_hash", "hash")):
            raise ValueError("the log carries no chain hashes (they are published once the competition has ended)")
        names = [e["type"], *(old for old, new in RENAMED.items() if new == e["type"])]
        stored = next((t for t in names if event_hash(e["prev_hash"], e["stream_id"], e["version"], t, e["data"])
                       == e["hash"]), e["type"])
        out.append(StoredEvent(position=0, tx=0, stream_id=e["stream_id"], version=e["version"], type=stored,
                               data=e["data"], metadata={}, at=datetime.fromisoformat(e["at"]),
                               prev_hash=e["prev_hash"], hash=e["hash"]))
    return out
