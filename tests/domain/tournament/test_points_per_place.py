"""Points per place set by the organiser at creation (`points_per_place`): results, standings and the audit use them."""

from __future__ import annotations

import random

import pytest

from domain.kernel import RuleViolation
from domain.tournament import ResultRecorded, rank_points, verify
from domain.tournament.standings import standings
from domain.tournament.view import view
from tests.domain.tournament.support import opened, play_out, started


def test_places_earn_the_organisers_points_ties_share_the_places_covered_and_a_short_table_the_last_places():
    assert rank_points([1, 2, 3], [3, 1, 0]) == [3, 1, 0]
    assert rank_points([2, 1, 3], [3, 1, 0]) == [1, 3, 0]
    assert rank_points([1, 1, 3], [3, 1, 0]) == [2, 2, 0]
    assert rank_points([1, 2], [3, 1, 0]) == [1, 0]  # one seat short: the last two places, as the default does
    assert rank_points([1, 1, 3, 4]) == [2.5, 2.5, 1, 0]  # the default is unchanged
    assert rank_points([1, 2, 3]) == [2, 1, 0] and rank_points([1, 2, 2]) == [2, 0.5, 0.5]


def test_a_tournament_scores_by_the_organisers_places_and_the_audit_re_derives_them():
    rnd = random.Random(21)
    state, events = started(9, seats=3, rounds=3, points_per_place=[3, 1, 0])
    assert view(state).points_per_place == [3, 1, 0] and view(state).bye_points == 3
    state, events = play_out(state, events, rnd)
    results = [e for e in events if isinstance(e, ResultRecorded)]
    assert results and all(e.points == rank_points(e.ranks, [3, 1, 0]) for e in results)
    assert any(3.0 in e.points for e in results)
    for line in standings(state):
        earned = sum(p for e in results for pid, p in zip(e.players, e.points) if pid == line.player_id)
        assert line.points == earned
    report = verify(events)
    assert report.ok, report.problems
    first = next(i for i, e in enumerate(events) if isinstance(e, ResultRecorded))
    e = events[first]
    default = ResultRecorded(round=e.round, table=e.table, game_id=e.game_id, players=e.players, ranks=e.ranks,
                             scores=e.scores, points=rank_points(e.ranks), advancing=e.advancing)
    assert default != e and not verify([*events[:first], default, *events[first + 1:]]).ok


def test_the_default_places_are_rank_points():
    state, _ = opened(3, seats=3, rounds=1)
    assert view(state).points_per_place == [2, 1, 0] and view(state).bye_points == 2


@pytest.mark.parametrize("places", [[3, 1], [1, 3, 0], [3, 1, -1], [3, 0.3, 0], [2000, 1, 0]])
def test_points_per_place_must_fit_the_table(places):
    with pytest.raises(RuleViolation) as exc:
        opened(0, seats=3, rounds=1, points_per_place=places)
    assert exc.value.code == "tournament.bad_options"
