"""Cóatl rules of the opening: each seat keeps at most 3 of its dealt prophecy cards, in secret.

The seats decide at the same time; the last decision settles the hands and
starts the first turn.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Optional

from domain.coatl import components as C
from domain.coatl.codes import violation
from domain.coatl.commands import KeepProphecies
from domain.coatl.events import OpeningHandKept, OpeningHandsSettled, TurnStarted
from domain.coatl.state import CoatlState
from domain.kernel import RuleViolation


def keep_refusal(state: CoatlState, seat: int, command: KeepProphecies) -> Optional[RuleViolation]:
    """The refusal of keeping these cards, or None; the cards are a set: named once each, in any order."""
    if state.phase == "over":
        return violation("coatl.game_over", "the game is over")
    if state.phase != "opening":
        return violation("coatl.wrong_phase", "opening hands are settled")
    if state.players[seat].decided:
        return violation("coatl.already_decided", "this seat has chosen already")
    if len(command.cards) > C.OPENING_KEEP:
        return violation("coatl.keep_limit", "keep at most 3 cards")
    if len(set(command.cards)) != len(command.cards) or not set(command.cards) <= set(state.hidden.dealt[seat]):
        return violation("coatl.not_dealt", "keep only cards dealt to you, each once")
    return None


def keep_candidates(state: CoatlState, seat: int) -> list[KeepProphecies]:
    """Every way to keep at most 3 of the dealt cards."""
    dealt = sorted(state.hidden.dealt[seat])
    return [KeepProphecies(cards=k) for r in range(C.OPENING_KEEP + 1) for k in combinations(dealt, r)]


def decide_keep(state: CoatlState, seat: int, command: KeepProphecies) -> list[Any]:
    """The seat's secret choice; the last one settles the hands and starts the first turn."""
    kept = tuple(sorted(command.cards))  # a set, recorded in increasing order (as `legal` lists it)
    events: list[Any] = [OpeningHandKept(seat=seat, kept=kept,
                                         discarded=tuple(c for c in state.hidden.dealt[seat] if c not in kept))]
    if all(p.decided for s, p in enumerate(state.players) if s != seat):
        sizes = tuple(len(kept) if s == seat else len(h) for s, h in enumerate(state.hidden.hands))
        events += [OpeningHandsSettled(hand_sizes=sizes), TurnStarted(seat=state.first_player, actions=1)]
    return events
