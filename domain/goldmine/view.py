"""Gold Mine view and redact, the only exits of state towards a seat.

Everything is public except `GoldmineState.hidden`: the view gives only the
sizes of the stack and of the scout tiles left, and `redact` blanks the
shuffle and the depth at which an unplaceable tile went back into the stack.
The same rules hold for every seat and the spectator.
"""

from __future__ import annotations

import msgspec

from domain.goldmine.events import GoldmineEvent, TileReturned, TilesShuffled
from domain.goldmine.state import Cell, GoldmineOptions, GoldmineState, Phase, Pirate


class GoldmineView(msgspec.Struct, frozen=True, kw_only=True):
    """What any seat (or a spectator) sees of the game."""

    options: GoldmineOptions
    seats: int
    target: int
    board: tuple[Cell, ...]
    pirates: tuple[Pirate, ...]
    hands: tuple[tuple[str, ...], ...]
    stack_size: int
    scout_left: int
    first: int
    current: int
    phase: Phase
    drawn: str | None
    die: int
    chooser: int
    mover: int
    turns: int
    winners: tuple[int, ...]
    capped: bool
    you: int | None


def view(state: GoldmineState, seat: int | None) -> GoldmineView:
    """The public state; the stack order and the undrawn scout tiles are left out."""
    return GoldmineView(
        options=state.options, seats=state.seats, target=state.target, board=state.board,
        pirates=state.pirates, hands=state.hands, stack_size=len(state.hidden.stack),
        scout_left=len(state.hidden.scout), first=state.first, current=state.current, phase=state.phase,
        drawn=state.drawn, die=state.die, chooser=state.chooser, mover=state.mover, turns=state.turns,
        winners=state.winners, capped=state.capped, you=seat)


def redact(event: GoldmineEvent, seat: int | None) -> GoldmineEvent | None:
    """The event as any seat may see it while the game runs."""
    if isinstance(event, TilesShuffled):
        return TilesShuffled(stack=None, scout=None)
    if isinstance(event, TileReturned):
        return TileReturned(tile=event.tile, depth=None)
    return event
