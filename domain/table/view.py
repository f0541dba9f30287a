"""The platform's reading of a stream: who acts, what is legal, each seat's view and redacted events."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.kernel import Game, describe
from domain.table.events import TABLE_EVENTS, GameCreated
from domain.table.state import TableState


class TableReading:
    """The `Table` part that reads a state for a seat; the only exit of state and events."""

    game: Game

    @staticmethod
    def seat_of(state: TableState, player_id: str) -> int | None:
        for info in state.seats:
            if info is not None and info.player_id == player_id:
                return info.seat
        return None

    def to_act(self, state: TableState) -> list[int]:
        if state.status != "active" or state.game is None:
            return []
        return sorted(self.game.to_act(state.game))

    def legal(self, state: TableState, seat: int) -> list[Any]:
        """What `seat` may command now (nothing once it has left: the timeout rule plays for it)."""
        if state.status != "active" or state.game is None or seat in state.resigned:
            return []
        return self.game.legal(state.game, seat)

    def view(self, state: TableState, seat: int | None) -> Any:
        """The game view for `seat` (None = spectator); everything once the game is over."""
        if state.game is None:
            return None
        view = self.game.view(state.game, seat)
        if state.last is None:
            return view
        seen = state.last if state.status in ("finished", "aborted") else self.game.redact(state.last, seat)
        return view if seen is None else msgspec.structs.replace(view, last=describe(self.game.phrases, seen))

    def redact(self, event: Any, seat: int | None, public: bool) -> Any | None:
        """`event` as `seat` may see it; `public` (the game is over) shows everything."""
        if public:
            return event
        if isinstance(event, GameCreated):
            return msgspec.structs.replace(event, seed=None)
        if isinstance(event, TABLE_EVENTS):
            return event
        return self.game.redact(event, seat)
