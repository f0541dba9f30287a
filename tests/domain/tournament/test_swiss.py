"""Swiss pairings for N-seat tables: repeats avoided, byes rotated, seats balanced, table sizes as documented."""

from __future__ import annotations

import random

import pytest

from domain.tournament import RoundPaired, table_sizes
from domain.tournament.standings import order
from tests.domain.tournament.support import given, pairings, play_out, play_round, started


def fields(count: int, seed: int):
    """`count` random Swiss settings (seats, rounds, players, min_seats), the same on every run."""
    rnd = random.Random(seed)
    for trial in range(count):
        seats = rnd.randint(2, 6)
        rounds = rnd.randint(2, 6)
        yield trial, seats, rounds, rnd.randint(seats + 1, 80), rnd.choice([seats, max(2, seats - 1)])


def repeats(state) -> int:
    return sum(k - 1 for e in state.entrants.values() for k in e.met.values() if k > 1) // 2


@pytest.mark.slow  # many random tournaments
@pytest.mark.parametrize("part", range(4))
def test_pairings_avoid_repeat_opponents_while_the_field_leaves_room(part):
    # Below about seats * seats * (rounds - 1) players repeats can be forced (pigeonhole: 32 players
    # at 6-seat tables form 5 tables in round 1, so a 6-seat table of round 2 must hold two players
    # from one of them). Above it, a repeat-free pairing exists and the pairing must find it.
    checked = 0
    for trial, seats, rounds, players, min_seats in fields(240, 15):
        if trial % 4 != part or players <= seats * seats * (rounds - 1):
            continue
        state, events = started(players, seed=f"repeats-{trial}", seats=seats, rounds=rounds, min_seats=min_seats)
        state, _ = play_out(state, events, random.Random(trial))
        assert repeats(state) == 0, (seats, rounds, players, min_seats)
        checked += 1
    assert checked >= 10


def test_crowded_fields_repeat_as_little_as_a_greedy_bound_allows():
    # 6 players at 2-seat tables for 5 rounds is a full round robin: possible without any repeat
    state, events = started(6, seed="crowded", seats=2, rounds=5)
    state, _ = play_out(state, events, random.Random(1))
    assert repeats(state) <= 2


@pytest.mark.slow  # whole tournaments until every player had a bye
@pytest.mark.parametrize("seats,players", [(2, 7), (3, 10), (4, 9), (4, 13), (5, 11), (6, 8), (6, 15)])
def test_nobody_gets_a_second_bye_before_everyone_had_one(seats, players):
    state, events = started(players, seed=f"byes-{seats}-{players}", seats=seats, rounds=2 * players)
    rnd = random.Random(players)
    before = {pid: 0 for pid in state.entrants}
    for paired in pairings(events):
        for pid in paired.byes:
            assert before[pid] == min(before.values()), (paired.round, pid, before)
            before[pid] += 1
    while state.status != "finished":
        before = {pid: e.byes for pid, e in state.entrants.items()}
        state, new = play_round(state, rnd)
        for paired in pairings(new):
            assert all(before[pid] == min(before.values()) for pid in paired.byes)
            assert len(set(paired.byes)) == len(paired.byes)
    assert max(e.byes for e in state.entrants.values()) - min(e.byes for e in state.entrants.values()) <= 1


@pytest.mark.parametrize("seed", ["a", "b", "c", "d"])
def test_the_bye_goes_to_the_lowest_in_the_standings_among_those_due_one(seed):
    state, events = started(5, seed=seed, seats=2, rounds=2)
    state, new = play_round(state, random.Random(seed))
    events += new
    assert isinstance(events[-1], RoundPaired)
    before = given(*events[:-1])
    due = [pid for pid, e in before.entrants.items() if e.byes == 0]
    assert events[-1].byes == [order(before, due)[-1]]


@pytest.mark.parametrize("players,seats,smallest,expected", [
    (8, 4, 4, [4, 4]), (9, 4, 4, [4, 4]), (7, 4, 3, [4, 3]), (6, 4, 3, [3, 3]), (5, 4, 3, [4]),
    (10, 2, 2, [2] * 5), (11, 2, 2, [2] * 5), (13, 6, 5, [6, 6]), (14, 6, 5, [6, 6]), (16, 6, 5, [6, 5, 5]), (2, 3, 3, []),
])
def test_tables_are_full_first_then_one_seat_short_then_byes(players, seats, smallest, expected):
    assert table_sizes(players, seats, smallest) == expected


@pytest.mark.parametrize("seats", [2, 3, 4, 6])
def test_seat_order_is_balanced_across_rounds(seats):
    state, events = started(seats * 6, seed=f"seats-{seats}", seats=seats, rounds=6)
    state, events = play_out(state, events, random.Random(seats))
    for e in state.entrants.values():
        assert abs(e.balance()) <= 1.5, e
    # whoever sat first in their last game sits later now, unless everyone at the new table did;
    # the pairing keeps such tables rare
    last_seat: dict[str, int] = {}
    clashes = tables = 0
    for paired in pairings(events):
        for table in paired.tables:
            tables += 1
            if last_seat.get(table.players[0]) == 0:
                assert all(last_seat.get(p) == 0 for p in table.players)
                clashes += 1
        last_seat.update({p: seat for t in paired.tables for seat, p in enumerate(t.players)})
    assert clashes * 5 <= tables


def test_round_one_deals_the_best_seeds_to_different_tables():
    state, events = started(16, seed="pots", seats=4, rounds=1)
    by_rating = sorted(state.entrants, key=lambda pid: -state.entrants[pid].rating)
    tables = {pid: t.table for t in pairings(events)[0].tables for pid in t.players}
    assert len({tables[pid] for pid in by_rating[:4]}) == 4


def test_later_rounds_group_players_by_score():
    state, events = started(32, seed="groups", seats=4, rounds=3)
    rnd = random.Random(9)
    state, new = play_round(state, rnd)
    paired = pairings(new)[-1]
    points = [sorted(state.entrants[p].points for p in t.players) for t in paired.tables]
    top, bottom = points[0], points[-1]
    assert min(top) >= max(bottom)
