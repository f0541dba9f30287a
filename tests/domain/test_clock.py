"""Clocks: per-move deadlines and chess clocks as events, timeouts by the kind's rule, abandonment."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from domain.clock import ClockSet, TimedOut, TimeOut
from domain.kernel import RuleViolation
from domain.table import GameEnded, SeatResigned, Table
from testkit.tally import TALLY, Add, Added

PLAYS_ONE = Table(dataclasses.replace(TALLY, timeout_command=lambda state, seat: Add(1)))
NOTHING = Table(dataclasses.replace(TALLY, timeout_command=lambda state, seat: None))


def started(table: Table, control: dict, players: int = 2, now_ms: int = 0):
    state = table.fold(table.create({"target": 100}, players, b"seed", time_control=control))
    for seat in range(players):
        state = table.fold(table.join(state, f"p{seat}", f"P{seat}"), state)
    events = table.start(state, "p0", now_ms=now_ms)
    return table.fold(events, state), events


def test_a_per_move_deadline_starts_when_the_seat_comes_to_act():
    state, events = started(Table(TALLY), {"per_move_seconds": 30})
    assert events[-1] == ClockSet(at_ms=0, remaining_ms=[0, 0], since_ms=[0, None], deadlines_ms=[30000, None],
                                  timeouts=[0, 0])
    tick = Table(TALLY).play(state, 0, Add(2), now_ms=7000)[-1]
    assert tick.since_ms == [None, 7000] and tick.deadlines_ms == [None, 37000]


def test_a_chess_clock_charges_the_time_used_and_adds_the_increment():
    table = Table(TALLY)
    state, _ = started(table, {"total_seconds": 60, "increment_seconds": 2})
    events = table.play(state, 0, Add(1), now_ms=4000)
    state = table.fold(events, state)
    assert state.clock.remaining_ms == (58000, 60000)
    assert state.clock.deadlines_ms == (None, 64000)


def test_a_game_needs_exactly_one_kind_of_time_control():
    for control in ({}, {"per_move_seconds": 5, "total_seconds": 60}, {"per_move_seconds": 0}, {"per_move": 5}):
        with pytest.raises(RuleViolation) as exc:
            Table(TALLY).create(None, 2, b"s", time_control=control)
        assert exc.value.code == "table.bad_time_control"


def test_a_timeout_before_the_deadline_or_for_a_waiting_seat_is_refused():
    table = Table(TALLY)
    state, _ = started(table, {"per_move_seconds": 30})
    for seat, at in ((0, 29999), (1, 99999)):
        with pytest.raises(RuleViolation) as exc:
            table.timeout(state, TimeOut(seat=seat, at_ms=at))
        assert exc.value.code == "table.not_due"


def test_the_kinds_timeout_rule_plays_for_the_seat_and_the_game_goes_on():
    state, _ = started(PLAYS_ONE, {"per_move_seconds": 30})
    events = PLAYS_ONE.timeout(state, TimeOut(seat=0, at_ms=30000))
    assert events[0] == TimedOut(seat=0, at_ms=30000, consecutive=1, played="tally.Add")
    state = PLAYS_ONE.fold(events, state)
    assert state.game.total == 1 and state.clock.deadlines_ms == (None, 60000)
    assert state.clock.timeouts == (1, 0)


def test_without_a_timeout_rule_the_first_legal_command_is_played():
    table = Table(TALLY)  # Tally has no timeout rule and no end-of-turn command: legal's first, Add(1)
    state, _ = started(table, {"total_seconds": 10})
    events = table.timeout(state, TimeOut(seat=0, at_ms=10000))
    assert events[0].played == "tally.Add" and events[1] == Added(seat=0, amount=1)


def test_a_seat_with_nothing_to_play_for_it_forfeits_when_its_time_runs_out():
    table = NOTHING
    state, _ = started(table, {"total_seconds": 10}, players=3)
    events = table.timeout(state, TimeOut(seat=0, at_ms=10000))
    assert isinstance(events[1], SeatResigned) and events[1].reason == "timed_out"
    assert isinstance(events[2], GameEnded) and events[2].outcome.ranks[0] == 3


def test_repeated_timeouts_abandon_the_seat_but_acting_in_between_resets_the_count():
    state, _ = started(PLAYS_ONE, {"per_move_seconds": 10, "abandon_after": 2})
    state = PLAYS_ONE.fold(PLAYS_ONE.timeout(state, TimeOut(seat=0, at_ms=10000)), state)
    state = PLAYS_ONE.fold(PLAYS_ONE.play(state, 1, Add(1), now_ms=11000), state)
    state = PLAYS_ONE.fold(PLAYS_ONE.play(state, 0, Add(1), now_ms=12000), state)
    assert state.clock.timeouts == (0, 0)
    state = PLAYS_ONE.fold(PLAYS_ONE.timeout(state, TimeOut(seat=1, at_ms=22000)), state)
    state = PLAYS_ONE.fold(PLAYS_ONE.play(state, 0, Add(1), now_ms=23000), state)
    events = PLAYS_ONE.timeout(state, TimeOut(seat=1, at_ms=33000))
    assert [type(e).__name__ for e in events[:3]] == ["TimedOut", "SeatResigned", "GameEnded"]
    assert events[1].reason == "abandoned" and events[2].outcome.winners == [0]


def test_clock_events_are_public_replayable_and_kept_in_snapshots():
    table = PLAYS_ONE
    state, _ = started(table, {"total_seconds": 30, "increment_seconds": 1})
    first = table.fold(table.create({"target": 100}, 2, b"seed", time_control={"total_seconds": 30,
                                                                                "increment_seconds": 1}))
    events = table.timeout(state, TimeOut(seat=0, at_ms=30000))
    state = table.fold(events, state)
    assert table.load_state(table.dump_state(state)) == state
    for event in events:
        assert table.redact(event, 1, public=False) == event
    assert msgspec.json.decode(msgspec.json.encode(events[0]))["type"] == "table.TimedOut"
    assert first.clock is not None and first.clock.deadlines_ms == (None, None)
