"""The organiser's manual pairings (`SetPairings`): set for the next round, paired as given, audited like any pairing."""

from __future__ import annotations

import random

from domain.tournament import RoundPaired, SetPairings, verify
from domain.tournament.commands import Pause
from domain.tournament.events import PairingsSet
from tests.domain.tournament.support import ORGANISER, opened, play_out, play_round, player, refused, started, when


def _tables(state) -> list[list[str]]:
    return [list(t.players) for t in state.rounds[-1].tables]


def test_the_next_round_is_paired_as_the_organiser_set_it_and_the_audit_re_derives_it():
    rnd = random.Random(11)
    state, events = started(8, seats=2, rounds=3)
    chosen = [[player(7), player(0)], [player(1), player(6)], [player(5), player(2)], [player(3), player(4)]]
    assert sorted(map(sorted, chosen)) != sorted(map(sorted, _tables(state)))
    state, new = when(state, ORGANISER, SetPairings(round=2, tables=chosen))
    events += new
    assert new == [PairingsSet(round=2, tables=chosen, byes=[])]
    state, new = play_round(state, rnd)
    events += new
    assert state.round == 2 and _tables(state) == chosen  # seat order as given
    state, events = play_out(state, events, rnd)
    report = verify(events)
    assert report.ok, report.problems


def test_the_audit_catches_a_round_whose_games_are_not_the_tables_set():
    rnd = random.Random(12)
    state, events = started(8, seats=2, rounds=2)
    chosen = [[player(7), player(0)], [player(1), player(6)], [player(5), player(2)], [player(3), player(4)]]
    state, new = when(state, ORGANISER, SetPairings(round=2, tables=chosen))
    events += new
    state, new = play_round(state, rnd)
    events += new
    state, events = play_out(state, events, rnd)
    at = next(i for i, e in enumerate(events) if isinstance(e, RoundPaired) and e.round == 2)
    paired = events[at]
    swapped = [paired.tables[0].__class__(table=t.table, game_id=t.game_id, seed=t.seed, players=t.players[::-1])
               for t in paired.tables]
    tampered = [*events[:at], RoundPaired(round=2, tables=swapped, byes=paired.byes, bye_points=paired.bye_points),
                *events[at + 1:]]
    assert not verify(tampered).ok
    forged = [e for e in events if not isinstance(e, PairingsSet)]  # the round without the organiser's say
    assert not verify(forged).ok


def test_byes_and_short_tables_are_the_organisers_to_give():
    rnd = random.Random(13)
    state, events = started(7, seats=3, min_seats=2, rounds=2)
    chosen = [[player(0), player(1), player(2)], [player(3), player(4)], [player(5)]]
    refused(state, ORGANISER, SetPairings(round=2, tables=chosen), "tournament.pairing_table_size")
    state, new = when(state, ORGANISER, SetPairings(round=2, tables=chosen[:2], byes=[player(5), player(6)]))
    events += new
    state, new = play_round(state, rnd)
    events += new
    assert _tables(state) == chosen[:2] and list(state.rounds[-1].byes) == [player(5), player(6)]
    state, events = play_out(state, events, rnd)
    assert verify(events).ok


def test_refusals_have_their_own_codes():
    state, _ = started(4, seats=2, rounds=3)
    good = [[player(0), player(1)], [player(2), player(3)]]
    refused(state, player(0), SetPairings(round=2, tables=good), "tournament.not_organiser")
    refused(state, ORGANISER, SetPairings(round=1, tables=good), "tournament.round_already_paired")
    refused(state, ORGANISER, SetPairings(round=2, tables=[[player(0), "nobody"], [player(2), player(3)]]),
            "tournament.pairing_unknown_player")
    refused(state, ORGANISER, SetPairings(round=2, tables=[[player(0), player(1)], [player(1), player(3)]]),
            "tournament.pairing_player_twice")
    refused(state, ORGANISER, SetPairings(round=2, tables=[[player(0), player(1), player(2), player(3)]]),
            "tournament.pairing_table_size")
    refused(state, ORGANISER, SetPairings(round=2, tables=good[:1]), "tournament.pairing_incomplete")
    refused(state, ORGANISER, SetPairings(round=3, tables=good), "tournament.bad_request")
    rr, _ = started(4, seats=2, format="round_robin")
    refused(rr, ORGANISER, SetPairings(round=2, tables=good), "tournament.not_in_format")


def test_round_one_can_be_set_before_the_start_and_a_later_pause_falls_back_to_the_automatic_pairing():
    state, _ = opened(4, seats=2, rounds=2)
    good = [[player(3), player(0)], [player(2), player(1)]]
    state, _ = when(state, ORGANISER, SetPairings(round=1, tables=good))
    from domain.tournament.commands import Start
    begun, _ = when(state, ORGANISER, Start())
    assert _tables(begun) == good
    state, _ = started(6, seats=2, rounds=3)
    six = [[player(i), player(5 - i)] for i in range(3)]
    state, _ = when(state, ORGANISER, SetPairings(round=2, tables=six))
    state, _ = when(state, player(0), Pause())
    state, _ = play_round(state, random.Random(14))
    assert all(player(0) not in t for t in _tables(state)) and _tables(state) != six
