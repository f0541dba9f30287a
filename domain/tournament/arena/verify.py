"""Auditing a finished arena: every decision re-made from the revealed seed must match the record.

`verify(events)` takes the arena's whole event list (as stored, or the public log after the end),
checks the revealed seed against the commitment published at creation, then walks the log: each
event that opens a decision is turned back into the command that caused it (a join, pause, leave
or berserk by its player; a pairing or the close at the time it recorded; a result from the ranks
it recorded) and decided again from the state before it. The events decided again (every pairing
with its game ids and seeds, the points with their streaks and berserk bonuses, the end and its
standings) must equal the recorded ones exactly; the walk stops at the first disagreement. The seed check
and the walk are `domain.tournament.audit`'s, shared with the tournaments' audit.
"""

from __future__ import annotations

from typing import Any, Optional

from domain.tournament.arena.commands import ArenaCommand, Berserk, Close, Join, Leave, Pair, Pause, RecordResult
from domain.tournament.arena.events import (ArenaClosed, ArenaCreated, Berserked, GameScored, PlayerJoined, PlayerPaused,
                                            PlayersPaired, PlayerWithdrew, SeedRevealed)
from domain.tournament.arena.evolve import evolve
from domain.tournament.arena.rules import decide
from domain.tournament.audit import AuditReport, audit, count
from domain.kernel import Outcome


class VerifyReport(AuditReport, kw_only=True):
    """The audit's findings (`AuditReport`) with the pairings and games it re-derived."""

    pairings_checked: int = 0
    games_checked: int = 0


def _cause(event: Any) -> tuple[Optional[ArenaCommand], Optional[str]]:
    """The command (and its actor; None: the platform) that produced `event` at the head of a decision."""
    match event:
        case PlayerJoined() if event.by is not None:  # the organiser entered the player (a bot)
            return Join(name=event.name, rating=event.rating, player_id=event.player_id), event.by
        case PlayerJoined():
            return Join(name=event.name, rating=event.rating), event.player_id
        case PlayerPaused():
            return Pause(), event.player_id
        case PlayerWithdrew():
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
            return RecordResult(game_id=event.game_id, outcome=outcome, moves=event.moves), None
    return None, None


def verify(events: list[Any]) -> VerifyReport:
    """Every problem found in an arena's event list (none: the arena was run as recorded)."""
    report, decisions = audit(VerifyReport(), events, ArenaCreated, SeedRevealed, evolve,
                              lambda _, event: _cause(event), decide, lambda state: state.finished)
    report.pairings_checked = count(decisions, PlayersPaired)
    report.games_checked = count(decisions, GameScored)
    return report
