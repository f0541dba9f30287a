"""Whole tournaments with random outcomes reach final standings, and `verify` re-derives every one of them."""

from __future__ import annotations

import random

import msgspec
import pytest

from domain.tournament import (PairedTable, ResultRecorded, RoundPaired, SeedRevealed, TournamentEnded,
                               TournamentStarted, standings, verify)
from tests.domain.tournament.support import play_out, started

FORMATS = {
    "swiss": lambda seats: dict(rounds=4),
    "round_robin": lambda seats: {},
    "single_elimination": lambda seats: dict(advance=max(1, seats // 2)),
}


def cases():
    rnd = random.Random(2026)
    for seats in range(2, 7):
        for fmt in FORMATS:
            for players in (7, rnd.randint(8, 39), 40):
                yield seats, fmt, players, rnd.choice([seats, max(2, seats - 1)])


def simulated(seats: int, fmt: str, players: int, min_seats: int) -> tuple:
    state, events = started(players, seed=f"{fmt}-{seats}-{players}", seats=seats, format=fmt,
                            min_seats=min_seats, **FORMATS[fmt](seats))
    return play_out(state, events, random.Random(players * seats))


@pytest.mark.parametrize("seats,fmt,players,min_seats", list(cases()))
def test_a_simulated_tournament_reaches_final_standings_that_verify_re_derives(seats, fmt, players, min_seats):
    state, events = simulated(seats, fmt, players, min_seats)
    assert state.status == "finished" and isinstance(events[-1], SeedRevealed)
    table = standings(state)
    assert sorted(s.player_id for s in table) == sorted(state.entrants)
    assert [s.place for s in table] == list(range(1, players + 1))
    for paired in (e for e in events if isinstance(e, RoundPaired)):
        seated = [p for t in paired.tables for p in t.players] + list(paired.byes)
        assert len(seated) == len(set(seated))
        assert all(min_seats <= len(t.players) <= seats for t in paired.tables)
    report = verify(events)
    assert report.ok, report.problems
    assert report.finished and report.rounds_checked == len(state.rounds)


@pytest.fixture(scope="module")
def finished() -> list:
    return simulated(4, "swiss", 23, 3)[1]


def tamper(events: list, index: int, event) -> list:
    return [*events[:index], event, *events[index + 1:]]


def test_verification_detects_two_players_swapped_between_tables(finished):
    i, paired = next((i, e) for i, e in enumerate(finished) if isinstance(e, RoundPaired) and e.round == 3)
    first, second = paired.tables[0], paired.tables[1]
    swapped = [msgspec.structs.replace(first, players=[second.players[0], *first.players[1:]]),
               msgspec.structs.replace(second, players=[first.players[0], *second.players[1:]]),
               *paired.tables[2:]]
    report = verify(tamper(finished, i, msgspec.structs.replace(paired, tables=swapped)))
    assert not report.ok and report.problems[0].startswith(f"v{i + 1}:")


def test_verification_detects_a_reordered_seat(finished):
    i, paired = next((i, e) for i, e in enumerate(finished) if isinstance(e, RoundPaired) and e.round == 2)
    table = paired.tables[0]
    moved = PairedTable(table=table.table, game_id=table.game_id, players=table.players[::-1], seed=table.seed)
    report = verify(tamper(finished, i, msgspec.structs.replace(paired, tables=[moved, *paired.tables[1:]])))
    assert not report.ok


def test_verification_detects_a_game_seed_not_derived_from_the_tournament_seed(finished):
    i, paired = next((i, e) for i, e in enumerate(finished) if isinstance(e, RoundPaired))
    table = msgspec.structs.replace(paired.tables[0], seed="00" * 32)
    report = verify(tamper(finished, i, msgspec.structs.replace(paired, tables=[table, *paired.tables[1:]])))
    assert not report.ok


def test_verification_detects_a_rigged_draw(finished):
    i, start = next((i, e) for i, e in enumerate(finished) if isinstance(e, TournamentStarted))
    report = verify(tamper(finished, i, TournamentStarted(draw=sorted(start.draw))))
    assert not report.ok and report.problems[0].startswith(f"v{i + 1}:")


def test_verification_detects_altered_points_and_standings(finished):
    i, result = next((i, e) for i, e in enumerate(finished) if isinstance(e, ResultRecorded))
    assert not verify(tamper(finished, i, msgspec.structs.replace(result, points=result.points[::-1]))).ok
    ended = len(finished) - 2
    assert isinstance(finished[ended], TournamentEnded)
    order = finished[ended].standings
    assert not verify(tamper(finished, ended, TournamentEnded(standings=order[::-1]))).ok


def test_verification_detects_a_pairing_nobody_asked_for(finished):
    i, paired = next((i, e) for i, e in enumerate(finished) if isinstance(e, RoundPaired) and e.round == 2)
    report = verify([*finished[:i + 1], paired, *finished[i + 1:]])
    assert not report.ok and "not produced by any command" in report.problems[0]


def test_verification_refuses_a_seed_that_does_not_match_the_commitment(finished):
    report = verify([*finished[:-1], SeedRevealed(seed="11" * 32)])
    assert not report.ok


def test_verification_of_a_running_tournament_says_the_seed_is_still_secret():
    state, events = started(8, seed="running", rounds=3)
    hidden = [msgspec.structs.replace(events[0], seed=None), *events[1:]]
    report = verify(hidden)
    assert not report.ok and not report.finished
