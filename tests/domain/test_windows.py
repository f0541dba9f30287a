"""Playing windows (`domain.windows`): a per-move deadline counts only time inside a player's weekly windows,
and a game's clock puts it where a seat's windows say (`domain.clock.advance`)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from domain import windows as W
from domain.clock import TimeControl, TimeOut
from domain.kernel import RuleViolation
from domain.table import Table
from domain.windows import MINUTE_MS, WEEK_MS, Window, deadline, problem
from testkit.tally import TALLY, Add
from tests.budget import sized

HOUR = 60 * MINUTE_MS
MONDAY = W.week_start(1_796_000_000_000)  # a Monday 00:00 UTC in 2026
EVENINGS = [Window(start=day * 1440 + 18 * 60, end=day * 1440 + 24 * 60) for day in range(7)]  # 18:00-24:00 daily


def inside(windows: list[Window], start_ms: int, end_ms: int) -> int:
    """Milliseconds of [start_ms, end_ms) inside `windows`, counted week by week (the oracle)."""
    total = 0
    week = W.week_start(start_ms)
    while week < end_ms:
        for w in windows:
            lo, hi = max(start_ms, week + w.start * MINUTE_MS), min(end_ms, week + w.end * MINUTE_MS)
            total += max(0, hi - lo)
        week += WEEK_MS
    return total


def test_the_week_starts_on_monday_midnight_utc():
    assert MONDAY % (24 * HOUR) == 0
    assert (MONDAY // (24 * HOUR) + 3) % 7 == 0  # the epoch was a Thursday (weekday 3 from Monday)
    assert W.week_start(MONDAY + WEEK_MS - 1) == MONDAY and W.week_start(MONDAY + WEEK_MS) == MONDAY + WEEK_MS


def test_a_move_due_at_night_waits_for_the_next_evening():
    # the opponent moved on Monday at 23:00 with a day per move: 1 h counts that night, 23 h over the next evenings
    due = deadline(EVENINGS, MONDAY + 23 * HOUR, 24 * HOUR)
    assert due == MONDAY + 4 * 24 * HOUR + 23 * HOUR  # Tuesday to Thursday's evenings (18 h), then 5 h on Friday
    assert inside(EVENINGS, MONDAY + 23 * HOUR, due) == 24 * HOUR


def test_a_deadline_that_runs_out_at_a_windows_end_stays_there():
    due = deadline(EVENINGS, MONDAY + 18 * HOUR, 6 * HOUR)
    assert due == MONDAY + 24 * HOUR  # the end of Monday's window, not the start of Tuesday's


def test_without_windows_the_deadline_is_the_per_move_time_later():
    assert deadline([], MONDAY + 5, 12 * HOUR) == MONDAY + 5 + 12 * HOUR
    assert deadline([Window(start=0, end=W.MINUTES_A_WEEK)], MONDAY + 5, 12 * HOUR) == MONDAY + 5 + 12 * HOUR


@pytest.mark.parametrize(("windows", "kind"), [
    ([Window(start=600, end=600)], "malformed"),
    ([Window(start=700, end=600)], "malformed"),
    ([Window(start=0, end=1000), Window(start=999, end=3000)], "overlap"),
    ([Window(start=0, end=27 * 60)], "too_short"),
    ([Window(start=day * 1440, end=day * 1440 + 1) for day in range(7)] * 10, "malformed"),  # more than 64
])
def test_windows_that_are_not_well_formed_are_named_by_their_fault(windows, kind):
    found = problem(windows)
    assert found is not None and found[0] == kind


def test_touching_windows_adding_up_to_the_minimum_are_well_formed():
    assert problem([Window(start=0, end=14 * 60), Window(start=14 * 60, end=28 * 60)]) is None
    assert problem([Window(start=0, end=28 * 60 - 1)])[0] == "too_short"


@st.composite
def weekly_windows(draw) -> list[Window]:
    """Well-formed windows: non-overlapping spans of the week adding up to at least the minimum."""
    cuts = sorted(draw(st.sets(st.integers(0, W.MINUTES_A_WEEK), min_size=2, max_size=16)))
    spans = [Window(start=a, end=b) for a, b in zip(cuts[::2], cuts[1::2]) if a < b]
    if W.weekly_minutes(spans) < W.MIN_WEEKLY_MINUTES:
        spans = [Window(start=0, end=W.MIN_WEEKLY_MINUTES)]  # too little drawn: one long window instead
    return spans


@settings(max_examples=sized(300, 3000), deadline=None)
@given(windows=weekly_windows(), start=st.integers(-WEEK_MS, 60 * WEEK_MS),
       allowed=st.integers(1, 30 * 24 * HOUR))
def test_the_deadline_counts_exactly_the_allowed_time_inside_the_windows_and_never_falls_outside_one(
        windows, start, allowed):
    assert problem(windows) is None
    due = deadline(windows, start, allowed)
    assert due >= start + allowed  # time outside the windows never counts
    assert inside(windows, start, due) == allowed  # exactly the per-move time inside them
    assert inside(windows, start, due - 1) < allowed  # and the first such moment
    offset = due - W.week_start(due)  # the deadline lies in a window, or at its end
    assert any(w.start * MINUTE_MS < offset <= w.end * MINUTE_MS for w in windows) or \
        any(w.end == W.MINUTES_A_WEEK and offset == 0 for w in windows)
    weekly = W.weekly_minutes(windows) * MINUTE_MS  # the documented bound: ceil(allowed / W) weeks
    assert due - start <= math.ceil(allowed / weekly) * WEEK_MS


@settings(max_examples=sized(100, 1000), deadline=None)
@given(windows=weekly_windows(), start=st.integers(0, 10 * WEEK_MS), allowed=st.integers(1, 10 * 24 * HOUR),
       more=st.integers(0, 24 * HOUR))
def test_more_time_never_gives_an_earlier_deadline(windows, start, allowed, more):
    assert deadline(windows, start, allowed + more) >= deadline(windows, start, allowed)


def test_windows_need_a_slow_per_move_time_and_well_formed_seats():
    assert TimeControl(per_move_seconds=W.SLOW_PER_MOVE_SECONDS, windows=[EVENINGS, []]).problem() is None
    assert "per_move_seconds" in TimeControl(per_move_seconds=3600, windows=[EVENINGS, []]).problem()
    assert "per_move_seconds" in TimeControl(total_seconds=86400, windows=[EVENINGS, []]).problem()
    short = [Window(start=0, end=60)]
    assert "windows" in TimeControl(per_move_seconds=86400, windows=[short, []]).problem()


def test_a_seats_clock_runs_only_inside_its_windows_and_it_is_not_timed_out_while_asleep():
    table = Table(TALLY)
    control = {"per_move_seconds": 86400, "windows": [[{"start": w.start, "end": w.end} for w in EVENINGS], []]}
    state = table.fold(table.create({"target": 100}, 2, b"seed", time_control=control))
    for seat in range(2):
        state = table.fold(table.join(state, f"p{seat}", f"P{seat}"), state)
    begun = table.start(state, "p0", now_ms=MONDAY + 23 * HOUR)
    state = table.fold(begun, state)
    due = deadline(EVENINGS, MONDAY + 23 * HOUR, 24 * HOUR)
    assert begun[-1].deadlines_ms == [due, None]
    with pytest.raises(RuleViolation) as refused:  # a day later, asleep: not due
        table.timeout(state, TimeOut(seat=0, at_ms=MONDAY + 47 * HOUR))
    assert refused.value.code == "table.not_due"
    assert table.timeout(state, TimeOut(seat=0, at_ms=due))  # due at the end of the counted time
    tick = table.play(state, 0, Add(1), now_ms=MONDAY + 30 * HOUR)[-1]
    assert tick.deadlines_ms == [None, MONDAY + 30 * HOUR + 24 * HOUR]  # seat 1 plays at any time
