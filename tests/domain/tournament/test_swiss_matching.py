"""Swiss pairing rule 2 at two seats: no avoidable repeat, own score group first, audited by optimality.

An exhaustive oracle enumerates every pairing of a small field; over thousands of random result
sequences the solver's round must cost exactly the oracle's least cost, so it never repeats a pair
while a repeat-free pairing exists, and floats by the smallest score difference.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.kernel import Outcome, RuleViolation
from domain.tournament import PlayerRegistered, RecordResult, RoundPaired, Start, evolve, verify
from domain.tournament.matching import round_cost
from domain.tournament.pairing import equivalent
from domain.tournament.standings import order
from tests.budget import sized
from tests.domain.tournament.support import ORGANISER, given as fold, pairings, play_out, started, when


def perfect_matchings(players: list[str]) -> Iterator[list[list[str]]]:
    """Every way to split `players` (an even number) into pairs."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        for tail in perfect_matchings(rest[:i] + rest[i + 1:]):
            yield [[first, other], *tail]


def repeat_count(state, tables) -> int:
    return sum(state.entrants[a].met.get(b, 0) > 0 for a, b in tables)


def check_round(state, paired: RoundPaired) -> None:
    """The paired round costs the least any pairing of its players costs, so it repeats only if it must."""
    standing = [p for p in order(state, state.active_ids()) if p not in set(paired.byes)]
    chosen = [t.players for t in paired.tables]
    every = list(perfect_matchings(standing))
    best = min(round_cost(state, standing, m) for m in every)
    assert round_cost(state, standing, chosen) == best
    assert repeat_count(state, chosen) == min(repeat_count(state, m) for m in every)


def play(players: int, rounds: int, results: list[int], bye_points: float | None = None) -> list:
    """A two-seat Swiss whose table results come from `results` (0: seat 0 wins, 1: seat 1 wins, 2: a draw)."""
    state, events = started(players, seed=f"m-{players}-{rounds}", seats=2, rounds=rounds, bye_points=bye_points)
    feed = iter(results)
    while state.status != "finished":
        for table in state.rounds[-1].tables:
            r = next(feed, 2)
            ranks = [1, 1] if r == 2 else ([1, 2] if r == 0 else [2, 1])
            state, new = when(state, None, RecordResult(game_id=table.game_id, outcome=Outcome(
                scores=[2 - x for x in ranks], ranks=ranks, winners=[s for s in (0, 1) if ranks[s] == 1])))
            events += new
    return events


def check_every_round(events: list) -> int:
    """Each round after the first against the oracle, from the state it was paired in; how many rounds."""
    state, checked = fold(events[0]), 0
    for event in events[1:]:
        if isinstance(event, RoundPaired) and event.round > 1:
            check_round(state, event)
            checked += 1
        state = evolve(state, event)
    assert verify(events).ok
    return checked


@pytest.mark.slow
@settings(max_examples=sized(300, 2000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 9), rounds=st.integers(2, 6), results=st.lists(st.integers(0, 2), max_size=40))
def test_no_round_repeats_a_pair_while_a_repeat_free_pairing_exists(players, rounds, results):
    check_every_round(play(players, rounds, results))


@pytest.mark.slow  # the exhaustive oracle on larger fields
@pytest.mark.parametrize("players", [10, 11, 12])
def test_larger_fields_match_the_oracle_round_after_round(players):
    for trial in range(3):
        rnd = random.Random(players * 100 + trial)
        assert check_every_round(play(players, 5, [rnd.randrange(3) for _ in range(60)])) == 4


def test_in_a_four_player_swiss_the_leaders_meet_in_round_two():
    state, events = started(4, seed="four", seats=2, rounds=3)
    for table in state.rounds[0].tables:
        state, _ = when(state, None, RecordResult(game_id=table.game_id,
                                                  outcome=Outcome(scores=[1, 0], ranks=[1, 2], winners=[0])))
    leaders = {t.players[0] for t in state.rounds[0].tables}
    assert [set(t.players) for t in state.rounds[1].tables][0] == leaders


def test_a_bye_is_worth_a_win_by_default_and_what_the_organiser_chose_otherwise():
    state, _ = started(5, seed="bye", seats=2, rounds=2)
    assert state.rounds[0].bye_points == 1.0
    state, _ = started(5, seed="bye", seats=2, rounds=2, bye_points=0.5)
    assert state.rounds[0].bye_points == 0.5


def test_the_audit_refuses_a_recorded_pairing_that_costs_more_than_the_rule_allows():
    state, events = started(8, seed="audit", seats=2, rounds=3)
    state, events = play_out(state, events, random.Random(3))
    assert verify(events).ok
    i, paired = next((i, e) for i, e in enumerate(events) if isinstance(e, RoundPaired) and e.round == 2)
    a, b, *rest = paired.tables  # the top boards' players swapped across: a worse float than the one recorded
    worse = [msgspec.structs.replace(a, players=[a.players[0], b.players[1]]),
             msgspec.structs.replace(b, players=[b.players[0], a.players[1]]), *rest]
    report = verify([*events[:i], msgspec.structs.replace(paired, tables=worse), *events[i + 1:]])
    assert not report.ok and report.problems[0].startswith(f"v{i + 1}:")


def test_the_audit_accepts_any_pairing_of_the_least_cost_and_no_other():
    events = play(8, 3, [0, 1, 0, 2, 1, 0, 0, 1])
    i, paired = next((i, e) for i, e in enumerate(events) if isinstance(e, RoundPaired) and e.round == 2)
    derived = fold(*events[:i])
    standing = order(derived, derived.active_ids())
    best = round_cost(derived, standing, [t.players for t in paired.tables])
    verdicts = set()
    for pairs in perfect_matchings(standing):
        pairs.sort(key=lambda t: min(standing.index(p) for p in t))
        tables = [msgspec.structs.replace(t, players=seat_order(pair, derived)) for t, pair in zip(paired.tables, pairs)]
        verdict = equivalent(derived, msgspec.structs.replace(paired, tables=tables), paired)
        assert verdict == (round_cost(derived, standing, pairs) == best)
        verdicts.add(verdict)
    assert verdicts == {True, False}


def seat_order(players, state):
    from domain.tournament.arrange import seat_order as order_seats
    return order_seats(players, state.entrants, state.draw_index())


def test_a_tournament_recorded_with_pairing_rule_one_still_verifies():
    _, events = started(9, seed="old", seats=2, rounds=4)
    old = msgspec.structs.replace(events[0], pairing=1, bye_points=None)
    state = fold(old, *[e for e in events[1:] if isinstance(e, PlayerRegistered)])
    state, start = when(state, ORGANISER, Start())
    state, played = play_out(state, [old, *events[1:10], *start], random.Random(9))
    assert any(p.bye_points == 0.5 for p in pairings(played))  # rule 1's bye: half the points of a win
    assert verify(played).ok


@pytest.mark.parametrize("worth", [-0.5, 0.3, 1.5])
def test_bye_points_are_half_points_from_nothing_to_a_win(worth):
    with pytest.raises(RuleViolation) as refused:
        started(5, seed="bad-bye", seats=2, rounds=2, bye_points=worth)
    assert refused.value.code == "tournament.bad_options"
