"""Duplicate deals: a round's results stay out of the public picture until its last table has one."""

from __future__ import annotations

import random

from domain.kernel import Outcome
from domain.tournament import RecordResult, ResultRecorded, sealed_round, shown, unrecorded, unsealed, view
from tests.domain.tournament.support import started, when


def first_result(duplicate: bool):
    state, _ = started(6, seed="deal", seats=2, rounds=2, duplicate=duplicate)
    table = state.rounds[0].tables[0]
    state, events = when(state, None, RecordResult(game_id=table.game_id,
                                                   outcome=Outcome(scores=[2, 1], ranks=[1, 2], winners=[0])))
    return state, next(e for e in events if isinstance(e, ResultRecorded)), table


def test_a_duplicate_round_hides_its_results_and_standings_until_every_table_has_one():
    state, recorded, table = first_result(duplicate=True)
    assert sealed_round(state, 1) and table.game_id not in unrecorded(state, table.game_id)
    assert len(unrecorded(state, table.game_id)) == 2
    picture = view(state)
    assert picture.rounds[0].tables[0].ranks is None and all(s.points == 0 for s in picture.standings)
    assert all(not s.games for s in picture.standings)
    assert shown(state, recorded).ranks == [] and shown(state, recorded).points == []
    assert unsealed(state).entrants[table.players[0]].met == {}


def test_once_the_last_table_of_the_deal_has_a_result_everything_counts():
    state, recorded, _ = first_result(duplicate=True)
    for table in state.rounds[0].tables[1:]:
        state, _ = when(state, None, RecordResult(game_id=table.game_id,
                                                  outcome=Outcome(scores=[1, 1], ranks=[1, 1], winners=[0, 1])))
    assert not sealed_round(state, 1) and state.round == 2
    assert shown(state, recorded).points == [1.0, 0.0]
    assert view(state).rounds[0].tables[0].ranks == [1, 2] and sum(s.points for s in view(state).standings) == 3


def test_without_duplicate_a_result_is_public_at_once():
    state, recorded, table = first_result(duplicate=False)
    assert not sealed_round(state, 1) and unrecorded(state, table.game_id) == []
    assert shown(state, recorded) == recorded and view(state).rounds[0].tables[0].ranks == [1, 2]
