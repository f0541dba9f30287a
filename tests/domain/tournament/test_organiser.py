"""The organiser's tools: late join, pause, removal, entry conditions, forbidden pairings, annul and adjudicate.

Every scenario ends with the audit (`verify`) re-deciding the whole log from the revealed seed.
"""

from __future__ import annotations

import random

from domain.kernel import Outcome
from domain.tournament import (Adjudicate, Annul, Entry, ForbidPairing, Pause, RecordResult, Register, RemovePlayer,
                               Resume, Withdraw, verify)
from domain.tournament.events import PlayerRegistered
from domain.tournament.rules import code_hash
from domain.tournament.view import redact, view
from tests.domain.tournament.support import (ORGANISER, opened, play_out, play_round, player, refused, started,
                                             when)


def audited(events: list) -> None:
    report = verify(events)
    assert report.ok, report.problems


def test_a_late_entrant_joins_until_the_chosen_round_and_scores_nothing_for_the_rounds_missed():
    rnd = random.Random(1)
    state, events = started(6, seats=2, rounds=4, late_join_until=3)
    state, new = play_round(state, rnd)  # round 2 is paired: a late entrant still comes in time for round 3
    events += new
    state, new = when(state, "late", Register(name="Late", rating=1500))
    events += new
    assert state.entrants["late"].points == 0 and state.draw[-1] == "late"
    state, new = play_round(state, rnd)
    events += new
    assert any("late" in t.players for t in state.rounds[2].tables) or "late" in state.rounds[2].byes
    assert all("late" not in t.players for r in state.rounds[:2] for t in r.tables)
    refused(state, "later", Register(name="Later"), "tournament.registration_closed")  # round 3 is paired
    state, events = play_out(state, events, rnd)
    assert state.entrants["late"].games + state.entrants["late"].byes == 2
    audited(events)


def test_late_join_is_a_swiss_round_within_the_tournament():
    refused_settings = [dict(format="round_robin", late_join_until=1), dict(rounds=3, late_join_until=4)]
    for settings in refused_settings:
        try:
            opened(0, **settings)
        except Exception as exc:  # noqa: BLE001 - the RuleViolation's code is what matters
            assert getattr(exc, "code", "") == "tournament.bad_options"
        else:
            raise AssertionError(f"{settings} was accepted")


def test_a_paused_player_is_not_paired_and_scores_nothing_until_resumed():
    rnd = random.Random(2)
    state, events = started(8, seats=2, rounds=4)
    state, new = when(state, player(3), Pause())
    events += new
    state, new = play_round(state, rnd)
    events += new
    paired = {p for t in state.rounds[-1].tables for p in t.players} | set(state.rounds[-1].byes)
    assert player(3) not in paired
    points = state.entrants[player(3)].points
    refused(state, player(3), Pause(), "tournament.already_paused")
    refused(state, "mallory", Pause(player_id=player(3)), "tournament.not_organiser")
    state, new = when(state, ORGANISER, Resume(player_id=player(3)))
    events += new
    state, new = play_round(state, rnd)
    events += new
    assert player(3) in {p for t in state.rounds[-1].tables for p in t.players} | set(state.rounds[-1].byes)
    assert state.entrants[player(3)].points >= points
    state, events = play_out(state, events, rnd)
    audited(events)


def test_only_the_organiser_removes_a_player_who_then_ranks_last():
    rnd = random.Random(3)
    state, events = started(6, seats=2, rounds=3)
    state, new = play_round(state, rnd)
    events += new
    leader = view(state).standings[0].player_id
    refused(state, player(1), RemovePlayer(player_id=leader), "tournament.not_organiser")
    state, new = when(state, ORGANISER, RemovePlayer(player_id=leader, reason="cheating"))
    events += new
    state, events = play_out(state, events, rnd)
    last = view(state).standings[-1]
    assert last.player_id == leader and last.removed and not last.active
    audited(events)


def test_entry_conditions_admit_only_the_rated_range_the_rated_games_and_the_invited():
    state, events = opened(0, rounds=2, entry=Entry(min_rated_games=5, rating_min=1400, rating_max=1800, invited=["vip"]),
                           invitation_code="open-sesame")
    refused(state, "a", Register(name="A", rating=1500, rated_games=4), "tournament.too_few_rated_games")
    refused(state, "a", Register(name="A", rating=1900, rated_games=9), "tournament.rating_out_of_range")
    refused(state, "a", Register(name="A", rating=1500, rated_games=9), "tournament.not_invited")
    refused(state, "a", Register(name="A", rating=1500, rated_games=9, code="wrong"), "tournament.not_invited")
    state, new = when(state, "a", Register(name="A", rating=1500, rated_games=9, code="open-sesame"))
    events += new
    state, new = when(state, "vip", Register(name="V", rating=1500, rated_games=5))
    events += new
    state, new = when(state, ORGANISER, Register(name="Guest", player_id="guest", rating=100))  # the organiser's
    events += new
    assert set(state.entrants) == {"a", "vip", "guest"}
    # the code is never in the public record before the end, nor its plain hash
    code_event = next(e for e in events if isinstance(e, PlayerRegistered) and e.player_id == "a")
    assert redact(code_event, public=False).code is None
    assert events[0].code_hash == code_hash(events[0].seed, "open-sesame") != code_hash("00" * 32, "open-sesame")
    state, new = when(state, ORGANISER, __import__("domain.tournament", fromlist=["Start"]).Start())
    state, events = play_out(state, events + new, random.Random(4))
    audited(events)


def test_forbidden_pairings_are_honoured_whenever_the_round_allows_it():
    for seats, players in ((2, 10), (3, 12), (4, 12)):
        rnd = random.Random(seats)
        state, events = opened(players, seats=seats, rounds=3)
        teams = [[player(0), player(1), player(2)], [player(3), player(4)]]
        for team in teams:
            state, new = when(state, ORGANISER, ForbidPairing(players=team))
            events += new
        state, new = when(state, ORGANISER, __import__("domain.tournament", fromlist=["Start"]).Start())
        events += new
        while state.status != "finished":
            for table in state.rounds[-1].tables:
                for team in teams:
                    assert len(set(team) & set(table.players)) <= 1, (seats, state.round, table.players)
            state, new = play_round(state, rnd)
            events += new
        audited(events)


def test_annul_and_adjudicate_correct_tables_and_the_round_goes_on():
    rnd = random.Random(5)
    state, events = started(8, seats=2, rounds=3)
    first, second, *rest = state.rounds[-1].tables
    refused(state, first.players[0], Annul(game_id=first.game_id), "tournament.not_organiser")
    state, new = when(state, ORGANISER, Adjudicate(game_id=first.game_id, ranks=[2, 1]))  # its game still running
    events += new
    assert state.entrants[first.players[1]].points == 1 and state.rounds[0].tables[0].adjudicated
    refused(state, None, RecordResult(game_id=first.game_id, outcome=Outcome(scores=[1, 0], ranks=[1, 2],
                                                                                 winners=[0])),
            "tournament.result_already_recorded")
    state, new = when(state, ORGANISER, Annul(game_id=second.game_id))
    events += new
    refused(state, ORGANISER, Annul(game_id=second.game_id), "tournament.already_annulled")
    for table in rest:
        state, new = when(state, None, RecordResult(game_id=table.game_id,
                                                    outcome=Outcome(scores=[0, 1], ranks=[2, 1], winners=[1])))
        events += new
    assert state.round == 2, "the corrections count towards the round's end"
    assert state.entrants[second.players[0]].points == 0 and state.entrants[second.players[0]].games == 0
    # a past round's recorded table annulled: its points are taken back
    winner = rest[0].players[1]
    before = state.entrants[winner].points
    state, new = when(state, ORGANISER, Annul(game_id=rest[0].game_id))
    events += new
    assert state.entrants[winner].points == before - 1
    assert [t.status for t in view(state).rounds[0].tables][:3] == ["adjudicated", "annulled", "annulled"]
    state, events = play_out(state, events, rnd)
    audited(events)


def test_a_player_may_withdraw_while_paused_and_nobody_pauses_outside_swiss():
    state, _ = started(6, seats=2, rounds=3)
    state, _ = when(state, player(2), Pause())
    state, _ = when(state, player(2), Withdraw())
    refused(state, player(2), Resume(), "tournament.already_withdrawn")
    state, _ = started(4, seats=2, format="round_robin")
    refused(state, player(1), Pause(), "tournament.not_in_format")
