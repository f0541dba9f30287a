"""Swiss pairing rules 4 and 5 (the default): no repeat or forbidden pair that any pairing of the round avoids.

Two seats: exact matchings in blocks of max(48, 2D + 2) players (`matching`, Dirac's theorem); 3-6
seats: rule 3's grouping, then swaps that remove a conflicting pair and add none (`conflicts`), then a
search of the whole round (`conflicts.settle`) and, under rule 5, a tabu search when that runs out (`reseat`).
Exhaustive oracles decide, on small fields, whether a pairing free of conflict exists; on large ones
the proved bounds (`2D + 2` players, `conflicts.guaranteed`) say it does, and the round must have none.
"""

from __future__ import annotations

import random
from functools import lru_cache

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.tournament import ForbidPairing, PlayerRegistered, RoundPaired, Start, verify
from domain.tournament.conflicts import conflicts, count, degree, guaranteed, settled, untangle
from domain.tournament.matching import BLOCK, blocks, match
from domain.tournament.pairing import next_round
from domain.tournament.rules import PAIRING
from domain.tournament.standings import order
from tests.budget import every, sized
from tests.domain.tournament.support import (ORGANISER, given as fold, opened, play_out, play_round, player, started,
                                             when)

pytestmark = pytest.mark.slow  # rule four's oracles search whole rounds exhaustively


def free_pairing_exists(players: tuple[str, ...], graph, sizes: tuple[int, ...]) -> bool:
    """Exhaustive: can `players` sit at tables of `sizes` with no two conflicting players together?"""
    @lru_cache(maxsize=None)
    def split(left: frozenset[str], sizes: tuple[int, ...]) -> bool:
        if not sizes:
            return True
        rest = sorted(left)
        first = max(rest, key=lambda p: len(graph[p] & left))  # any player must sit somewhere: the hardest first
        rest.remove(first)

        def fill(table: list[str], candidates: list[str], size: int, others: tuple[int, ...]) -> bool:
            if len(table) == size:
                return split(left - set(table), others)
            for i, c in enumerate(candidates):
                if not any(c in graph[t] for t in table) and fill([*table, c], candidates[i + 1:], size, others):
                    return True
            return False

        for size in sorted(set(sizes)):
            others = list(sizes)
            others.remove(size)
            if fill([first], rest, size, tuple(others)):
                return True
        return False
    return split(frozenset(players), tuple(sorted(sizes)))


def tournament(players: int, seats: int, rounds: int, rnd: random.Random, team: int = 0, label: str = "t",
               seed: str = "", rule: int = PAIRING, audit: bool = True):
    """A Swiss by the default rule with random results (`team`: that many players forbidden to meet);
    yields (state the round was paired in, the round) for every round after the first, then the events.
    `audit`: the audit replays the log and must find it sound. It pairs every round again, half the cost of
    a run, so tests of many runs audit a sample of them (every run's rounds are still checked for conflicts)."""
    state, events = opened(players, seed=seed or f"{label}-{players}-{seats}", seats=seats, rounds=rounds,
                           min_seats=seats - 1 if seats > 2 else 0)
    if rule != PAIRING:  # as if created under an older rule
        events = [msgspec.structs.replace(events[0], pairing=rule), *events[1:]]
        state = fold(*events)
    if team >= 2:
        teammates = sorted(player(i) for i in rnd.sample(range(players), team))
        state, new = when(state, ORGANISER, ForbidPairing(players=teammates))
        events += new
    state, new = when(state, ORGANISER, Start())
    events += new
    rounds_seen = []
    while state.status != "finished":
        state, new = play_round(state, rnd)
        events += new
        if isinstance(new[-1], RoundPaired):
            rounds_seen.append((fold(*events[:-1]), new[-1]))  # the state the round was paired in
    assert not audit or verify(events).ok
    return rounds_seen, events


def seated_conflicts(state, paired: RoundPaired) -> tuple[int, dict]:
    players = [p for t in paired.tables for p in t.players]
    graph = conflicts(state, players)
    return count([t.players for t in paired.tables], graph), graph


def every_conflict_is_forced(seen) -> None:
    """Each round that seats a conflicting pair has no grouping without one (the exhaustive oracle)."""
    for state, paired in seen:
        found, graph = seated_conflicts(state, paired)
        if found:
            seated = tuple(p for t in paired.tables for p in t.players)
            sizes = tuple(len(t.players) for t in paired.tables)
            assert not free_pairing_exists(seated, graph, sizes), paired.round


def test_new_tournaments_pair_by_rule_five():
    assert PAIRING == 5
    state, _ = started(4, seed="five", seats=2, rounds=2)
    assert state.settings.pairing == 5


# two seats


@settings(max_examples=sized(200, 1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 12), rounds=st.integers(2, 7), seed=st.integers(0, 2**32), team=st.integers(0, 4))
def test_two_seats_no_round_has_a_conflict_while_a_pairing_without_one_exists(players, rounds, seed, team):
    """The exhaustive oracle over every pairing of a small field, with random results and forbidden teammates."""
    seen, _ = tournament(players, 2, rounds, random.Random(seed), team=min(team, players), label=f"s{seed}",
                         audit=seed % 4 == 0)
    every_conflict_is_forced(seen)


@pytest.mark.parametrize("players", [50, 52, 58, 98, 100, 150])
def test_two_seats_a_field_of_2d_plus_2_or_more_never_repeats(players):
    """Fields whose last block of 48 is small (50, 98: rule 2 repeats there) and beyond, several rounds,
    forbidden teammates in half the runs: every round is free of conflict, as Dirac's theorem says."""
    for trial in range(sized(2, 4) if players <= 100 else 1):  # short: one run with teammates, one without
        rnd = random.Random(f"{players}-{trial}")
        seen, _ = tournament(players, 2, 9, rnd, team=6 * (trial % 2), label=f"big{trial}", audit=trial < 2)
        for state, paired in seen:
            found, graph = seated_conflicts(state, paired)
            assert 2 * len(paired.tables) >= 2 * degree(graph) + 2
            assert found == 0, (trial, paired.round)


def test_rule_two_repeats_in_a_small_last_block_where_rule_four_does_not():
    """50 players, 48 of them matched first: the last two had met, so rule 2 pairs them again; rule 4
    matches the 50 as one block and pairs everyone with someone new."""
    state, _ = started(50, seed="tail", seats=2, rounds=3)
    standing = order(state, state.active_ids())
    a, b = standing[-2:]
    entrants = dict(state.entrants)
    entrants[a] = msgspec.structs.replace(entrants[a], met={b: 1}, games=1)
    entrants[b] = msgspec.structs.replace(entrants[b], met={a: 1}, games=1)
    state = msgspec.structs.replace(state, entrants=entrants)
    assert [a, b] in match(state, standing, 2)
    pairs = match(state, standing, 4)
    assert [a, b] not in pairs and sorted(p for t in pairs for p in t) == sorted(standing)


def test_forbidden_teammates_at_the_bottom_of_fifty_are_kept_apart_from_round_one():
    state, events = opened(50, seed="bottom", seats=2, rounds=2)
    standing = order(state, state.active_ids())
    state, new = when(state, ORGANISER, ForbidPairing(players=standing[-2:]))
    state, start = when(state, ORGANISER, Start())
    first = start[-1]
    assert isinstance(first, RoundPaired)
    assert sorted(standing[-2:]) not in [sorted(t.players) for t in first.tables]


def test_blocks_are_never_smaller_than_their_size_and_cover_the_field():
    for players in range(2, 400, 2):
        for size in (48, 50, 64):
            cut = blocks(players, size)
            assert [i for s in cut for i in range(players)[s]] == list(range(players))
            assert len(cut) == 1 or all(s.stop - s.start >= size for s in cut)
            assert all((s.stop - s.start) % 2 == 0 for s in cut)
    assert BLOCK == 48


def started_under(rule: int, players: int, seed: str, **settings) -> tuple:
    """A tournament started as if created under pairing rule `rule` (an older log)."""
    _, events = started(players, seed=seed, **settings)
    old = msgspec.structs.replace(events[0], pairing=rule)
    registered = [e for e in events[1:] if isinstance(e, PlayerRegistered)]
    state, start = when(fold(old, *registered), ORGANISER, Start())
    return state, [old, *registered, *start]


def test_a_recorded_rule_two_round_that_repeated_still_verifies_and_would_not_under_rule_four():
    """Rule 2 repeated in this 50-player run (its last block of 2); the audit re-checks by the recorded rule."""
    state, events = started_under(2, 50, "f0", seats=2, rounds=7)
    rnd = random.Random(0)
    repeated = False
    while state.status != "finished":
        state, new = play_round(state, rnd)
        events += new
        if isinstance(new[-1], RoundPaired):
            repeated = repeated or seated_conflicts(fold(*events[:-1]), new[-1])[0] > 0
    assert repeated, "rule 2 repeats a pair in this run"
    assert verify(events).ok
    as_four = [msgspec.structs.replace(events[0], pairing=4), *events[1:]]
    assert not verify(as_four).ok  # rule 4 has a cheaper round than the repeat rule 2 recorded


# three to six seats


@settings(max_examples=sized(40, 150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(3, 6), tables=st.integers(2, 3), short=st.booleans(), rounds=st.integers(2, 5),
       seed=st.integers(0, 2**32), team=st.integers(0, 4))
def test_three_to_six_seats_no_round_has_a_conflict_while_a_grouping_without_one_exists(seats, tables, short, rounds,
                                                                                        seed, team):
    players = tables * seats - (1 if short else 0)
    seen, _ = tournament(players, seats, rounds, random.Random(seed), team=team, label=f"g{seed}", audit=seed % 4 == 0)
    every_conflict_is_forced(seen)


@pytest.mark.parametrize("seats,players,rounds", [(3, 120, 8), (4, 160, 5), (4, 203, 6), (5, 200, 4), (6, 300, 5),
                                                  (4, 400, 8)])
def test_three_to_six_seats_a_field_past_the_bound_never_repeats(seats, players, rounds):
    """Fields of 120-400 players, several rounds, eight forbidden teammates in one run of two: every round
    is within `conflicts.guaranteed` for its degree, and free of conflict."""
    for trial in range(2):
        rnd = random.Random(f"{seats}-{players}-{trial}")
        seen, _ = tournament(players, seats, rounds, rnd, team=8 * trial, label=f"big{trial}")
        for state, paired in seen:
            found, graph = seated_conflicts(state, paired)
            assert guaranteed([len(t.players) for t in paired.tables], degree(graph))
            assert found == 0, (trial, paired.round)


@pytest.mark.parametrize("seats,players,rounds", [(3, 21, 8), (3, 27, 8), (4, 28, 7), (4, 32, 7), (5, 40, 6)])
def test_below_the_bound_a_round_keeps_a_conflict_only_when_every_grouping_has_one(seats, players, rounds):
    """Fields below the proved bound, where rule 3's bounded search and the swaps left a repeat that some
    grouping avoids (the oracle found such rounds in these runs): `conflicts.settle` finds that grouping."""
    for trial in every(range(6), 2, start=1):  # short budget: the runs with forbidden teammates (tests/budget.py)
        rnd = random.Random(f"m{players}-{trial}")
        seen, _ = tournament(players, seats, rounds, rnd, team=min(6, players // 3) if trial % 2 else 0,
                             seed=f"m{players}-{trial}", audit=trial < 2)
        every_conflict_is_forced(seen)


@settings(max_examples=sized(100, 400), deadline=None)
@given(seats=st.integers(3, 6), d=st.integers(1, 12), extra=st.integers(0, 3), short=st.integers(0, 5),
       seed=st.integers(0, 2**32))
def test_the_swap_repair_clears_every_conflict_of_any_graph_within_the_bound(seats, d, extra, short, seed):
    """The counting argument, on arbitrary conflict graphs of degree d (not only a tournament's) and any
    starting grouping: with as few tables as the bound allows (or a few more), no conflict is left."""
    rnd = random.Random(seed)
    smallest = seats - 1 if short else seats
    tables = 1
    while not guaranteed([seats] + [smallest] * (tables - 1), d):
        tables += 1
    tables += extra
    sizes = [seats] * (tables - min(short, tables - 1)) + [seats - 1] * min(short, tables - 1)
    names = [f"x{i:03d}" for i in range(sum(sizes))]
    graph: dict[str, set[str]] = {a: set() for a in names}
    for _ in range(len(names) * d * 3):
        a, b = rnd.sample(names, 2)
        if len(graph[a]) < d and len(graph[b]) < d:
            graph[a].add(b)
            graph[b].add(a)
    frozen = {a: frozenset(graph[a]) for a in names}
    shuffled = rnd.sample(names, len(names))
    start, at = [], 0
    for size in sizes:
        start.append(shuffled[at:at + size])
        at += size
    assert guaranteed(sizes, degree(frozen))
    result = untangle(start, frozen, {a: i for i, a in enumerate(names)})
    assert count(result, frozen) == 0
    assert sorted(len(t) for t in result) == sorted(sizes) and sorted(p for t in result for p in t) == names


def test_a_swap_never_adds_a_conflict_below_the_bound():
    rnd = random.Random(7)
    names = [f"y{i:02d}" for i in range(12)]
    graph = {a: frozenset(b for b in names if b != a and rnd.random() < 0.5) for a in names}
    graph = {a: frozenset(b for b in graph[a] if a in graph[b]) for a in names}
    for _ in range(50):
        start = [names[i:i + 4] for i in range(0, 12, 4)]
        rnd.shuffle(names)
        assert count(untangle(start, graph, {a: i for i, a in enumerate(names)}), graph) <= count(start, graph)


def _pairs(*edges: str) -> dict[str, frozenset[str]]:
    """A symmetric conflict graph over p0..p11 from edges written "a-b" (places are the numbers)."""
    graph: dict[str, set[str]] = {f"p{i}": set() for i in range(12)}
    for edge in edges:
        a, b = edge.split("-")
        graph[a].add(b)
        graph[b].add(a)
    return {a: frozenset(b) for a, b in graph.items()}


@pytest.mark.parametrize("tables, edges, after", [
    # the nearest table first, though a farther one holds a closer place (p2 <-> p3)
    ([["p0", "p1", "p2"], ["p9", "p10", "p11"], ["p3", "p4", "p5"]], ["p1-p2"],
     [["p0", "p1", "p9"], ["p2", "p10", "p11"], ["p3", "p4", "p5"]]),
    # at the same distance, the closest places: p5 <-> p6 (1 apart), not p4 <-> p2 (2 apart)
    ([["p0", "p1", "p2"], ["p3", "p4", "p5"], ["p6", "p7", "p8"]], ["p4-p5"],
     [["p0", "p1", "p2"], ["p3", "p4", "p6"], ["p5", "p7", "p8"]]),
    # equally close (p4 <-> p2 and p4 <-> p6, 2 apart; p5 cannot go below): the better q
    ([["p0", "p1", "p2"], ["p3", "p4", "p5"], ["p6", "p7", "p8"]], ["p4-p5", "p5-p7", "p5-p8"],
     [["p0", "p1", "p4"], ["p3", "p2", "p5"], ["p6", "p7", "p8"]]),
    # equally close to the same q (p1 <-> p2 and p3 <-> p2; p0 may not join p5): the better p
    ([["p0", "p2", "p4"], ["p1", "p3", "p5"], ["p6", "p7", "p8"]], ["p1-p3", "p0-p5"],
     [["p0", "p1", "p4"], ["p2", "p3", "p5"], ["p6", "p7", "p8"]]),
])
def test_the_swap_repair_breaks_ties_as_documented(tables, edges, after):
    """Rule 4's swap: the nearest table, then the closest places, then the better q, then the better p (conflicts'
    module doc): the audit re-derives each round, so a changed tie-break would fail every recorded tournament."""
    assert untangle(tables, _pairs(*edges), {f"p{i}": i for i in range(12)}) == after


# determinism and the audit


@pytest.mark.parametrize("seats", [2, 4])
def test_the_same_state_gives_the_same_round(seats):
    seen, events = tournament(120, seats, 4, random.Random(seats), team=6, label="same")
    for state, paired in seen:
        again = next_round(fold(*events[:events.index(paired)]))
        assert next_round(state) == paired == again


def test_a_recorded_rule_three_tournament_at_four_seats_still_verifies():
    state, events = started_under(3, 13, "rule3", seats=4, rounds=4, min_seats=3)
    _, events = play_out(state, events, random.Random(4))
    assert verify(events).ok


# rule 5: the tabu search where rule 4's whole-round search runs out


def test_rule_five_finds_the_grouping_rule_four_ran_out_before_and_the_audit_keeps_each_to_its_rule():
    """Six seats, 48 players: in round 5 of this run rule 4's search spent its budget and kept a repeat; a
    grouping without one exists (rule 5 finds it from the same state). Each log verifies under its own rule
    and not under the other."""
    seen, events = tournament(48, 6, 5, random.Random("six-48-0"), seed="six-48-0", rule=4)
    state, paired = seen[-1]
    kept, graph = seated_conflicts(state, paired)
    assert kept, "rule 4 keeps a repeat in this round"
    as_five = [msgspec.structs.replace(events[0], pairing=5), *events[1:events.index(paired)]]
    again = next_round(fold(*as_five))
    assert again is not None and count([t.players for t in again.tables], graph) == 0
    assert sorted(len(t.players) for t in again.tables) == sorted(len(t.players) for t in paired.tables)
    assert sorted(p for t in again.tables for p in t.players) == sorted(p for t in paired.tables for p in t.players)
    assert verify(events).ok
    assert not verify(as_five + events[events.index(paired):]).ok


@pytest.mark.parametrize("players,rounds,runs", [(42, 5, 4), (48, 5, 4), (54, 5, 3), (60, 5, 3), (48, 6, 2)])
def test_six_seats_below_the_bound_keep_a_conflict_only_when_the_whole_round_search_proves_it(players, rounds, runs):
    """Fields of 42-60 at six seats after 4-5 rounds, where rule 4's search ran out: every round that still seats
    a conflicting pair is one where `conflicts.settled` proves (with a budget of 20 million candidates) that
    no grouping avoids it."""
    for run in range(runs):
        label = f"six-{players}-{run}"
        seen, _ = tournament(players, 6, rounds, random.Random(label), seed=label, audit=run == 0)
        for state, paired in seen:
            found, graph = seated_conflicts(state, paired)
            if found:
                seated = [p for t in paired.tables for p in t.players]
                sizes = [len(t.players) for t in paired.tables]
                grouping, final = settled(seated, sizes, graph, nodes=20_000_000)
                assert grouping is None and final, (label, paired.round)
