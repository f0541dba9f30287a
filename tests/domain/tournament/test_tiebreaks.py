"""Tie-breaks the organiser orders: each checked against its textbook definition, recomputed from the results."""

from __future__ import annotations

import random

import pytest

from domain.kernel import RuleViolation
from domain.tournament import CreateTournament, ResultRecorded, create, standings
from domain.tournament.standings import order
from tests.domain.tournament.support import ORGANISER, TOURNAMENT_ID, play_out, seed_of, started

ALL = ["sonneborn_berger", "median_buchholz", "buchholz", "head_to_head", "rating"]


def finished(seats: int, tiebreaks: list[str], players: int = 9, seed: str = "tb"):
    state, events = started(players, seed=seed, seats=seats, rounds=4, tiebreaks=tiebreaks)
    return play_out(state, events, random.Random(players * seats))


def meetings_from(events) -> dict[str, list[list[tuple[str, float]]]]:
    """Each player's games as (opponent, what the player scored against them), straight from the log."""
    games: dict[str, list[list[tuple[str, float]]]] = {}
    for e in events:
        if isinstance(e, ResultRecorded):
            for seat, pid in enumerate(e.players):
                games.setdefault(pid, []).append(
                    [(o, 1.0 if e.ranks[seat] < r else 0.5 if e.ranks[seat] == r else 0.0)
                     for o, r in zip(e.players, e.ranks) if o != pid])
    return games


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_each_tie_break_is_its_textbook_definition(seats):
    state, events = finished(seats, ALL)
    points = {pid: e.points for pid, e in state.entrants.items()}
    games = meetings_from(events)
    for line in standings(state):
        played = games.get(line.player_id, [])
        per_game = sorted(sum(points[o] for o, _ in g) for g in played)
        expected = [
            sum(s * points[o] for g in played for o, s in g),  # Sonneborn-Berger (N seats: per meeting)
            sum(per_game[1:-1]) if len(per_game) >= 3 else sum(per_game),  # median Buchholz
            sum(per_game),  # Buchholz
            sum(s for g in played for o, s in g if points[o] == line.points),  # head-to-head within the score
            line.rating, -float(state.draw.index(line.player_id)),
        ]
        assert line.tiebreaks == expected


def test_the_standings_follow_the_organisers_order_of_tie_breaks():
    state, _ = finished(2, ALL, players=12, seed="order")
    lines = standings(state)
    keys = [(-s.points, *(-v for v in s.tiebreaks)) for s in lines]
    assert keys == sorted(keys)
    other, _ = finished(2, ["rating"], players=12, seed="order")
    assert [s.tiebreaks for s in standings(other)][0][0] in [e.rating for e in other.entrants.values()]
    ratings_first = order(other)
    same_points = [p for p in ratings_first if other.entrants[p].points == other.entrants[ratings_first[0]].points]
    assert same_points == sorted(same_points, key=lambda p: -other.entrants[p].rating)


def test_a_tie_break_named_twice_is_refused():
    with pytest.raises(RuleViolation) as exc:
        create(TOURNAMENT_ID, ORGANISER, CreateTournament(kind="tally", rounds=2, tiebreaks=["rating", "rating"]),
               seed_of("twice"))
    assert exc.value.code == "tournament.bad_options"
