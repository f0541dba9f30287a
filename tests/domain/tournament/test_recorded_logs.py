"""Logs recorded before the one competition model (issue 44) still decode, fold and verify.

`logs/*.json` were written by the code of main 6ab2b7d, before the arena became a format of the
tournament: one finished log of every format (Swiss at two and four seats with the organiser's tools,
round robin, single elimination, duplicate, arena at two and four seats), each event as the store keeps
it (`type`, `data`). Replaying them proves that the event names and fields a stored stream holds are
still read, and that the audit still re-derives every decision they record. The arena logs name four facts
every format now shares by their old tags (`arena.PlayerPaused`, ...): they decode as the shared classes,
under the shared tag, with the data as stored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import domain.tournament.arena as A
import domain.tournament.competition as C
from domain.tournament.facts import RENAMED, PlayerPaused, PlayerWithdrew, SeedRevealed, TournamentEnded

LOGS = Path(__file__).parent / "logs"
FORMATS = {"swiss": "swiss", "swiss_four_seats": "swiss", "round_robin": "round_robin",
           "single_elimination": "single_elimination", "duplicate": "swiss", "arena": "arena", "arena_four_seats": "arena"}


def recorded(name: str) -> list[tuple[str, dict]]:
    return [(e["type"], e["data"]) for e in json.loads((LOGS / f"{name}.json").read_text())["events"]]


def test_every_format_has_a_recorded_log():
    assert {p.stem for p in LOGS.glob("*.json")} == set(FORMATS)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_log_recorded_before_the_change_folds_and_verifies(name):
    events = [C.decode_event(type_, data) for type_, data in recorded(name)]
    report = C.verify(events)
    assert report.ok, report.problems
    assert report.finished
    state = C.fold(events)
    assert state.version == len(events) and C.finished(state)
    assert C.format_name(state) == FORMATS[name]
    assert C.view(state).seed == state.seed  # revealed at the end, as the view shows it
    assert [C.event_type(e) for e in events] == [RENAMED.get(type_, type_) for type_, _ in recorded(name)]
    assert [C.event_data(e) for e in events] == [data for _, data in recorded(name)]


@pytest.mark.parametrize("name", ["arena", "arena_four_seats"])
def test_an_old_arena_logs_pause_leave_end_and_reveal_read_as_the_facts_every_format_shares(name):
    rows = recorded(name)
    old = {type_ for type_, _ in rows if type_ in RENAMED}
    assert {"arena.PlayerPaused", "arena.ArenaEnded", "arena.SeedRevealed"} <= old  # the logs hold the old tags
    shared = {type(C.decode_event(type_, data)) for type_, data in rows if type_ in RENAMED}
    assert shared <= {PlayerPaused, PlayerWithdrew, TournamentEnded, SeedRevealed}
    assert C.decode_event("arena.PlayerLeft", {"player_id": "p"}) == PlayerWithdrew(player_id="p")


def test_a_new_arena_writes_the_shared_facts_under_their_one_tag():
    rows = recorded("arena")
    assert [type_ for type_, _ in rows[-3:]] == ["arena.GameScored", "arena.ArenaEnded", "arena.SeedRevealed"]
    before = C.fold([C.decode_event(type_, data) for type_, data in rows[:-3]])  # the last game still running
    ending = C.decide(before, None, A.RecordResult(game_id=rows[-3][1]["game_id"], outcome=None))
    assert [C.event_type(e) for e in ending[-2:]] == ["tournament.TournamentEnded", "tournament.SeedRevealed"]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_changed_recorded_log_does_not_verify(name):
    rows = recorded(name)
    ended = next(i for i, (type_, _) in enumerate(rows) if type_.endswith("Ended"))
    type_, data = rows[ended]
    rows[ended] = (type_, {**data, "standings": list(reversed(data["standings"]))})
    report = C.verify([C.decode_event(t, d) for t, d in rows])
    assert not report.ok
