"""Logs recorded before the one competition model (issue 44) still decode, fold and verify.

`logs/*.json` were written by the code of main 6ab2b7d, before the arena became a format of the
tournament: one finished log of every format (Swiss at two and four seats with the organiser's tools,
round robin, single elimination, duplicate, arena at two and four seats), each event as the store keeps
it (`type`, `data`). Replaying them proves that the event names and fields a stored stream holds are
still read, and that the audit still re-derives every decision they record.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import domain.arena as A
import domain.tournament as T

LOGS = Path(__file__).parent / "logs"
FORMATS = {"swiss": T, "swiss_four_seats": T, "round_robin": T, "single_elimination": T, "duplicate": T,
           "arena": A, "arena_four_seats": A}


def recorded(name: str) -> list[tuple[str, dict]]:
    return [(e["type"], e["data"]) for e in json.loads((LOGS / f"{name}.json").read_text())["events"]]


def test_every_format_has_a_recorded_log():
    assert {p.stem for p in LOGS.glob("*.json")} == set(FORMATS)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_log_recorded_before_the_change_folds_and_verifies(name):
    model = FORMATS[name]
    events = [model.decode_event(type_, data) for type_, data in recorded(name)]
    report = model.verify(events)
    assert report.ok, report.problems
    assert report.finished
    state = model.fold(events)
    assert state.version == len(events)
    assert [model.event_type(e) for e in events] == [type_ for type_, _ in recorded(name)]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_changed_recorded_log_does_not_verify(name):
    model = FORMATS[name]
    rows = recorded(name)
    ended = next(i for i, (type_, _) in enumerate(rows) if type_.endswith("Ended"))
    type_, data = rows[ended]
    rows[ended] = (type_, {**data, "standings": list(reversed(data["standings"]))})
    report = model.verify([model.decode_event(t, d) for t, d in rows])
    assert not report.ok
