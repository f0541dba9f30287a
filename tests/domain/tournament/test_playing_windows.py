"""A player's playing windows in a slow tournament (`SetWindows`, `tournament.WindowsSet`): set by the player,
validated, shown in the view, and re-decided by the audit."""

from __future__ import annotations

import random

import msgspec
import pytest

from domain.kernel import RuleViolation
from domain.tournament import SetWindows, Start, Withdraw, verify, view
from domain.tournament.events import WindowsSet
from domain.windows import Window
from tests.domain.tournament.support import ORGANISER, opened, play_out, player, refused, started, when

DAY = 86400
SLOW = {"per_move_seconds": DAY}
EVENINGS = [Window(start=day * 1440 + 18 * 60, end=day * 1440 + 24 * 60) for day in range(7)]


def test_a_player_sets_their_windows_and_the_view_shows_them_in_week_order():
    state, _ = opened(4, rounds=2, time_control=SLOW)
    state, new = when(state, player(1), SetWindows(windows=EVENINGS[::-1]))
    assert new == [WindowsSet(player_id=player(1), windows=EVENINGS)]
    assert view(state).windows == {player(1): EVENINGS}
    state, _ = when(state, player(1), SetWindows(windows=[]))  # any time again
    assert view(state).windows == {}


def test_windows_are_only_for_a_slow_per_move_time():
    for control in ({}, {"per_move_seconds": 12 * 3600 - 1}, {"total_seconds": 30 * DAY}):
        state, _ = opened(2, rounds=1, time_control=control)
        refused(state, player(0), SetWindows(windows=EVENINGS), "tournament.windows_not_slow")
    state, _ = opened(2, rounds=1, time_control={"per_move_seconds": 12 * 3600})
    when(state, player(0), SetWindows(windows=EVENINGS))


def test_a_tournaments_time_control_cannot_fix_windows_for_every_seat():
    with pytest.raises(RuleViolation) as exc:
        opened(2, rounds=1, time_control={**SLOW, "windows": [[], []]})
    assert exc.value.code == "tournament.bad_options"


@pytest.mark.parametrize(("windows", "code"), [
    ([Window(start=900, end=900)], "tournament.windows_malformed"),
    ([Window(start=0, end=2000), Window(start=1999, end=4000)], "tournament.windows_overlap"),
    ([Window(start=0, end=28 * 60 - 1)], "tournament.windows_too_short"),
])
def test_windows_that_are_not_well_formed_are_refused_each_with_its_own_code(windows, code):
    state, _ = opened(2, rounds=1, time_control=SLOW)
    refused(state, player(0), SetWindows(windows=windows), code)


def test_only_a_registered_player_still_in_sets_windows_and_only_their_own():
    state, _ = started(4, rounds=2, time_control=SLOW)
    refused(state, "stranger", SetWindows(windows=EVENINGS), "tournament.not_registered")
    refused(state, ORGANISER, SetWindows(windows=EVENINGS), "tournament.not_registered")
    refused(state, None, SetWindows(windows=EVENINGS), "tournament.not_registered")
    state, _ = when(state, player(2), Withdraw())
    refused(state, player(2), SetWindows(windows=EVENINGS), "tournament.already_withdrawn")


def test_windows_cannot_be_set_once_the_tournament_is_over():
    state, _ = started(2, rounds=1, time_control=SLOW)
    state, _ = play_out(state, [], random.Random(1))
    refused(state, player(0), SetWindows(windows=EVENINGS), "tournament.finished")


def _played_with_windows() -> list:
    rnd = random.Random(5)
    state, events = opened(6, rounds=3, time_control=SLOW)
    state, new = when(state, player(3), SetWindows(windows=EVENINGS))
    events += new
    state, new = when(state, ORGANISER, Start())
    events += new
    state, new = when(state, player(4), SetWindows(windows=EVENINGS[:5]))  # mid-tournament, Monday to Friday
    events += new
    state, events = play_out(state, events, rnd)
    return events


def test_the_audit_re_decides_every_windows_set_and_accepts_the_log():
    events = _played_with_windows()
    assert sum(isinstance(e, WindowsSet) for e in events) == 2
    report = verify(events)
    assert report.ok, report.problems


@pytest.mark.parametrize("tamper", ["too_short", "someone_else", "unsorted"])
def test_the_audit_refuses_a_tampered_windows_set(tamper):
    events = _played_with_windows()
    at = next(i for i, e in enumerate(events) if isinstance(e, WindowsSet))
    event = events[at]
    if tamper == "too_short":
        forged = msgspec.structs.replace(event, windows=[Window(start=0, end=60)])
    elif tamper == "someone_else":
        forged = msgspec.structs.replace(event, player_id="nobody")
    else:
        forged = msgspec.structs.replace(event, windows=event.windows[::-1])
    report = verify([*events[:at], forged, *events[at + 1:]])
    assert not report.ok and any("WindowsSet" in p for p in report.problems), report.problems
