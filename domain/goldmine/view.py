"""Gold Mine view and redact, the only exits of state towards a seat.

Everything is public except `GoldmineState.hidden`: the view gives only the
sizes of the stack and of the scout tiles left, and `redact` blanks the
shuffle and the depth at which an unplaceable tile went back into the stack.
Every face-up tile (on the board, in the five_tiles hands, just drawn) comes
with its printed data (`TileFace`: design, kind, paths with their sides,
chambers, secret passages and mud) beside its id. The same rules hold for
every seat and the spectator.
"""

from __future__ import annotations

import msgspec

from domain.goldmine.components import TileFace, face
from domain.goldmine.events import GoldmineEvent, TileReturned, TilesShuffled
from domain.goldmine.rules import destinations, to_act
from domain.goldmine.options import GoldmineOptions
from domain.goldmine.state import GoldmineState, Pirate
from domain.kernel import View


class PlacedTile(msgspec.Struct, frozen=True, kw_only=True):
    """A tile in the cave: its cell, its quarter turns clockwise, whether its chamber holds a coin,
    and its printed data (sides before rotation)."""

    x: int
    y: int
    rotation: int
    coin: bool
    tile: TileFace


class GoldmineView(View, frozen=True, kw_only=True, tag="goldmine"):
    """What any seat (or a spectator) sees of the game; `scores` are the coins each pirate holds.

    `die` is the die the turn's pending or last move was rolled for (0 before any roll this turn,
    and after a secret-passage roll that opened the passage). `steps_left` is how many tile-steps
    the pirate to move (`mover`) may still take now: the die while a rolled, bonus or bats move is
    pending; 1 for the optional step onto a just explored tile when its path connects; else 0
    (the move made, the secret passage open, the action).
    """

    options: GoldmineOptions
    seats: int
    target: int
    board: list[PlacedTile]
    pirates: list[Pirate]
    hands: list[list[TileFace]]
    stack_size: int
    scout_left: int
    first: int
    current: int
    drawn: TileFace | None
    die: int
    steps_left: int
    chooser: int
    mover: int
    turns: int
    winners: list[int]
    capped: bool
    dead_cave: bool


STEPPING = ("roll_move", "bonus", "bats_move")


def steps_left(state: GoldmineState) -> int:
    """Tile-steps the mover may still take now (see `GoldmineView`)."""
    if state.phase in STEPPING:
        return state.die
    return 1 if state.phase == "step" and destinations(state) else 0


def view(state: GoldmineState, seat: int | None) -> GoldmineView:
    """The public state; the stack order and the undrawn scout tiles are left out."""
    return GoldmineView(
        seat=seat, phase=state.phase, to_act=sorted(to_act(state)), scores=[p.coins for p in state.pirates],
        options=state.options, seats=state.seats, target=state.target,
        board=[PlacedTile(x=c.x, y=c.y, rotation=c.rotation, coin=c.coin, tile=face(c.tile)) for c in state.board],
        pirates=list(state.pirates), hands=[[face(t) for t in hand] for hand in state.hands],
        stack_size=len(state.hidden.stack), scout_left=len(state.hidden.scout), first=state.first,
        current=state.current, drawn=face(state.drawn) if state.drawn else None, die=state.die, steps_left=steps_left(state),
        chooser=state.chooser, mover=state.mover, turns=state.turns, winners=list(state.winners),
        capped=state.capped, dead_cave=state.dead_cave)


def redact(event: GoldmineEvent, seat: int | None) -> GoldmineEvent | None:
    """The event as any seat may see it while the game runs."""
    if isinstance(event, TilesShuffled):
        return TilesShuffled(stack=None, scout=None)
    if isinstance(event, TileReturned):
        return TileReturned(tile=event.tile, depth=None)
    return event
