"""Cóatl bound into the kernel's Game protocol as `GAME`."""

from __future__ import annotations

from typing import Any, Optional

from domain.coatl.codes import CODES
from domain.coatl.commands import CoatlCommand
from domain.coatl.events import CoatlEvent
from domain.coatl.evolve import evolve
from domain.coatl.flow import CoatlOptions, seat_scores, setup
from domain.coatl.rules import decide, legal, to_act
from domain.coatl.state import CoatlState
from domain.coatl.view import redact, view
from domain.kernel import Outcome, Rng, ranked


def outcome(state: CoatlState) -> Optional[Outcome]:
    """None until the last turn is played; then most points, then most cards beside completed coatls,
    then the best single coatl; a remaining tie is a shared win."""
    if state.phase != "over":
        return None
    from domain.coatl.flow import coatl_value

    scores = list(seat_scores(state))
    keys = []
    for seat, player in enumerate(state.players):
        done = [c for c in player.coatls if c.status != "open"]
        cards = sum(len(c.cards) + (c.temple is not None) for c in done)
        best = max((coatl_value(c) for c in done), default=0)
        keys.append((scores[seat], cards, best))
    result = ranked(scores, keys)
    result.details.update({"cards_beside_completed": [k[1] for k in keys], "best_coatl": [k[2] for k in keys],
                           "end_condition": state.end_condition})
    return result


class Coatl:
    kind = "coatl"
    title = "Cóatl"
    codes = CODES
    min_players = 2
    max_players = 4
    options_type = CoatlOptions
    command_type = CoatlCommand
    state_type = CoatlState
    event_type = CoatlEvent

    def setup(self, options: CoatlOptions, seats: int, rng: Rng) -> list[Any]:
        return setup(options, seats, rng)

    def evolve(self, state: Optional[CoatlState], event: Any) -> CoatlState:
        return evolve(state, event)

    def decide(self, state: CoatlState, seat: int, command: Any, rng: Rng) -> list[Any]:
        return decide(state, seat, command, rng)

    def legal(self, state: CoatlState, seat: int) -> list[Any]:
        return legal(state, seat)

    def to_act(self, state: CoatlState) -> frozenset[int]:
        return to_act(state)

    def view(self, state: CoatlState, seat: Optional[int]) -> Any:
        return view(state, seat)

    def redact(self, event: Any, seat: Optional[int]) -> Any:
        return redact(event, seat)

    def outcome(self, state: CoatlState) -> Optional[Outcome]:
        return outcome(state)


GAME = Coatl()
