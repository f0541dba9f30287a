"""Swiss pairing rule 3 at 3-6 seats: an exact least-cost grouping, checked against an exhaustive oracle.

The oracle enumerates every way to split a small field into the round's table sizes; over many random
result sequences the round the rules pair must cost exactly the oracle's least cost, so no table repeats
a meeting (or seats a forbidden pair) while a grouping without it exists.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations

import msgspec
import pytest

from domain.tournament import ForbidPairing, PlayerRegistered, RoundPaired, Start, verify
from domain.tournament.arrange import FORBIDDEN, REPEAT, penalty, table_sizes
from domain.tournament.grouping import exact_group
from domain.tournament.standings import order
from tests.domain.tournament.support import (ORGANISER, given as fold, opened, pairings, play_out, play_round, player,
                                             started, when)


def groupings(players: list[str], sizes: list[int]) -> Iterator[list[list[str]]]:
    """Every split of `players` into unordered tables of `sizes` (the first player always opens a table)."""
    if not sizes:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in sorted(set(sizes)):
        left = list(sizes)
        left.remove(size)
        for others in combinations(rest, size - 1):
            remaining = [p for p in rest if p not in others]
            for tail in groupings(remaining, left):
                yield [[first, *others], *tail]


def least_cost(state, players: list[str], sizes: list[int]) -> int:
    cost = penalty(state.entrants, forbidden=state.forbidden_pairs())
    return min(sum(map(cost, g)) for g in groupings(players, sizes))


def check_round(state, paired: RoundPaired) -> None:
    cost = penalty(state.entrants, forbidden=state.forbidden_pairs())
    seated = [p for p in order(state, state.active_ids()) if p not in set(paired.byes)]
    sizes = [len(t.players) for t in paired.tables]
    chosen = sum(cost(t.players) for t in paired.tables)
    assert chosen == least_cost(state, seated, sizes), [t.players for t in paired.tables]


@pytest.mark.parametrize("seats,players,rounds", [(3, 9, 4), (3, 7, 3), (4, 8, 3), (4, 11, 3), (5, 10, 3),
                                                  (6, 12, 3), (4, 12, 4)])
def test_every_round_costs_what_the_exhaustive_oracle_says_is_least(seats, players, rounds):
    for trial in range(12 if players <= 10 else 4):
        rnd = random.Random(f"{seats}-{players}-{trial}")
        state, events = started(players, seed=f"g-{seats}-{players}-{trial}", seats=seats, rounds=rounds,
                                min_seats=seats - 1)
        while state.status != "finished":
            state, new = play_round(state, rnd)
            events += new
            if state.status != "finished":
                check_round(fold(*events[:-1]), new[-1])
        assert verify(events).ok


@pytest.mark.slow  # many random tournaments
def test_no_avoidable_repeat_over_many_random_tournaments():
    """A field of 12 at 3-seat tables over 5 rounds: whenever some grouping of a round repeats no meeting,
    the round the rules pair repeats none."""
    def repeats(state, tables) -> int:
        return sum(state.entrants[a].met.get(b, 0) for t in tables for a, b in combinations(t, 2))

    checked = 0
    for trial in range(15):
        rnd = random.Random(trial)
        state, events = started(12, seed=f"r-{trial}", seats=3, rounds=5)
        while state.status != "finished":
            state, new = play_round(state, rnd)
            events += new
            if state.status == "finished":
                break
            before, paired = fold(*events[:-1]), new[-1]
            seated = order(before, before.active_ids())
            fewest = min(repeats(before, g) for g in groupings(seated, [3, 3, 3, 3]))
            assert repeats(before, [t.players for t in paired.tables]) == fewest, (trial, paired.round)
            checked += fewest == 0
    assert checked > 20, "most rounds could avoid every repeat"


def test_forbidden_teammates_never_share_a_table_even_in_round_one():
    """Three teammates among the top seeds of 12 at three 4-seat tables: each can sit at a table of its own."""
    state, events = opened(12, seed="teams", seats=4, rounds=3)
    team = {player(0), player(1), player(2)}
    state, new = when(state, ORGANISER, ForbidPairing(players=sorted(team)))
    events += new
    state, new = when(state, ORGANISER, Start())
    state, events = play_out(state, events + new, random.Random(3))
    for paired in pairings(events):
        for table in paired.tables:
            assert len(set(table.players) & team) <= 1
    assert verify(events).ok


def test_the_search_is_exact_on_a_crowded_block_and_a_big_field_stays_within_its_budget():
    from domain.tournament.state import Entrant

    names = [f"x{i}" for i in range(9)]
    # everyone has met everyone but the three "diagonal" trios: only one grouping has no repeat
    met = {a: {b: 1 for b in names if b != a and int(a[1:]) % 3 != int(b[1:]) % 3} for a in names}
    entrants = {a: Entrant(player_id=a, name=a, rating=0, met=met[a]) for a in names}
    tables = exact_group(names, [3, 3, 3], penalty(entrants))
    assert sorted(sorted(t) for t in tables) == [["x0", "x3", "x6"], ["x1", "x4", "x7"], ["x2", "x5", "x8"]]
    big = [f"y{i:04d}" for i in range(1000)]
    entrants = {a: Entrant(player_id=a, name=a, rating=0) for a in big}
    grouped = exact_group(big, table_sizes(1000, 4, 3), penalty(entrants))
    assert sorted(p for t in grouped for p in t) == big


def test_a_tournament_recorded_with_pairing_rule_two_at_four_seats_still_verifies():
    _, events = started(10, seed="rule2", seats=4, rounds=3, min_seats=3)
    old = msgspec.structs.replace(events[0], pairing=2)
    state = fold(old, *[e for e in events[1:] if isinstance(e, PlayerRegistered)])
    state, start = when(state, ORGANISER, Start())
    registered = [e for e in events[1:] if isinstance(e, PlayerRegistered)]
    state, played = play_out(state, [old, *registered, *start], random.Random(2))
    assert verify(played).ok
    assert REPEAT and FORBIDDEN > REPEAT
