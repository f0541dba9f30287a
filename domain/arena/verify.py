"""Auditing a finished arena: every decision re-made from the revealed seed must match the record.

`verify(events)` takes the arena's whole event list (as stored, or the public log after the end),
checks the revealed seed against the commitment published at creation, then walks the log: each
event that opens a decision is turned back into the command that caused it (a join, pause, leave
or berserk by its player; a pairing or the close at the time it recorded; a result from the ranks
it recorded) and decided again from the state before it. The events decided again (every pairing
with its game ids and seeds, the points with their streaks and berserk bonuses, the end and its
standings) must equal the recorded ones exactly; the walk stops at the first disagreement.
"""

from __future__ import annotations

from typing import Any, Optional

import msgspec

from domain.arena.commands import ArenaCommand, Berserk, Close, Join, Leave, Pair, Pause, RecordResult
from domain.arena.events import (ArenaClosed, ArenaCreated, Berserked, GameScored, PlayerJoined, PlayerLeft,
                                 PlayerPaused, PlayersPaired, SeedRevealed)
from domain.arena.evolve import evolve
from domain.arena.rules import decide
from domain.arena.state import ArenaState
from domain.kernel import Outcome, RuleViolation, seed_commitment


class VerifyReport(msgspec.Struct, kw_only=True):
    """`ok` when nothing is wrong; `problems` name the stream version (1-based) where each was found."""

    ok: bool = True
    problems: list[str] = []
    decisions_checked: int = 0
    pairings_checked: int = 0
    games_checked: int = 0
    finished: bool = False


def _tag(event: Any) -> str:
    return type(event).__struct_config__.tag


def _cause(event: Any) -> tuple[Optional[ArenaCommand], Optional[str]]:
    """The command (and its actor; None: the platform) that produced `event` at the head of a decision."""
    match event:
        case PlayerJoined():
            return Join(name=event.name, rating=event.rating), event.player_id
        case PlayerPaused():
            return Pause(), event.player_id
        case PlayerLeft():
            return Leave(), event.player_id
        case Berserked():
            return Berserk(game_id=event.game_id), event.player_id
        case PlayersPaired():
            return Pair(at_ms=event.at_ms), None
        case ArenaClosed():
            return Close(at_ms=event.at_ms), None
        case GameScored():
            outcome = None if event.aborted else Outcome(
                scores=[0] * len(event.ranks), ranks=list(event.ranks),
                winners=[s for s, r in enumerate(event.ranks) if r == 1])
            return RecordResult(game_id=event.game_id, outcome=outcome), None
    return None, None


def verify(events: list[Any]) -> VerifyReport:
    """Every problem found in an arena's event list (none: the arena was run as recorded)."""
    report = VerifyReport()
    state = _opening(events, report)
    i = 1
    while state is not None and i < len(events):
        event = events[i]
        command, actor = _cause(event)
        if command is None:
            report.problems.append(f"v{i + 1}: {_tag(event)} was not produced by any command")
            break
        try:
            expected = decide(state, actor, command)
        except RuleViolation as exc:
            report.problems.append(f"v{i + 1}: {_tag(event)} is refused by the rules ({exc.code}: {exc.message})")
            break
        recorded = events[i:i + len(expected)]
        if recorded != expected:
            at = next((k for k, (r, e) in enumerate(zip(recorded, expected)) if r != e), len(recorded))
            what = _tag(expected[at]) if at < len(expected) else "the end of the log"
            report.problems.append(f"v{i + at + 1}: the rules give another {what} than the one recorded")
            break
        for e in recorded:
            state = evolve(state, e)
        report.decisions_checked += 1
        report.pairings_checked += sum(isinstance(e, PlayersPaired) for e in expected)
        report.games_checked += sum(isinstance(e, GameScored) for e in expected)
        i += len(expected)
    if state is not None:
        report.finished = state.finished
        if not report.problems and not report.finished:
            report.problems.append("the arena has not finished: its seed is still secret")
    report.ok = not report.problems
    return report


def _opening(events: list[Any], report: VerifyReport) -> Optional[ArenaState]:
    """The state after creation with the revealed seed, or None when the seed cannot be checked."""
    if not events or not isinstance(events[0], ArenaCreated):
        report.problems.append("v1: the log does not start with arena.ArenaCreated")
        return None
    created: ArenaCreated = events[0]
    revealed = [e.seed for e in events if isinstance(e, SeedRevealed)]
    seed = revealed[-1] if revealed else created.seed
    if seed is None:
        report.problems.append("the seed has not been revealed")
        return None
    if created.seed is not None and created.seed != seed:
        report.problems.append("the revealed seed is not the seed the arena was created with")
    if seed_commitment(bytes.fromhex(seed)) != created.seed_commitment:
        report.problems.append("the revealed seed does not match the commitment published at creation")
        return None
    return evolve(None, msgspec.structs.replace(created, seed=seed))
