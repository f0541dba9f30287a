"""Clocks: the time control a game may be created with, and its deadlines as events.

The domain reads no clock: the service hands the current time (`now_ms`, milliseconds since
the epoch) to each decision, and every change of the clock is written as a public `ClockSet`
event carrying that time, so replay never asks for the time again and `stela verify`
re-decides a batch with the `at_ms` its own `ClockSet` recorded.

Rules (the same for every kind):
- `per_move_seconds`: each command the seat must make has its own deadline, counted from
  the moment the seat came to act (or from its previous command, within a multi-command turn).
- `total_seconds` (+ `increment_seconds`): a chess clock per seat. While a seat must act its
  time runs; a command charges the time since it came to act and then adds the increment.
  Seats acting simultaneously all run at once.
- A seat past its deadline is timed out by the platform command `table.TimeOut` (sent by the
  service's timeout worker, never by players): the kind's timeout rule plays for it (its
  `timeout_command`, else its end-of-turn command `EndTurn`/`Pass` when legal, else the first
  command its `legal` offers, so a turn that must place something places it somewhere legal);
  when nothing can be played the seat forfeits. `abandon_after` consecutive timeouts abandon
  the seat: a game of two seats ends (the resignation rule ranks it last); in a game of three or
  more the seat has left, the timeout rule plays for it and the game goes on (domain/table).
- `windows` (slow per-move controls only, `domain.windows`): per seat, the weekly hours (UTC) its
  player is at the board; that seat's per-move time counts only inside them (`windows.deadline`), so
  it never times out while asleep. A competition fills them from its players' windows when it pairs.
"""

from __future__ import annotations

from typing import Annotated, Optional

import msgspec

from domain import windows as W
from domain.windows import Window


class TimeControl(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A game's time control: a deadline per move, or a total per seat with an increment."""

    per_move_seconds: Optional[Annotated[int, msgspec.Meta(ge=1, le=30 * 86400, description=(
        "seconds for each command a seat must make (per-move deadline)"))]] = None
    total_seconds: Optional[Annotated[int, msgspec.Meta(ge=1, le=30 * 86400, description=(
        "each seat's total thinking time (a chess clock)"))]] = None
    increment_seconds: Annotated[int, msgspec.Meta(ge=0, le=86400, description=(
        "seconds added to a seat's total after each of its commands"))] = 0
    abandon_after: Annotated[int, msgspec.Meta(ge=1, le=100, description=(
        "consecutive timeouts after which the seat is abandoned: a two-seat game ends, a larger one goes "
        "on with the kind's timeout rule playing for the seat, ranked last"))] = 3
    # left out (UNSET) when not set, so every game recorded before windows existed encodes as it was
    windows: Annotated[list[list[Window]], msgspec.Meta(max_length=6, description=(
            "per seat, in seat order: the weekly windows (UTC) in which that seat's per-move time runs ([]: any "
            "time); only with per_move_seconds of 12 hours or more. A competition fills it from its players' "
            "playing windows"))] | msgspec.UnsetType = msgspec.UNSET

    def problem(self) -> Optional[str]:
        """Why this time control is incomplete, or None."""
        if (self.per_move_seconds is None) == (self.total_seconds is None):
            return "give exactly one of per_move_seconds and total_seconds"
        if self.windows is not msgspec.UNSET:
            if not W.is_slow(self.per_move_seconds):
                return f"windows need per_move_seconds of at least {W.SLOW_PER_MOVE_SECONDS}"
            for seat in self.windows:
                found = W.problem(seat) if seat else None
                if found is not None:
                    return f"windows: {found[1]}"
        return None

    def seat_windows(self, seat: int) -> list[Window]:
        """The windows `seat`'s per-move time runs in ([]: any time)."""
        if self.windows is msgspec.UNSET or seat >= len(self.windows):
            return []
        return self.windows[seat]


class Clock(msgspec.Struct, frozen=True, kw_only=True):
    """The clock as it stands: per seat, time left, when its wait began, its deadline."""

    remaining_ms: tuple[int, ...]
    since_ms: tuple[Optional[int], ...]
    deadlines_ms: tuple[Optional[int], ...]
    timeouts: tuple[int, ...]


class ClockSet(msgspec.Struct, frozen=True, kw_only=True, tag="table.ClockSet", tag_field="type"):
    """The clock changed at `at_ms`: every seat's time left, wait start and deadline (None = not acting)."""

    at_ms: int
    remaining_ms: list[int]
    since_ms: list[Optional[int]]
    deadlines_ms: list[Optional[int]]
    timeouts: list[int]


class TimedOut(msgspec.Struct, frozen=True, kw_only=True, tag="table.TimedOut", tag_field="type"):
    """`seat` passed its deadline at `at_ms`; `consecutive` counts its timeouts in a row."""

    seat: int
    at_ms: int
    consecutive: int
    played: Optional[str] = None  # the command played for it, or None when it forfeited


class TimeOut(msgspec.Struct, frozen=True, kw_only=True, tag="table.TimeOut", tag_field="type"):
    """Platform command of the timeout worker: `seat` is past its deadline at `at_ms`."""

    seat: int
    at_ms: int


def new_clock(control: TimeControl, seats: int) -> Clock:
    """Nobody acting yet, every seat with its full time."""
    full = 1000 * (control.total_seconds or 0)
    return Clock(remaining_ms=(full,) * seats, since_ms=(None,) * seats, deadlines_ms=(None,) * seats,
                 timeouts=(0,) * seats)


def unchanged_at(clock: Clock, acted: Optional[int]) -> int:
    """A time at which `advance` leaves `clock` as it is after `acted` acts: for replaying a decision
    that recorded no ClockSet. Only one decision records none: one made in the very millisecond its
    seat's clock started, the seat still to act after it (any time will do when that seat's clock was
    not running, for then no seat started or stopped)."""
    if acted is not None and clock.since_ms[acted] is not None:
        return clock.since_ms[acted]
    return max((s for s in clock.since_ms if s is not None), default=0)


def advance(control: TimeControl, clock: Clock, acted: Optional[int], acting: frozenset[int], now_ms: int,
            timed_out: bool = False) -> Optional[ClockSet]:
    """The clock after `acted` (None: nobody) made a command at `now_ms` and `acting` must act now.

    Returns None when nothing changed. A seat that acted by itself has its timeout count reset.
    """
    remaining = list(clock.remaining_ms)
    since = list(clock.since_ms)
    timeouts = list(clock.timeouts)
    if acted is not None and since[acted] is not None:
        if control.total_seconds is not None:
            spent = max(0, now_ms - since[acted])  # type: ignore[operator]
            remaining[acted] = max(0, remaining[acted] - spent) + 1000 * control.increment_seconds
        since[acted] = None
    if acted is not None and not timed_out:
        timeouts[acted] = 0
    for seat in range(len(since)):
        if seat not in acting:
            since[seat] = None
        elif since[seat] is None:
            since[seat] = now_ms
    deadlines: list[Optional[int]] = []
    for seat, start in enumerate(since):
        if start is None:
            deadlines.append(None)
        elif control.per_move_seconds is not None:
            deadlines.append(W.deadline(control.seat_windows(seat), start, 1000 * control.per_move_seconds))
        else:
            deadlines.append(start + remaining[seat])
    if (tuple(remaining), tuple(since), tuple(deadlines), tuple(timeouts)) == (
            clock.remaining_ms, clock.since_ms, clock.deadlines_ms, clock.timeouts):
        return None
    return ClockSet(at_ms=now_ms, remaining_ms=remaining, since_ms=since, deadlines_ms=deadlines, timeouts=timeouts)


def apply(clock: Clock, event: ClockSet | TimedOut) -> Clock:
    """Fold a clock event."""
    if isinstance(event, TimedOut):
        timeouts = list(clock.timeouts)
        timeouts[event.seat] = event.consecutive
        return msgspec.structs.replace(clock, timeouts=tuple(timeouts))
    return Clock(remaining_ms=tuple(event.remaining_ms), since_ms=tuple(event.since_ms),
                 deadlines_ms=tuple(event.deadlines_ms), timeouts=tuple(event.timeouts))
