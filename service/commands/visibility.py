"""What a viewer may see: the one rule, and events shown through it.

A viewer sees the game as its own seat (a spectator as no seat) while the game runs; once it
has ended, or to an admin, everything is public. A game of a sealed duplicate deal (`sealing`:
another table of the same deal is still being played) is the exception: until the deal opens,
only its own seats may read it, each as its own seat, without the revealed seed, even after its
own end, and everyone else but an admin is refused (`DealSealed`, whose message says nothing
about the deal). `sight` is that rule (`look` looks the seal up first); `may_see_seat` asks it
whether another seat's view or stream may be shown; `shown` and `wire` redact one event.
Every reader (the command response, the event pages, the export, SSE, the lobby) goes through
these functions.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from domain.table import SeatTaken, Table, TableState
from domain.table.events import SeedRevealed
from service.commands.exceptions import DealSealed, GameRunning, SeatNotFound
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
    """How one viewer sees one game now: as `seat` (None = spectator), or everything when `public`;
    `sealed`: its duplicate deal is sealed (the revealed seed is not shown either)."""

    seat: int | None
    public: bool
    sealed: bool = False


class Seals(Protocol):
    async def sealed(self, game_id: str, running: bool) -> bool: ...


SEALED = "this game belongs to a duplicate deal still being played: only its own seats may read it until then"


def seat_of(table: Table, state: TableState, viewer: Viewer) -> int | None:
    """The viewer's own seat in the game, if any."""
    return table.seat_of(state, viewer.player_id) if viewer.player_id else None


def is_public(state: TableState, viewer: Viewer) -> bool:
    """Everything is visible after the end, and to an admin."""
    return viewer.admin or state.status in _OVER


def sight(table: Table, state: TableState, viewer: Viewer, sealed: bool = False) -> Sight:
    """The rule: how `viewer` sees the game in `state` (`sealed`: its duplicate deal is still sealed).
    Raises DealSealed for anyone but its own seats and an admin while the deal is sealed."""
    seat = seat_of(table, state, viewer)
    if not sealed or viewer.admin:
        return Sight(seat, is_public(state, viewer))
    if seat is None:
        raise DealSealed(SEALED)
    return Sight(seat, False, True)


def needs_seal(table: Table, state: TableState, viewer: Viewer) -> bool:
    """Could a seal change what `viewer` sees? Not for an admin, nor for a seat of a game still running."""
    return not viewer.admin and (state.status in _OVER or seat_of(table, state, viewer) is None)


async def look(seals: Seals, game_id: str, table: Table, state: TableState, viewer: Viewer) -> Sight:
    """`sight`, with the seal of `game_id`'s deal looked up when it could matter."""
    sealed = needs_seal(table, state, viewer) and await seals.sealed(game_id, state.status not in _OVER)
    return sight(table, state, viewer, sealed)


def may_see_seat(seen: Sight, seat: int) -> bool:
    """May a viewer who has `seen` see exactly what `seat` sees? Its own seat always; any seat once public."""
    return seen.public or seen.seat == seat


def require_seat(seen: Sight, state: TableState, seat: int) -> None:
    """GameRunning unless a viewer who has `seen` may see as `seat`; SeatNotFound when there is no such seat."""
    if not may_see_seat(seen, seat):
        raise GameRunning(SEALED if seen.sealed else "another seat's view is public only after the end")
    if not 0 <= seat < state.seat_count:
        raise SeatNotFound(f"the game has seats 0..{state.seat_count - 1}")


def require_public(seen: Sight) -> None:
    """GameRunning unless the whole log is visible to a viewer who has `seen`."""
    if not seen.public:
        raise GameRunning(SEALED if seen.sealed else "the full log is available after the game ends (or to an admin)")


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
    if redacted is None or (seen.sealed and isinstance(redacted, SeedRevealed)):
        return None
    return WireEvent(version=version, type=table.event_type(event), data=table.event_data(redacted), at=at)


def wire(table: Table, event: StoredEvent, seat: int | None, public: bool, sealed: bool = False) -> WireEvent | None:
    """One stored event as `seat` (None = spectator) may see it, or None when it shows nothing."""
    return shown(table, table.decode_event(event.type, event.data), event.version, event.at.isoformat(),
                 Sight(seat, public, sealed))


def visible(table: Table, stored: list[StoredEvent], seen: Sight) -> list[WireEvent]:
    """`stored` events as a viewer who has `seen` may see them now."""
    return [e for event in stored if (e := wire(table, event, seen.seat, seen.public, seen.sealed)) is not None]
