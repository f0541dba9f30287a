"""Playing windows: the weekly hours (UTC) in which a player of a slow game is at the board, and the
per-move deadline that counts only time inside them, so nobody loses on time while asleep.

A window is a span of the week in whole minutes from Monday 00:00 UTC (`start` 0 to 10079, `end` 1
to 10080, start before end); a span across Sunday midnight is given as two windows. A player's
windows are *well formed* when every one is, they do not overlap (touching is allowed), and they add
up to at least `MIN_WEEKLY_MINUTES` a week, so nobody stalls a competition by playing one hour a week.

`deadline(windows, start_ms, allowed_ms)` is the normative rule: the first moment at which
`allowed_ms` of time inside the windows has passed since `start_ms` (with no windows: `start_ms +
allowed_ms`). Time outside the windows does not count, so a deadline never falls outside a window:
it lands inside one, or at its end when the time runs out exactly there. With W the windows' weekly
total, a deadline is at most ceil(allowed / W) weeks after its start.

Windows are for slow time controls only: a per-move time of at least `SLOW_PER_MOVE_SECONDS` (12
hours; Board Game Arena's turn-based and lichess's correspondence games count a move in hours or
days). A faster game is played at one sitting, where windows mean nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal, Optional

import msgspec

MINUTES_A_WEEK = 7 * 24 * 60
MINUTE_MS = 60_000
WEEK_MS = MINUTES_A_WEEK * MINUTE_MS
MONDAY_MS = 3 * 24 * 3600 * 1000  # the epoch (1970-01-01) was a Thursday: Monday 00:00 UTC came 3 days before
MIN_WEEKLY_MINUTES = 28 * 60  # four hours a day on average: a move then waits at most 6 weeks per week of play
SLOW_PER_MOVE_SECONDS = 12 * 3600
MAX_WINDOWS = 64

Problem = Literal["malformed", "overlap", "too_short"]


class Window(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weekly span in minutes from Monday 00:00 UTC: [start, end)."""

    start: Annotated[int, msgspec.Meta(ge=0, le=MINUTES_A_WEEK - 1, description=(
        "first minute of the window, counted from Monday 00:00 UTC (0 to 10079)"))]
    end: Annotated[int, msgspec.Meta(ge=1, le=MINUTES_A_WEEK, description=(
        "minute the window ends, after its start (1 to 10080, 10080 = the next Monday 00:00 UTC)"))]


class PlayingWindows(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A player's playing windows in a slow tournament (a per-move time of 12 hours or more): in every game
    paired from then on, their per-move deadline counts only time inside them, so nobody loses on time while
    asleep (the game's `time_control.windows`). They replace earlier ones; `[]` plays at any time again.
    Logged as `tournament.WindowsSet`, which `stela verify` re-decides; the tournament's view shows them."""

    windows: Annotated[list[Window], msgspec.Meta(max_length=MAX_WINDOWS, description=(
        "the weekly hours (UTC) the player plays in, each [start, end) in minutes from Monday 00:00 UTC; not "
        "overlapping, at least 28 hours a week in all; [] = any time"),
        examples=[[{"start": 1080, "end": 1440}, {"start": 2520, "end": 2880}]])]


def problem(windows: Sequence[Window]) -> Optional[tuple[Problem, str]]:
    """Why `windows` (not empty) are no player's playing windows, or None when they are well formed."""
    if len(windows) > MAX_WINDOWS:
        return "malformed", f"at most {MAX_WINDOWS} windows"
    for w in windows:
        if not 0 <= w.start < w.end <= MINUTES_A_WEEK:
            return "malformed", f"a window from minute {w.start} to {w.end}: 0 <= start < end <= {MINUTES_A_WEEK}"
    ordered = sorted(windows, key=lambda w: w.start)
    for a, b in zip(ordered, ordered[1:]):
        if a.end > b.start:
            return "overlap", f"the windows {a.start}-{a.end} and {b.start}-{b.end} overlap"
    total = weekly_minutes(windows)
    if total < MIN_WEEKLY_MINUTES:
        return "too_short", f"{total} minutes a week; at least {MIN_WEEKLY_MINUTES} ({MIN_WEEKLY_MINUTES // 60} hours)"
    return None


def weekly_minutes(windows: Sequence[Window]) -> int:
    """The minutes a week the (non-overlapping) windows cover."""
    return sum(w.end - w.start for w in windows)


def is_slow(per_move_seconds: object) -> bool:
    """Is a per-move time (seconds; None or anything else: none) slow enough for playing windows?"""
    return isinstance(per_move_seconds, int) and per_move_seconds >= SLOW_PER_MOVE_SECONDS


def week_start(at_ms: int) -> int:
    """Monday 00:00 UTC of the week holding `at_ms` (milliseconds since the epoch)."""
    return at_ms - (at_ms + MONDAY_MS) % WEEK_MS


def deadline(windows: Sequence[Window], start_ms: int, allowed_ms: int) -> int:
    """The first moment at which `allowed_ms` of time inside `windows` has passed since `start_ms`."""
    if not windows or allowed_ms <= 0:
        return start_ms + max(0, allowed_ms)
    spans = [(w.start * MINUTE_MS, w.end * MINUTE_MS) for w in sorted(windows, key=lambda w: w.start)]
    weekly = sum(end - begin for begin, end in spans)
    weeks = (allowed_ms - 1) // weekly  # whole weeks of windows first; what is left fits in the next week
    left, at = allowed_ms - weeks * weekly, start_ms + weeks * WEEK_MS
    monday = week_start(at)
    for week in range(3):  # a week from `at` covers `weekly` in full, so the end lies within two weeks' spans
        for begin, end in spans:
            lo, hi = max(at, monday + week * WEEK_MS + begin), monday + week * WEEK_MS + end
            if lo >= hi:
                continue
            if hi - lo >= left:
                return lo + left
            left -= hi - lo
    raise AssertionError("a week of windows covers its weekly total")
