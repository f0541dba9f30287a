"""Auditing a finished tournament: every decision re-made from the revealed seed must match the record.

`verify(events)` takes the tournament's whole event list (as stored, or the
public log after the end), checks the revealed seed against the commitment
published at creation, then walks the log: each registration, withdrawal,
start, result, pause, removal, forbidden pairing, manual pairing (`SetPairings`), playing windows (`SetWindows`), annulment and adjudication is turned back into the command that caused it and decided
again from the state before it, with `rng_for(state)`. The events decided
again (the seeded draw, every pairing with its game ids and game seeds, the
rank points, the end and its standings) must equal the recorded ones exactly,
except a two-seat Swiss pairing of rule 2 or 4, which must keep the round's
constraints at no more than the optimal cost (`pairing.equivalent`; each
tournament is audited by the rule recorded at its creation);
the walk stops at the first disagreement. An event no command explains (a
pairing nobody asked for) is a problem too. The seed check and the walk are `domain.tournament.audit`'s,
shared with the arenas' audit.
"""

from __future__ import annotations

from typing import Any, Optional

from domain.tournament.audit import AuditReport, audit, count
from domain.kernel import Outcome
from domain.tournament.commands import (Adjudicate, Annul, ForbidPairing, Pause, RecordResult, Register, RemovePlayer,
                                        Resume, SetPairings, SetWindows, Start, TournamentCommand, Withdraw)
from domain.tournament.events import (PairingForbidden, PairingsSet, PlayerPaused, PlayerRegistered, PlayerRemoved, PlayerResumed,
                                      PlayerWithdrew, ResultAdjudicated, ResultAnnulled, ResultRecorded, RoundPaired,
                                      SeedRevealed, TournamentCreated, TournamentStarted, WindowsSet)
from domain.tournament.evolve import evolve
from domain.tournament.pairing import equivalent
from domain.tournament.rules import decide
from domain.tournament.state import TournamentState, rng_for


class VerifyReport(AuditReport, kw_only=True):
    """The audit's findings (`AuditReport`) with the rounds it re-derived."""

    rounds_checked: int = 0


def _cause(state: TournamentState, event: Any) -> tuple[Optional[TournamentCommand], Optional[str]]:
    """The command (and its actor) that produced `event` at the head of a decision, if any."""
    match event:
        case PlayerRegistered():
            return (Register(name=event.name, rating=event.rating, player_id=event.player_id,
                             rated_games=event.rated_games, code=event.code), event.invited_by or event.player_id)
        case PlayerPaused():
            return Pause(player_id=event.player_id), event.player_id
        case PlayerResumed():
            return Resume(player_id=event.player_id), event.player_id
        case PlayerRemoved():
            return RemovePlayer(player_id=event.player_id, reason=event.reason), state.organiser
        case PairingForbidden():
            return ForbidPairing(players=list(event.players)), state.organiser
        case PairingsSet():
            return SetPairings(round=event.round, tables=[list(t) for t in event.tables],
                               byes=list(event.byes)), state.organiser
        case WindowsSet():
            return SetWindows(windows=list(event.windows)), event.player_id
        case ResultAnnulled():
            return Annul(game_id=event.game_id), state.organiser
        case ResultAdjudicated():
            return Adjudicate(game_id=event.game_id, ranks=list(event.ranks)), state.organiser
        case PlayerWithdrew():
            return Withdraw(player_id=event.player_id), event.player_id
        case TournamentStarted():
            return Start(), state.organiser
        case ResultRecorded():
            winners = [seat for seat, rank in enumerate(event.ranks) if rank == 1]
            outcome = Outcome(scores=list(event.scores), ranks=list(event.ranks), winners=winners)
            return RecordResult(game_id=event.game_id, outcome=outcome), None
    return None, None


def verify(events: list[Any]) -> VerifyReport:
    """Every problem found in a tournament's event list (none: the tournament was run as recorded)."""
    report, decisions = audit(VerifyReport(), events, TournamentCreated, SeedRevealed, evolve, _cause,
                              lambda s, actor, command: decide(s, actor, command, rng_for(s)),
                              lambda state: state.status == "finished", _agrees)
    report.rounds_checked = count(decisions, RoundPaired)
    return report


def _agrees(state: TournamentState, recorded: list[Any], expected: list[Any]) -> bool:
    """Recorded events that differ from the derived ones only by pairings as good (`pairing.equivalent`)."""
    if len(recorded) != len(expected):
        return False
    for r, e in zip(recorded, expected):
        if r != e and not (isinstance(r, RoundPaired) and isinstance(e, RoundPaired) and equivalent(state, r, e)):
            return False
        state = evolve(state, r)
    return True
