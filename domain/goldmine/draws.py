"""Gold Mine tile draws: the scout map and exploring from the stack.

A drawn tile that fits nowhere goes back into the stack at a random depth (a
secret, written in `TileReturned`) and the next one is drawn in its place, so
the scout map always has `SCOUT_TILES` tiles unless no tile of the stack fits.
"""

from __future__ import annotations

from domain.goldmine.board import any_fits, fits_anywhere
from domain.goldmine.components import SCOUT_TILES
from domain.goldmine.events import GoldmineEvent, ScoutMapLaid, TileDrawn, TileReturned
from domain.goldmine.evolve import evolve
from domain.goldmine.state import GoldmineState, cells
from domain.kernel import Emitter, Rng


def draw_scout(state: GoldmineState, rng: Rng) -> list[GoldmineEvent]:
    """Turn up the next scout tile that fits for the current seat, or finish the scout map.

    A scout tile that fits nowhere goes back into the stack and the stack's next
    fitting tile is drawn in its place, while the map has fewer than 20 tiles.
    """
    emit = Emitter(evolve, state)
    while len(emit.state.board) - 1 < SCOUT_TILES:
        now = emit.state
        if now.hidden.scout:
            tile = now.hidden.scout[0]
            now = emit(TileDrawn(seat=now.current, tile=tile, source="scout"))
            if fits_anywhere(cells(now), tile):
                return emit.events
            emit(TileReturned(tile=tile, depth=rng.between(0, len(now.hidden.stack))))
        elif any_fits(cells(now), now.hidden.stack):
            emit(*draw_stack(now, now.current, rng))
            return emit.events
        else:
            break
    emit(ScoutMapLaid(seat=emit.state.first))
    return emit.events


def draw_stack(state: GoldmineState, seat: int, rng: Rng) -> list[GoldmineEvent]:
    """Draw until a tile fits; the caller has checked that some stack tile fits."""
    emit = Emitter(evolve, state)
    board = cells(state)
    while True:
        tile = emit.state.hidden.stack[0]
        now = emit(TileDrawn(seat=seat, tile=tile, source="stack"))
        if fits_anywhere(board, tile):
            return emit.events
        size = len(now.hidden.stack)
        # never back on top while other tiles remain, so the redraw differs
        emit(TileReturned(tile=tile, depth=rng.between(1, size) if size else 0))
