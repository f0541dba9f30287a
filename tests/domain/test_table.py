"""The platform decider's own commands: leaving before the start, resigning a running game."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from domain import table as table_module
from domain.catalog import GAMES
from domain.kernel import RuleViolation
from domain.simulate import start_table
from domain.table import GameEnded, Resign, SeatLeft, SeatResigned, SeedRevealed, Table
from testkit.tally import Add, TALLY

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


def test_a_game_recorded_before_play_on_ends_at_a_resignation_the_others_ranked_by_their_scores():
    state = msgspec.structs.replace(seated(3), play_on=False)  # as every log written before reads
    for seat, amount in ((0, 3), (1, 1), (2, 2)):
        state = TABLE.fold(TABLE.play(state, seat, Add(amount)), state)
    outcome = TABLE.play(state, 0, Resign())[1].outcome
    assert outcome.ranks == [3, 2, 1] and outcome.winners == [2]
    assert outcome.details == {"resigned": 0, "reason": "resigned"}


def test_logs_written_before_play_on_decode_without_it_and_new_games_carry_it():
    created = TABLE.create({"target": 50}, 3, b"seed")[0]
    assert created.play_on is True
    data = TABLE.event_data(created)
    del data["play_on"]
    assert TABLE.decode_event("table.GameCreated", data).play_on is False


def test_a_seat_leaving_a_game_of_three_is_played_by_the_timeout_rule_and_the_game_goes_on():
    state = seated(3)
    state = TABLE.fold(TABLE.play(state, 0, Add(3)), state)
    events = TABLE.play(state, 2, Resign())
    # the game goes on: seat 2 left out of turn, seat 1 is to act; nothing is played for seat 2 yet
    assert events == [SeatResigned(seat=2, reason="resigned")]
    state = TABLE.fold(events, state)
    assert state.status == "active" and TABLE.to_act(state) == [1] and TABLE.legal(state, 2) == []
    events = TABLE.play(state, 1, Add(1))
    # seat 2's turn comes: the kind's timeout rule (here none of its own: the first legal command) plays it
    assert [type(e).__name__ for e in events] == ["Added", "Added"] and events[1].seat == 2
    state = TABLE.fold(events, state)
    assert TABLE.to_act(state) == [0]
    with pytest.raises(RuleViolation) as exc:
        TABLE.play(state, 2, Add(1))
    assert exc.value.code == "table.seat_left"
    with pytest.raises(RuleViolation) as exc:
        TABLE.play(state, 2, Resign())
    assert exc.value.code == "table.seat_left"


def test_a_seat_leaving_on_its_turn_is_played_for_at_once():
    state = seated(3)
    events = TABLE.play(state, 0, Resign())
    assert [type(e).__name__ for e in events] == ["SeatResigned", "Added"] and events[1].seat == 0
    assert TABLE.to_act(TABLE.fold(events, state)) == [1]


def test_a_seat_that_left_ranks_last_when_the_game_ends_by_its_rules():
    state = seated(3)
    state = TABLE.fold(TABLE.play(state, 0, Resign()), state)
    while state.status == "active":
        seat = TABLE.to_act(state)[0]
        state = TABLE.fold(TABLE.play(state, seat, Add(3)), state)
    outcome = state.outcome
    assert outcome.ranks[0] == 3 and sorted(outcome.ranks[1:]) == [1, 2]
    assert outcome.details == {"left": [0]} and outcome.winners == [outcome.ranks.index(1)]


def test_when_one_seat_is_left_in_the_game_ends_the_earlier_leaver_last():
    state = seated(4)
    state = TABLE.fold(TABLE.play(state, 0, Add(3)), state)
    state = TABLE.fold(TABLE.play(state, 2, Resign()), state)
    assert state.status == "active"
    events = TABLE.play(state, 3, Resign())  # seats 0 and 1 are still in: the game goes on
    state = TABLE.fold(events, state)
    assert state.status == "active"
    events = TABLE.play(state, TABLE.to_act(state)[0], Resign())
    assert [type(e) for e in events][-2:] == [GameEnded, SeedRevealed]
    outcome = events[-2].outcome
    still_in = ({0, 1} - {events[0].seat}).pop()
    assert outcome.winners == [still_in] and outcome.ranks[2] == 4 and outcome.ranks[3] == 3
    assert outcome.details["left"] == [2, 3, events[0].seat]


def test_the_left_seats_are_ranked_last_by_the_leaving_rules():
    from domain.kernel import Outcome
    from domain.table.leaving import left_last

    played = Outcome(scores=[5, 9, 7, 1], ranks=[3, 1, 2, 4], winners=[1], details={"x": 1})
    assert left_last(played, [1]) == Outcome(scores=[5, 9, 7, 1], ranks=[2, 4, 1, 3], winners=[2],
                                             details={"x": 1, "left": [1]})
    assert left_last(played, [3, 1]).ranks == [2, 3, 1, 4]
    assert left_last(played, []) == played


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


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_commands_and_events_decode_into_their_tags_type_and_anything_else_is_refused_as_before(kind):
    """decode_command and decode_event convert into the tag's own type (the union only for an unknown tag);
    whatever the tag is, the answer is the union's: the same struct, or a ValidationError, never a crash."""
    table = Table(GAMES[kind])
    for raw in ({"type": ["x"]}, {"type": {"a": 1}}, {"type": 3}, {"type": None}, {"type": "no.Such"}, {}, [1], "x"):
        with pytest.raises(msgspec.ValidationError) as by_tag:
            table.decode_command(raw)
        with pytest.raises(msgspec.ValidationError) as by_union:
            msgspec.convert(raw, table.command_union)
        assert str(by_tag.value) == str(by_union.value)
    state, events = start_table(table, {}, GAMES[kind].min_players, b"decode-" + kind.encode())
    for _ in range(30):  # the start and some play: platform and game events
        seat = min(table.to_act(state))
        played = table.play(state, seat, table.legal(state, seat)[0])
        events, state = [*events, *played], table.fold(played, state)
    assert len({table.event_type(e) for e in events}) > 3
    for event in events:
        assert table.decode_event(table.event_type(event), table.event_data(event)) == event
    with pytest.raises(msgspec.ValidationError):
        table.decode_event("no.Such", {})


@pytest.mark.parametrize("kind,seats", [(k, n) for k in sorted(GAMES) for n in range(4, GAMES[k].max_players + 1)])
def test_two_seats_leaving_a_game_of_four_or_more_rank_last_the_earlier_leaver_lowest(kind, seats):
    """Random play of every kind at 4+ seats while two seats resign one after the other: the game still
    reaches its rules' end, the two rank last (the later leaver above the earlier), and `legal` never
    offers a seat that left anything."""
    import random

    rnd = random.Random(f"{kind}-{seats}")
    table = Table(GAMES[kind])
    state = table.fold(table.create({}, seats, f"{kind}{seats}".encode()))
    for seat in range(seats):
        state = table.fold(table.join(state, f"p{seat}", f"P{seat}"), state)
    state = table.fold(table.start(state, "p0"), state)
    first, second = rnd.sample(range(seats), 2)
    leave = {rnd.randrange(1, 20): first, rnd.randrange(20, 60): second}
    for step in range(50_000):
        if state.status != "active":
            break
        if step in leave:
            state = table.fold(table.play(state, leave[step], Resign()), state)
            continue
        assert all(table.legal(state, s) == [] for s in state.resigned)
        seat = rnd.choice(table.to_act(state))
        state = table.fold(table.play(state, seat, rnd.choice(table.legal(state, seat))), state)
    assert state.status == "finished" and state.resigned == (first, second)
    outcome = state.outcome
    assert outcome.details["left"] == [first, second] and "resigned" not in outcome.details
    assert outcome.ranks[first] == seats and outcome.ranks[second] == seats - 1
    assert max(r for s, r in enumerate(outcome.ranks) if s not in (first, second)) < seats - 1


@pytest.mark.parametrize("kind", [*sorted(GAMES), TALLY.kind])
def test_play_folded_gives_the_state_its_events_fold_to_through_clocks_leavers_and_the_end(kind):
    """The command pipeline records `play_folded`'s state instead of folding the events again: at every
    step of clocked games of three seats where one seat leaves midway (played for by the timeout rule,
    then the game to its end), that state is exactly the events folded onto the state before."""
    from domain.kernel import Rng
    from domain.simulate import pick

    game = GAMES.get(kind, TALLY)  # Tally: a stand-in's command often ends the game
    table = Table(game)
    seats = 3
    for n in range(3 if game is not TALLY else 20):
        bot = Rng(f"{kind}/folded/{n}".encode(), 0)
        state = table.fold(table.create({}, seats, f"{kind}-{n}".encode(), time_control={"per_move_seconds": 60}))
        for seat in range(seats):
            state = table.fold(table.join(state, f"p{seat}", f"P{seat}", seat), state)
        state = table.fold(table.start(state, "p0", now_ms=0), state)
        now, steps = 0, 0
        while state.status == "active" and steps < 3000:
            now, steps = now + 1000, steps + 1
            if steps == (40 if game is not TALLY else 2 + n % 5):
                seat, command = seats - 1, Resign()
            else:
                seat = bot.choice(table.to_act(state))
                legal = table.legal(state, seat)
                command = pick(bot, legal, game.bot_weights(state.game, seat, legal) if game.bot_weights else None)
            events, after = table.play_folded(state, seat, command, now)
            assert events == table.play(state, seat, command, now)
            assert after == table.fold(events, state), (kind, n, steps, [type(e).__name__ for e in events])
            state = after
        assert state.status == "finished", (kind, n, steps)
