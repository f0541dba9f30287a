"""What a viewer may see: the one rule, and events shown through it.

A viewer sees the game as its own seat (a spectator as no seat) while the game runs; once it
has ended, or to an admin, everything is public. `sight` is that rule; `may_see_seat` asks it
whether another seat's view or stream may be shown; `shown` and `wire` redact one event.
Every reader (the command response, the event pages, SSE) goes through these functions.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.table import SeatTaken, Table, TableState
from service.commands.exceptions import GameRunning, SeatNotFound
from service.commands.players import Viewer
from service.store.protocol import StoredEvent

_OVER = ("finished", "aborted")


class WireEvent(msgspec.Struct, frozen=True):
    """An event as a reader receives it."""

    version: int
    type: str
    data: dict[str, Any]
    at: str


class Sight(msgspec.Struct, frozen=True):
    """How one viewer sees one game now: as `seat` (None = spectator), or everything when `public`."""

    seat: int | None
    public: bool


def seat_of(table: Table, state: TableState, viewer: Viewer) -> int | None:
    """The viewer's own seat in the game, if any."""
    return table.seat_of(state, viewer.player_id) if viewer.player_id else None


def is_public(state: TableState, viewer: Viewer) -> bool:
    """Everything is visible after the end, and to an admin."""
    return viewer.admin or state.status in _OVER


def sight(table: Table, state: TableState, viewer: Viewer) -> Sight:
    """The rule: how `viewer` sees the game in `state`."""
    return Sight(seat_of(table, state, viewer), is_public(state, viewer))


def may_see_seat(table: Table, state: TableState, viewer: Viewer, seat: int) -> bool:
    """May `viewer` see exactly what `seat` sees? Its own seat always; any seat once public."""
    seen = sight(table, state, viewer)
    return seen.public or seen.seat == seat


def require_seat(table: Table, state: TableState, viewer: Viewer, seat: int) -> None:
    """GameRunning unless `viewer` may see as `seat`; SeatNotFound when there is no such seat."""
    if not may_see_seat(table, state, viewer, seat):
        raise GameRunning("another seat's view is public only after the end")
    if not 0 <= seat < state.seat_count:
        raise SeatNotFound(f"the game has seats 0..{state.seat_count - 1}")


def require_public(state: TableState, viewer: Viewer) -> None:
    """GameRunning unless the whole log is visible to `viewer`."""
    if not is_public(state, viewer):
        raise GameRunning("the full log is available after the game ends (or to an admin)")


def seat_taken_by(table: Table, events: list[StoredEvent], player_id: str | None) -> int | None:
    """The seat `player_id` took in `events`, if it took one (a viewer who sits down sees as that seat)."""
    if player_id is None:
        return None
    for event in events:
        if event.type == SeatTaken.__struct_config__.tag:
            taken = table.decode_event(event.type, event.data)
            if taken.player_id == player_id:
                return taken.seat
    return None


def shown(table: Table, event: Any, version: int, at: str, seen: Sight) -> WireEvent | None:
    """A decided (or decoded) domain event as `seen` may see it, or None when it shows nothing."""
    redacted = table.redact(event, seen.seat, seen.public)
    if redacted is None:
        return None
    return WireEvent(version=version, type=table.event_type(event), data=table.event_data(redacted), at=at)


def wire(table: Table, event: StoredEvent, seat: int | None, public: bool) -> WireEvent | None:
    """One stored event as `seat` (None = spectator) may see it, or None when it shows nothing."""
    return shown(table, table.decode_event(event.type, event.data), event.version, event.at.isoformat(),
                 Sight(seat, public))


def visible(table: Table, state: TableState, stored: list[StoredEvent], viewer: Viewer) -> list[WireEvent]:
    """`stored` events as `viewer` may see them now."""
    seen = sight(table, state, viewer)
    return [e for event in stored if (e := wire(table, event, seen.seat, seen.public)) is not None]
