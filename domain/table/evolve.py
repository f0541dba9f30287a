"""Folding a game stream: one small function per platform event type, found through `EVOLVERS`.

Every event bumps the stream version. A platform event changes the platform's state; any
other event is the game's own and is folded by the game's `evolve` into `TableState.game`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain.clock import ClockSet, TimedOut, new_clock
from domain.clock import apply as apply_clock
from domain.kernel import Game, own_result
from domain.table.events import (GameAborted, GameCreated, GameEnded, GameStarted, SeatLeft, SeatResigned, SeatTaken,
                                 SeedRevealed)
from domain.table.state import SeatInfo, TableState


def created(event: GameCreated, options: Any) -> TableState:
    """The state a stream's `GameCreated` opens, with its options already decoded."""
    assert event.seed is not None, "GameCreated must carry the seed in the store"
    return TableState(
        kind=event.kind, options=options, seat_count=event.seats, seats=(None,) * event.seats, seed=event.seed,
        commitment=event.seed_commitment, created_by=event.created_by, version=1, time_control=event.time_control,
        clock=new_clock(event.time_control, event.seats) if event.time_control else None, play_on=event.play_on)


def _seated(state: TableState, seat: int, info: SeatInfo | None) -> TableState:
    seats = list(state.seats)
    seats[seat] = info
    return replace(state, seats=tuple(seats))


def _seat_taken(state: TableState, event: SeatTaken) -> TableState:
    return _seated(state, event.seat, SeatInfo(event.seat, event.player_id, event.name))


def _seat_left(state: TableState, event: SeatLeft) -> TableState:
    return _seated(state, event.seat, None)


def _seat_resigned(state: TableState, event: SeatResigned) -> TableState:
    return replace(state, resigned=(*state.resigned, event.seat))


def _clock_changed(state: TableState, event: ClockSet | TimedOut) -> TableState:
    assert state.clock is not None, "clock events need a time control"
    return replace(state, clock=apply_clock(state.clock, event))


def _game_started(state: TableState, event: GameStarted) -> TableState:
    return replace(state, status="active")


def _game_ended(state: TableState, event: GameEnded) -> TableState:
    return replace(state, status="finished", outcome=event.outcome)


def _game_aborted(state: TableState, event: GameAborted) -> TableState:
    return replace(state, status="aborted")


def _seed_revealed(state: TableState, event: SeedRevealed) -> TableState:
    return replace(state, revealed=True)


EVOLVERS: dict[type, Callable[[TableState, Any], TableState]] = {
    SeatTaken: _seat_taken, SeatLeft: _seat_left, SeatResigned: _seat_resigned, ClockSet: _clock_changed,
    TimedOut: _clock_changed, GameStarted: _game_started, GameEnded: _game_ended, GameAborted: _game_aborted,
    SeedRevealed: _seed_revealed,
}


class TableFolding:
    """The `Table` part that folds events; options stored by an earlier version are upgraded on the way."""

    game: Game
    _stored_options: Callable[[dict[str, Any], int], Any]  # from OptionsRules

    def evolve(self, state: TableState | None, event: Any) -> TableState:
        """The state after `event`: a platform event by `EVOLVERS`, any other by the game's `evolve`."""
        if isinstance(event, GameCreated):
            return created(event, self._stored_options(event.options, event.seats))
        assert state is not None, "a stream starts with GameCreated"
        platform = EVOLVERS.get(type(event))
        if platform is not None:
            after = platform(state, event)
        else:
            last = event if own_result(self.game.phrases, state.game, event) else state.last
            after = replace(state, game=self.game.evolve(state.game, event), last=last)
        return replace(after, version=state.version + 1)

    def fold(self, events: list[Any], state: TableState | None = None) -> TableState:
        for event in events:
            state = self.evolve(state, event)
        assert state is not None, "cannot fold an empty stream"
        return state
