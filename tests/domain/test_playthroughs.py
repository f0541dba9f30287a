"""Every kind and option variant replays its golden playthrough exactly (tests/domain/playthrough.py).

The same commands from the same seed must produce the same events, the same listings for every seat at
every position, the same views and redacted events for every seat and the spectator, and the same end.
These run in `make check` in seconds; the random-play listing-equivalence runs (slow) still compare the
fast listings with their definitions over many more positions.
"""

from __future__ import annotations

import msgspec
import pytest

from domain.catalog import GAMES
from domain.simulate import start_table
from domain.table import Table
from tests.domain.playthrough import HERE, cases, path_of, step_line, views

CASES = list(cases())


def first_difference(recorded: dict, replayed: dict) -> str:
    keys = [k for k in recorded if recorded.get(k) != replayed.get(k)]
    return ", ".join(f"{k}: recorded {recorded.get(k)!r:.300} replayed {replayed.get(k)!r:.300}" for k in keys)


@pytest.mark.parametrize(("stem", "kind", "options", "seats"), CASES, ids=[c[0] for c in CASES])
def test_the_golden_playthrough_replays_exactly(stem, kind, options, seats):
    lines = [msgspec.json.decode(line) for line in path_of(stem).read_bytes().splitlines()]
    head, steps, end = lines[0], lines[1:-1], lines[-1]
    assert (head["kind"], head["options"], head["seats"]) == (kind, options, seats), "regenerate the playthroughs"
    table = Table(GAMES[kind])
    state, _ = start_table(table, options, seats, head["seed"].encode())
    assert views(table, state) == head["views"], f"{stem}: the views at the start"
    for n, recorded in enumerate(steps, start=1):
        command = table.decode_command(recorded["command"])
        new = table.play(state, recorded["seat"], command)
        after = table.fold(new, state)
        replayed = step_line(table, after, recorded["seat"], command, state, new)
        assert replayed == recorded, f"{stem} line {n + 1}: {first_difference(recorded, replayed)}"
        state = after
    assert {"status": state.status, "outcome": msgspec.json.decode(msgspec.json.encode(state.outcome)),
            "views": views(table, state)} == end, f"{stem}: the end"
    assert state.status == "finished", f"{stem}: the recorded game did not finish"


def test_every_variant_has_its_playthrough_and_no_file_is_stale():
    assert sorted(p.stem for p in HERE.glob("*.jsonl")) == sorted(c[0] for c in CASES)
