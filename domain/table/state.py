"""The platform's state of one game stream: seats, status, clock, and the game's own state inside."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from domain.clock import Clock, TimeControl
from domain.kernel import Outcome

Status = Literal["open", "active", "finished", "aborted"]


class SeatInfo(msgspec.Struct, frozen=True):
    seat: int
    player_id: str
    name: str


class TableState(msgspec.Struct, frozen=True, kw_only=True):
    """Everything known about one game stream after folding `version` events."""

    kind: str
    options: Any
    seat_count: int
    seats: tuple[SeatInfo | None, ...]
    seed: str
    commitment: str
    created_by: str | None = None
    status: Status = "open"
    game: Any = None
    outcome: Outcome | None = None
    version: int = 0
    revealed: bool = False
    resigned: tuple[int, ...] = ()  # seats that left the running game, in the order they left
    play_on: bool = False  # GameCreated.play_on: seats that leave a game of 3+ seats are played for
    time_control: TimeControl | None = None
    clock: Clock | None = None
    last: Any = None  # the latest game event that is a command's own result (the kind's `phrases`)


def snapshot_type(options_type: type, state_type: type, event_type: Any = Any) -> type:
    """TableState's shape with the kind's own option, state and event types, for decoding snapshots."""
    own = {"options": options_type, "game": state_type | None, "last": event_type | None}
    fields: list[Any] = []
    for f in msgspec.structs.fields(TableState):
        kind = own.get(f.name, f.type)
        fields.append((f.name, kind) if f.required else (f.name, kind, f.default))
    return msgspec.defstruct("Snapshot", fields, kw_only=True, frozen=True)
