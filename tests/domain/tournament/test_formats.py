"""Round robin, single elimination, duplicate seeds, derived game ids, rank points and the tie-break order."""

from __future__ import annotations

import hashlib
import itertools
import random
import uuid

import pytest

from domain.kernel import Outcome
from domain.tournament import (CreateTournament, PairedTable, PlayerRegistered, RecordResult, ResultRecorded,
                               RoundPaired, TournamentStarted, bye_points, create, game_id, game_seed, rank_points,
                               standings)
from tests.domain.tournament.support import (ORGANISER, TOURNAMENT_ID, given, pairings, play_out, seed_of, started,
                                             when)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 8, 11, 12])
def test_a_two_seat_round_robin_has_every_pair_meet_exactly_once(players):
    state, events = started(players, seed=f"rr-{players}", format="round_robin", seats=2)
    state, events = play_out(state, events, random.Random(players))
    for a, b in itertools.combinations(state.entrants, 2):
        assert state.entrants[a].met.get(b) == 1, (a, b)
    assert len(state.rounds) == players - 1 + players % 2
    assert all(e.byes == players % 2 for e in state.entrants.values())


@pytest.mark.parametrize("seats,players", [(3, 7), (3, 12), (4, 9), (4, 17), (5, 13), (6, 20)])
def test_a_multi_seat_round_robin_lasts_until_every_pair_has_met(seats, players):
    state, events = started(players, seed=f"rr-{seats}-{players}", format="round_robin", seats=seats,
                            min_seats=seats - 1)
    state, events = play_out(state, events, random.Random(players))
    for a, b in itertools.combinations(state.entrants, 2):
        assert state.entrants[a].met.get(b, 0) >= 1, (a, b)
    least = -(-(players - 1) // (seats - 1))
    assert least <= len(state.rounds) <= 2 * least + 2


def test_a_round_robin_with_a_set_number_of_rounds_stops_there():
    state, events = started(10, seed="rr-fixed", format="round_robin", seats=3, rounds=2)
    state, _ = play_out(state, events, random.Random(0))
    assert len(state.rounds) == 2


def outcome_by_rating(state, table) -> Outcome:
    """The higher rating wins (so the test knows who advances)."""
    scores = [state.entrants[p].rating for p in table.players]
    ranks = [1 + sum(1 for o in scores if o > s) for s in scores]
    return Outcome(scores=scores, ranks=ranks, winners=[i for i, r in enumerate(ranks) if r == 1])


def test_single_elimination_advances_the_top_k_of_each_table_to_a_final():
    state, events = started(16, seed="ko", format="single_elimination", seats=4, advance=2)
    rounds = []
    while state.status != "finished":
        paired = state.rounds[-1]
        rounds.append(paired)
        winners = []
        for table in paired.tables:
            outcome = outcome_by_rating(state, table)
            state, new = when(state, None, RecordResult(game_id=table.game_id, outcome=outcome))
            winners += new[0].advancing
            best = sorted(table.players, key=lambda p: -state.entrants[p].rating)[:2]
            assert sorted(new[0].advancing) == sorted(best)
        if state.status == "running":
            nxt = state.rounds[-1]
            assert sorted(p for t in nxt.tables for p in t.players) + list(nxt.byes) == sorted(winners)
    assert [len(r.tables) for r in rounds] == [4, 2, 1]
    final = sorted(rounds[-1].tables[0].players, key=lambda p: -state.entrants[p].rating)
    assert [s.player_id for s in standings(state)][:4] == final


def test_ties_at_the_elimination_cut_go_to_the_better_seed():
    state, events = started(6, seed="ko-tie", format="single_elimination", seats=3, advance=1)
    table = state.rounds[0].tables[0]
    tied = Outcome(scores=[5, 5, 5], ranks=[1, 1, 1], winners=[0, 1, 2])
    state, new = when(state, None, RecordResult(game_id=table.game_id, outcome=tied))
    best_seed = max(table.players, key=lambda p: (state.entrants[p].rating, -state.draw.index(p)))
    assert new[0].advancing == [best_seed]


def test_single_elimination_gives_byes_to_the_top_seeds():
    state, events = started(9, seed="ko-bye", format="single_elimination", seats=4, advance=2)
    top = sorted(state.entrants, key=lambda p: (-state.entrants[p].rating, state.draw.index(p)))[0]
    assert pairings(events)[0].byes == [top]


def test_duplicate_rounds_give_every_table_the_same_seed_and_each_round_its_own():
    state, events = started(24, seed="dup", seats=4, rounds=3, duplicate=True)
    state, events = play_out(state, events, random.Random(4))
    per_round = [{t.seed for t in paired.tables} for paired in pairings(events)]
    assert all(len(seeds) == 1 for seeds in per_round)
    assert len(set.union(*per_round)) == 3


def test_without_duplicate_every_game_has_its_own_seed():
    state, events = started(24, seed="nodup", seats=4, rounds=2)
    state, events = play_out(state, events, random.Random(4))
    seeds = [t.seed for paired in pairings(events) for t in paired.tables]
    assert len(set(seeds)) == len(seeds) == 12


def test_game_ids_are_uuid5_of_the_tournament_round_and_table_and_seeds_a_documented_hash():
    state, events = started(8, seed="ids", seats=4, rounds=1)
    secret = seed_of("ids")
    for table in pairings(events)[0].tables:
        assert table.game_id == str(uuid.uuid5(uuid.UUID(TOURNAMENT_ID), f"1/{table.table}"))
        expected = hashlib.sha256(b"stela-tournament-game\x00" + secret + (1).to_bytes(8, "big")
                                  + table.table.to_bytes(8, "big")).hexdigest()
        assert table.seed == expected == game_seed(secret, 1, table.table, False).hex()
        assert game_id(TOURNAMENT_ID, 1, table.table) == table.game_id


def test_rank_points_count_the_seats_beaten_and_half_the_seats_tied():
    assert rank_points([1, 2, 3, 4]) == [3, 2, 1, 0]
    assert rank_points([2, 1]) == [0, 1]
    assert rank_points([1, 1]) == [0.5, 0.5]
    assert rank_points([1, 1, 3, 4]) == [2.5, 2.5, 1, 0]
    assert rank_points([1, 2, 2, 2, 5, 6]) == [5, 3, 3, 3, 1, 0]
    assert bye_points(4) == 1.5 and bye_points(2) == 0.5


def tie_break_field() -> list:
    """Six players, 2 seats, two rounds; `a` and `b`, `c` and `d`, `e` and `f` end level on points."""
    events = create(TOURNAMENT_ID, ORGANISER, CreateTournament(kind="tally", rounds=2), seed_of("tb"))
    ratings = {"a": 1500, "b": 1500, "c": 1400, "d": 1600, "e": 1500, "f": 1500}
    events += [PlayerRegistered(player_id=p, name=p.upper(), rating=r) for p, r in ratings.items()]
    events.append(TournamentStarted(draw=["f", "e", "d", "c", "b", "a"]))

    def game(round_: int, table: int, players: list[str], ranks: list[int]) -> list:
        gid = game_id(TOURNAMENT_ID, round_, table)
        return [ResultRecorded(round=round_, table=table, game_id=gid, players=players, ranks=ranks,
                               scores=[0, 0], points=rank_points(ranks))]

    tables1 = [PairedTable(table=i, game_id=game_id(TOURNAMENT_ID, 1, i), players=p)
               for i, p in enumerate([["a", "x1"], ["b", "x2"], ["c", "d"]], start=1)]
    # x1 and x2 are strong opponents: x1 beats everyone, so a's opponents are stronger than b's
    events[1:1] = [PlayerRegistered(player_id=x, name=x, rating=1000) for x in ("x1", "x2")]
    events.append(RoundPaired(round=1, tables=tables1, byes=["e", "f"], bye_points=0.5))
    events += game(1, 1, ["a", "x1"], [2, 1]) + game(1, 2, ["b", "x2"], [1, 2]) + game(1, 3, ["c", "d"], [1, 1])
    return events


def test_tie_breaks_order_points_then_opponents_strength_then_rating_then_the_draw():
    state = given(*tie_break_field())
    line = {s.player_id: s for s in standings(state)}
    order = [s.player_id for s in standings(state)]
    # 1 point each, no opponent scored: the rating decides (b 1500, x1 1000)
    assert order[:2] == ["b", "x1"]
    # half a point each: c and d drew each other (Buchholz 0.5) ahead of e and f (byes, Buchholz 0),
    # although c's rating (1400) is below e's and f's (1500): Buchholz comes before rating
    assert order[2:4] == ["d", "c"]          # equal points and Buchholz: d's rating 1600 beats c's 1400
    assert order[4:6] == ["f", "e"]          # everything equal: f comes first in the seeded draw
    # no point: a and x2 each lost to a 1-point player (Buchholz 1 > c's 0.5: points come first)
    assert order[6:] == ["a", "x2"]          # then the rating: a 1500 beats x2 1000
    assert line["a"].buchholz == line["x2"].buchholz == 1 and line["c"].buchholz == line["d"].buchholz == 0.5
    assert line["e"].buchholz == 0 and line["e"].points == line["c"].points == 0.5
