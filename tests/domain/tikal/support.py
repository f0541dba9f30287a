"""Position builders for Tikal's rule tests (the given/when/refused themselves are tests.support.rules)."""

from __future__ import annotations

from domain.tikal.components import TILES, TREASURE_KINDS, TREASURE_PER_KIND
from domain.tikal.events import GameSetUp, PieceEntered, PieceMoved, ScoringRoundStarted, StackShuffled, TileDrawn
from domain.tikal.state import Space, TikalState, board_map

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


def walk(seat: int, to: tuple[int, int], count: int = 1, leader: bool = False) -> list:
    """Events putting `count` pieces of `seat` from the base camp onto `to` at no cost (to build a position)."""
    return [event for _ in range(count) for event in (
        PieceEntered(seat=seat, q=0, r=0, leader=leader, cost=0),
        PieceMoved(seat=seat, from_q=0, from_r=0, to_q=to[0], to_r=to[1], leader=leader, cost=0))]


def at(state: TikalState, q: int, r: int) -> Space:
    return board_map(state)[(q, r)]
