"""A game's public resource (`GameOut`, the same for the API and the streams), composed for one viewer
from its state."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from domain.clock import TimeControl
from domain.table import Table, TableState
from service.commands.players import Viewer
from service.commands.visibility import seat_of



class PerVersion:
    """Answers made once per version of a stream and key (say, a seat's legal list), kept for the
    newest version asked of each of the `capacity` streams asked last: however many times a seat
    reads its legal commands or its view of one version, they are computed and encoded once."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._kept: OrderedDict[str, tuple[int, dict[Hashable, Any]]] = OrderedDict()

    def get(self, stream_id: str, version: int, key: Hashable, make: Callable[[], Any]) -> Any:
        """The answer for (`stream_id`, `version`, `key`), made by `make` the first time (encoded bytes, or
        a value its callers only read)."""
        kept = self._kept.get(stream_id)
        if kept is not None and kept[0] > version:
            return make()  # an older version (a lagging replica's read): not kept over the newer one
        if kept is None or kept[0] < version:
            kept = self._kept[stream_id] = (version, {})
            while len(self._kept) > self.capacity:
                self._kept.popitem(last=False)
        self._kept.move_to_end(stream_id)
        found = kept[1].get(key)
        if found is None:
            found = kept[1][key] = make()
        return found


def legal_commands(table: Table, state: TableState, seat: int | None) -> list[Any]:
    """The seat's legal commands in `state` (what getLegalCommands answers), as structs: every caller
    encodes them as JSON (msgspec writes a command as `to_builtins` would make it, in a quarter of the
    time: no dicts built first)."""
    if seat is None:
        return []
    return table.legal(state, seat)


def legal_list(answers: PerVersion, game_id: str, table: Table, state: TableState, seat: int | None) -> Any:
    """`legal_commands`, listed once per version and seat: a command's `include=legal` and `getLegalCommands`
    share the list (a seat that acts again reads what its command's answer listed). Callers only encode it,
    never change it."""
    if seat is None:
        return []
    return answers.get(game_id, state.version, ("legal-list", seat), lambda: legal_commands(table, state, seat))


class SeatOut(msgspec.Struct, kw_only=True):
    seat: int
    player_id: str | None
    name: str | None


class OutcomeOut(msgspec.Struct, kw_only=True):
    scores: list[int]
    ranks: list[int]
    winners: list[int]
    details: dict[str, Any] = {}


Status = Literal["open", "active", "finished", "aborted"]


class ClockOut(msgspec.Struct, kw_only=True):
    """The game's clock as its last ClockSet left it (times in milliseconds since the epoch)."""

    remaining_ms: Annotated[list[int], Meta(description="each seat's time left (total time controls)")]
    deadlines_ms: Annotated[list[int | None], Meta(description="when each acting seat times out (null: not acting)")]
    timeouts: Annotated[list[int], Meta(description="each seat's consecutive timeouts")]


class GameOut(msgspec.Struct, kw_only=True):
    id: str
    kind: str
    options: dict[str, Any]
    status: Status
    seats: list[SeatOut]
    version: int
    to_act: list[int]
    your_seat: int | None
    seed_commitment: str
    view: Any  # the kind's view struct, encoded as is (to_builtins first doubled a view's encoding time)
    outcome: OutcomeOut | None
    time_control: TimeControl | None = None
    clock: ClockOut | None = None


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
                   seed_commitment=state.commitment, view=view, outcome=outcome,
                   time_control=state.time_control, clock=clock_out(state))


def clock_out(state: TableState) -> ClockOut | None:
    """The clock of a running game with a time control."""
    clock = state.clock
    if clock is None or state.status != "active":
        return None
    return ClockOut(remaining_ms=list(clock.remaining_ms), deadlines_ms=list(clock.deadlines_ms),
                    timeouts=list(clock.timeouts))
