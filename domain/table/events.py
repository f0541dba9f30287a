"""The platform's events: a game stream's lifecycle around the game's own events (tags `table.*`)."""

from __future__ import annotations

from typing import Any, Literal, Union

import msgspec

from domain.clock import ClockSet, TimeControl, TimedOut
from domain.kernel import Outcome


class GameCreated(msgspec.Struct, frozen=True, kw_only=True, tag="table.GameCreated", tag_field="type"):
    kind: str
    options: dict[str, Any]
    seats: int
    seed_commitment: str
    created_by: str | None = None
    seed: str | None = None  # secret until the end: redacted from every reader while the game runs
    time_control: TimeControl | None = None
    # games created since abandonment exists: a seat that leaves a game of three or more seats is played by
    # the kind's timeout rule and the game goes on (False, as every earlier log reads: the game ends at once)
    play_on: bool = False


class SeatTaken(msgspec.Struct, frozen=True, kw_only=True, tag="table.SeatTaken", tag_field="type"):
    seat: int
    player_id: str
    name: str


class GameStarted(msgspec.Struct, frozen=True, kw_only=True, tag="table.GameStarted", tag_field="type"):
    seats: int


class GameEnded(msgspec.Struct, frozen=True, kw_only=True, tag="table.GameEnded", tag_field="type"):
    outcome: Outcome


class SeedRevealed(msgspec.Struct, frozen=True, kw_only=True, tag="table.SeedRevealed", tag_field="type"):
    seed: str


class GameAborted(msgspec.Struct, frozen=True, kw_only=True, tag="table.GameAborted", tag_field="type"):
    reason: str


class SeatLeft(msgspec.Struct, frozen=True, kw_only=True, tag="table.SeatLeft", tag_field="type"):
    """A player gave up their seat before the start; the seat is free again."""

    seat: int
    player_id: str


class SeatResigned(msgspec.Struct, frozen=True, kw_only=True, tag="table.SeatResigned", tag_field="type"):
    """A seat left a running game (`resigned` by its player, or `abandoned` after repeated timeouts).

    In a game created with `play_on` and three or more seats, the game goes on while two seats or more
    remain: the kind's timeout rule plays for the seat that left, and it ranks last at the end.
    """

    seat: int
    reason: Literal["resigned", "abandoned", "timed_out"] = "resigned"


TableEvent = Union[GameCreated, SeatTaken, GameStarted, GameEnded, SeedRevealed, GameAborted, SeatLeft, SeatResigned,
                   ClockSet, TimedOut]


TABLE_EVENTS: tuple[type, ...] = (GameCreated, SeatTaken, GameStarted, GameEnded, SeedRevealed, GameAborted,
                                  SeatLeft, SeatResigned, ClockSet, TimedOut)
