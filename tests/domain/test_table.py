"""The platform decider's own commands: leaving before the start, resigning a running game."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from domain import table as table_module
from domain.catalog import GAMES
from domain.kernel import RuleViolation
from domain.table import GameEnded, Resign, SeatLeft, SeatResigned, SeedRevealed, Table
from tests.support.tally import Add, TALLY

TABLE = Table(TALLY)


def seated(players: int, start: bool = True):
    state = TABLE.fold(TABLE.create({"target": 50}, players, b"seed"))
    for seat in range(players):
        state = TABLE.fold(TABLE.join(state, f"p{seat}", f"P{seat}"), state)
    if start:
        state = TABLE.fold(TABLE.start(state, "p0"), state)
    return state


def test_a_seated_player_may_leave_before_the_start_and_the_seat_is_free_again():
    state = seated(3, start=False)
    events = TABLE.leave(state, "p1")
    assert events == [SeatLeft(seat=1, player_id="p1")]
    state = TABLE.fold(events, state)
    assert state.seats[1] is None and TABLE.seat_of(state, "p1") is None
    state = TABLE.fold(TABLE.join(state, "p9", "P9"), state)
    assert state.seats[1].player_id == "p9"


def test_nobody_leaves_a_started_game_and_strangers_have_no_seat_to_leave():
    with pytest.raises(RuleViolation) as exc:
        TABLE.leave(seated(2), "p0")
    assert exc.value.code == "table.not_open"
    with pytest.raises(RuleViolation) as exc:
        TABLE.leave(seated(2, start=False), "stranger")
    assert exc.value.code == "table.not_seated"


def test_resigning_a_two_player_game_makes_the_opponent_the_winner():
    state = seated(2)
    state = TABLE.fold(TABLE.play(state, 0, Add(3)), state)
    events = TABLE.play(state, 0, Resign())
    assert [type(e) for e in events] == [SeatResigned, GameEnded, SeedRevealed]
    outcome = events[1].outcome
    assert outcome.winners == [1] and outcome.ranks == [2, 1]
    assert outcome.details == {"resigned": 0, "reason": "resigned"}
    state = TABLE.fold(events, state)
    assert state.status == "finished" and state.resigned == (0,)


def test_with_more_seats_the_others_are_ranked_by_their_scores_above_the_resigned_seat():
    state = seated(3)
    for seat, amount in ((0, 3), (1, 1), (2, 2)):
        state = TABLE.fold(TABLE.play(state, seat, Add(amount)), state)
    outcome = TABLE.play(state, 0, Resign())[1].outcome
    assert outcome.ranks == [3, 2, 1] and outcome.winners == [2]


def test_resign_is_a_platform_command_on_the_wire_and_never_offered_by_legal():
    state = seated(2)
    assert TABLE.decode_command({"type": "table.Resign"}) == Resign()
    assert TABLE.decode_command_json(b'{"type":"table.Resign"}') == Resign()
    assert all(not isinstance(c, Resign) for c in TABLE.legal(state, 0))
    over = TABLE.fold(TABLE.play(state, 1, Resign()), state)
    with pytest.raises(RuleViolation) as exc:
        TABLE.play(over, 0, Resign())
    assert exc.value.code == "table.not_active"


def test_every_platform_refusal_code_is_documented():
    source = "\n".join(path.read_text() for path in Path(table_module.__file__).parent.glob("*.py"))
    raised = set(re.findall(r'RuleViolation\(\s*"(table\.[a-z_]+)"', source))
    assert raised and raised <= set(table_module.TABLE_CODES), raised - set(table_module.TABLE_CODES)


def test_snapshots_keep_the_resigned_seats():
    state = seated(3)
    state = TABLE.fold(TABLE.play(state, 2, Resign()), state)
    assert TABLE.load_state(TABLE.dump_state(state)) == state
    assert msgspec.json.decode(TABLE.dump_state(state))["resigned"] == [2]


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_every_command_of_every_kind_refuses_an_unknown_field_by_name(kind):
    # a misspelt optional field (`kards` for `cards`) would otherwise be dropped and its default played
    table = Table(GAMES[kind])
    members = msgspec.inspect.type_info(table.command_union).types
    assert len(members) > 1
    for member in members:
        wire = {"type": member.cls.__struct_config__.tag, "no_such_field": 1}
        with pytest.raises(msgspec.ValidationError, match="unknown field `no_such_field`"):
            table.decode_command(wire)
        with pytest.raises(msgspec.ValidationError, match="unknown field `no_such_field`"):
            table.decode_command_json(msgspec.json.encode(wire))
