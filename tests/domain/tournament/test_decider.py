"""The tournament decider: registration, start, results, and every refusal with its documented code."""

from __future__ import annotations

import msgspec
import pytest

from domain.kernel import Outcome, RuleViolation
from domain.tournament import (CODES, CreateTournament, PlayerRegistered, PlayerWithdrew, RecordResult, Register,
                               ResultRecorded, RoundPaired, SeedRevealed, Start, TournamentCreated, TournamentEnded,
                               TournamentStarted, Withdraw, create, decide, decode_command, decode_event, event_data,
                               event_type, redact, view)
from domain.tournament.rules import CODES as RULE_CODES
from tests.domain.tournament.support import (ORGANISER, TOURNAMENT_ID, given, opened, player, refused, seed_of,
                                             started, when)

WIN = Outcome(scores=[2, 1], ranks=[1, 2], winners=[0])


def test_creation_commits_to_the_seed_and_keeps_it_secret_from_readers():
    events = create(TOURNAMENT_ID, ORGANISER, CreateTournament(kind="tally", rounds=3), seed_of("x"))
    assert len(events) == 1 and isinstance(events[0], TournamentCreated)
    created = events[0]
    assert created.seed == seed_of("x").hex() and created.organiser == ORGANISER
    assert created.min_players == 2 and created.min_seats == 2 and created.max_players == 100_000
    assert redact(created, public=False).seed is None
    assert redact(created, public=True).seed == created.seed


@pytest.mark.parametrize("settings", [
    dict(seats=1), dict(seats=7), dict(rounds=0), dict(format="single_elimination", seats=4, advance=4),
    dict(seats=4, min_seats=5), dict(min_players=1), dict(min_players=10, max_players=5),
    dict(kind=""), dict(format="round_robin", max_players=65),
])
def test_settings_that_cannot_be_run_are_refused_at_creation(settings):
    command = msgspec.convert({"kind": "tally", "rounds": 3, **settings}, CreateTournament)
    with pytest.raises(RuleViolation) as exc:
        create(TOURNAMENT_ID, ORGANISER, command, seed_of("x"))
    assert exc.value.code == "tournament.bad_options"


def test_a_tournament_id_must_be_a_uuid():
    with pytest.raises(RuleViolation) as exc:
        create("not-a-uuid", ORGANISER, CreateTournament(kind="tally", rounds=1), seed_of("x"))
    assert exc.value.code == "tournament.bad_options"


def test_a_command_before_creation_is_refused():
    with pytest.raises(RuleViolation) as exc:
        decide(None, "p", Start(), None)  # type: ignore[arg-type]
    assert exc.value.code == "tournament.not_created"


def test_registering_twice_is_refused():
    state, _ = opened(2, rounds=1)
    refused(state, player(0), Register(name="again"), "tournament.already_registered")


def test_registering_after_the_start_is_refused():
    state, _ = started(4, rounds=1)
    refused(state, "late", Register(name="Late"), "tournament.registration_closed")


def test_registering_beyond_the_maximum_is_refused():
    state, _ = opened(4, rounds=1, max_players=4)
    refused(state, "fifth", Register(name="Fifth"), "tournament.full")


def test_only_the_organiser_registers_someone_else():
    state, _ = opened(0, rounds=1)
    refused(state, "mallory", Register(name="Bob", player_id="bob"), "tournament.not_organiser")
    _, events = when(state, ORGANISER, Register(name="Bob", player_id="bob", rating=1700))
    assert events == [PlayerRegistered(player_id="bob", name="Bob", rating=1700, invited_by=ORGANISER)]


def test_starting_with_too_few_players_is_refused():
    state, _ = opened(3, rounds=1, min_players=4)
    refused(state, ORGANISER, Start(), "tournament.too_few_players")


def test_a_player_who_is_not_the_organiser_cannot_start():
    state, _ = opened(4, rounds=1)
    refused(state, player(0), Start(), "tournament.not_organiser")


def test_an_admin_may_start_in_the_organisers_place():
    state, _ = opened(4, rounds=1)
    state, events = when(state, "admin", Start(), admin=True)
    assert isinstance(events[0], TournamentStarted) and isinstance(events[1], RoundPaired)


def test_starting_twice_is_refused():
    state, _ = started(4, rounds=1)
    refused(state, ORGANISER, Start(), "tournament.already_started")


def test_the_start_draws_every_entrant_and_pairs_round_one():
    state, events = started(6, rounds=2)
    started_event, paired = events[-2], events[-1]
    assert sorted(started_event.draw) == sorted(player(i) for i in range(6))
    assert isinstance(paired, RoundPaired) and paired.round == 1
    assert sorted(p for t in paired.tables for p in t.players) == sorted(started_event.draw)
    assert state.status == "running" and state.pending == 3


def test_a_result_for_an_unknown_game_is_refused():
    state, _ = started(4, rounds=1)
    refused(state, None, RecordResult(game_id="00000000-0000-5000-8000-000000000000", outcome=WIN),
            "tournament.unknown_game")


def test_a_result_recorded_twice_is_refused():
    state, _ = started(4, rounds=2)
    game = state.rounds[0].tables[0].game_id
    state, _ = when(state, None, RecordResult(game_id=game, outcome=WIN))
    refused(state, None, RecordResult(game_id=game, outcome=WIN), "tournament.result_already_recorded")


def test_results_come_only_from_the_platform():
    state, _ = started(4, rounds=1)
    game = state.rounds[0].tables[0].game_id
    refused(state, player(0), RecordResult(game_id=game, outcome=WIN), "tournament.not_platform")


def test_an_outcome_that_does_not_fit_the_table_is_refused():
    state, _ = started(4, rounds=1)
    game = state.rounds[0].tables[0].game_id
    three = Outcome(scores=[1, 1, 1], ranks=[1, 1, 1], winners=[0, 1, 2])
    refused(state, None, RecordResult(game_id=game, outcome=three), "tournament.bad_outcome")


def test_a_result_before_the_start_is_refused():
    state, _ = opened(4, rounds=1)
    refused(state, None, RecordResult(game_id="g", outcome=WIN), "tournament.not_running")


def test_withdrawing_before_the_start_removes_the_entry():
    state, _ = opened(3, rounds=1)
    state, events = when(state, player(1), Withdraw())
    assert events == [PlayerWithdrew(player_id=player(1))]
    assert player(1) not in state.entrants
    refused(state, player(1), Withdraw(), "tournament.not_registered")


def test_a_withdrawn_player_is_never_paired_again_but_keeps_a_standing():
    state, _ = started(8, rounds=3)
    state, _ = when(state, player(3), Withdraw())
    refused(state, player(3), Withdraw(), "tournament.already_withdrawn")
    for table in state.rounds[0].tables:
        state, _ = when(state, None, RecordResult(game_id=table.game_id, outcome=WIN))
    later = state.rounds[1]
    assert player(3) not in [p for t in later.tables for p in t.players] + list(later.byes)
    assert player(3) in [s.player_id for s in view(state).standings]


def test_the_result_completing_a_round_pairs_the_next_one_in_the_same_decision():
    state, _ = started(4, rounds=2)
    first, second = state.rounds[0].tables
    state, events = when(state, None, RecordResult(game_id=first.game_id, outcome=WIN))
    assert [type(e) for e in events] == [ResultRecorded]
    state, events = when(state, None, RecordResult(game_id=second.game_id, outcome=WIN))
    assert [type(e) for e in events] == [ResultRecorded, RoundPaired]
    assert events[1].round == 2


def test_the_last_result_ends_the_tournament_and_reveals_the_seed():
    state, _ = started(4, rounds=1)
    events: list = []
    for table in state.rounds[0].tables:
        state, events = when(state, None, RecordResult(game_id=table.game_id, outcome=WIN))
    assert [type(e) for e in events] == [ResultRecorded, TournamentEnded, SeedRevealed]
    assert events[2].seed == seed_of("seed").hex()
    assert state.status == "finished" and view(state).seed == events[2].seed
    refused(state, player(0), Withdraw(), "tournament.finished")


def test_game_seeds_stay_secret_in_the_stream_until_the_end():
    state, events = started(4, rounds=1)
    paired = events[-1]
    assert all(t.seed for t in paired.tables)
    assert all(t.seed is None for t in redact(paired, public=False).tables)
    assert redact(paired, public=True) == paired


def test_events_and_commands_survive_the_wire():
    state, events = started(5, rounds=2, seats=2)
    for event in events:
        assert decode_event(event_type(event), event_data(event)) == event
    command = RecordResult(game_id="g", outcome=WIN)
    assert decode_command(msgspec.json.encode(command)) == command


def test_every_code_is_documented_in_one_table():
    assert CODES is RULE_CODES and all(code.startswith("tournament.") for code in CODES)


def test_a_fold_of_the_stream_is_the_state_the_decisions_left():
    state, events = started(9, rounds=2, seats=3)
    assert given(*events) == state


def test_the_view_lists_rounds_tables_and_game_ids_but_no_secret():
    state, events = started(6, rounds=2, seats=3)
    seen = view(state)
    assert seen.status == "running" and seen.round == 1 and seen.players == 6 and seen.seed is None
    assert [t.game_id for t in seen.rounds[0].tables] == [t.game_id for t in events[-1].tables]
    encoded = msgspec.json.encode(seen)
    assert all(t.seed.encode() not in encoded for t in events[-1].tables)
    assert seed_of("seed").hex().encode() not in encoded
