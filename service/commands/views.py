"""Compose a game's public resource for one viewer from its state."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.table import Table, TableState
from service.commands.players import Viewer
from service.edge.schemas import ClockOut, GameOut, OutcomeOut, SeatOut
from service.commands.visibility import seat_of


def seats_out(state: TableState) -> list[SeatOut]:
    return [SeatOut(seat=i, player_id=s.player_id if s else None, name=s.name if s else None)
            for i, s in enumerate(state.seats)]


def game_out(game_id: str, table: Table, state: TableState, viewer: Viewer, seat: int | None = None,
             as_seat: bool = False) -> GameOut:
    """The game as `viewer` sees it; `as_seat` forces the view of `seat` (replay after the end)."""
    if not as_seat:
        seat = seat_of(table, state, viewer)
    view: Any = table.view(state, seat)
    outcome = OutcomeOut(**msgspec.structs.asdict(state.outcome)) if state.outcome else None
    return GameOut(id=game_id, kind=state.kind, options=msgspec.to_builtins(state.options), status=state.status,
                   seats=seats_out(state), version=state.version, to_act=table.to_act(state), your_seat=seat,
                   seed_commitment=state.commitment, view=msgspec.to_builtins(view), outcome=outcome,
                   time_control=state.time_control, clock=clock_out(state))


def clock_out(state: TableState) -> ClockOut | None:
    """The clock of a running game with a time control."""
    clock = state.clock
    if clock is None or state.status != "active":
        return None
    return ClockOut(remaining_ms=list(clock.remaining_ms), deadlines_ms=list(clock.deadlines_ms),
                    timeouts=list(clock.timeouts))
