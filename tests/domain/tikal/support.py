"""Given/when/then helpers for Tikal tests: build states from events, play commands, expect refusals."""

from __future__ import annotations

import msgspec
import pytest

from domain.kernel import Rng, RuleViolation
from domain.tikal.components import TILES, TREASURE_KINDS, TREASURE_PER_KIND
from domain.tikal.events import GameSetUp, PieceEntered, PieceMoved, ScoringRoundStarted, StackShuffled, TileDrawn
from domain.tikal.game import GAME
from domain.tikal.state import Space, TikalState, board_map

RNG = Rng(b"tikal-tests", 0)
DEFAULT_TREASURES = [k for k in TREASURE_KINDS for _ in range(TREASURE_PER_KIND)]


def opening(seats: int = 2, stack: list[str] | None = None, variant: str = "standard", edition: str = "original",
            treasures: list[str] | None = None, start_score: int = 0) -> list:
    """Setup events with a chosen stack (top first); standard games draw the first tile for seat 0."""
    stack = stack if stack is not None else sorted(TILES)
    events: list = [GameSetUp(seats=seats, first_seat=0, variant=variant, edition=edition, start_score=start_score),
                    StackShuffled(tiles=stack, treasures=treasures or DEFAULT_TREASURES)]
    if variant == "standard":
        events.append(TileDrawn(seat=0, tile=stack[0]))
        if TILES[stack[0]].kind == "volcano":
            events.append(ScoringRoundStarted(kind="volcano", order=list(range(seats)), number=1))
    return events


def given(*events) -> TikalState:
    state = None
    for event in events:
        state = GAME.evolve(state, event)
    assert state is not None
    return state


def when(state: TikalState, seat: int, command) -> tuple[TikalState, list]:
    """Decide `command` for `seat` and fold the events; the command must also be offered by legal()."""
    assert command in GAME.legal(state, seat), f"{command} not offered by legal()"
    events = GAME.decide(state, seat, command, RNG)
    for event in events:
        state = GAME.evolve(state, event)
    return state, events


def refused(state: TikalState, seat: int, command, code: str) -> None:
    """The command is refused with `code` and legal() does not offer it."""
    with pytest.raises(RuleViolation) as exc:
        GAME.decide(state, seat, command, RNG)
    assert exc.value.code == code, exc.value
    assert code in GAME.codes
    assert command not in GAME.legal(state, seat)


def walk(seat: int, to: tuple[int, int], count: int = 1, leader: bool = False) -> list:
    """Events putting `count` pieces of `seat` from the base camp onto `to` at no cost (to build a position)."""
    return [event for _ in range(count) for event in (
        PieceEntered(seat=seat, q=0, r=0, leader=leader, cost=0),
        PieceMoved(seat=seat, from_q=0, from_r=0, to_q=to[0], to_r=to[1], leader=leader, cost=0))]


def at(state: TikalState, q: int, r: int) -> Space:
    return board_map(state)[(q, r)]


def encoded(value) -> str:
    return msgspec.json.encode(value).decode()
