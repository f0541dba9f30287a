"""Golden playthroughs: one seeded game per kind and option variant, written out and replayed exactly.

Each file in `playthroughs/` is JSON Lines: a header (kind, options, seats, seed, and every seat's view and
the spectator's at the start), then one line per command (who played it, the command, the events it
produced, how many commands each seat was offered and a digest of those listings, a digest of every seat's
and the spectator's view and redacted events), then the end (the outcome and every view in full). The
replay in test_playthroughs.py plays the same commands from the same seed and must meet the file line for
line, so a change to any rule, listing, view or redaction of any kind shows as a failing test and, once
regenerated, as a reviewable diff of these files. The commands are the bot's choices when the file was
written (`Rng(seed + b"/golden")`, the kind's own bot weights), so a replay never depends on the bot.

    .venv/bin/python -m tests.domain.playthrough    # rewrite every file after a deliberate rule change
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from domain.catalog import GAMES
from domain.kernel import Rng
from domain.simulate import pick, start_table
from domain.table import Table, TableState

HERE = Path(__file__).parent / "playthroughs"
MAX_COMMANDS = 3000  # every kind ends well before this; a file that reaches it says so


def _plain(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


def _digest(value: Any) -> str:
    return hashlib.sha256(msgspec.json.encode(value)).hexdigest()[:16]


def views(table: Table, state: TableState) -> dict[str, Any]:
    """Every seat's view and the spectator's, keyed "0", "1", ... and "spectator"."""
    return {str(s) if s is not None else "spectator": _plain(table.view(state, s))
            for s in [*range(state.seat_count), None]}


def step_line(table: Table, state: TableState, seat: int, command: Any, before: TableState,
              new: list[Any]) -> dict[str, Any]:
    """What one command's line records: the command, its events, what `before` listed, what `state` shows."""
    listings = [_plain(table.legal(before, s)) for s in range(before.seat_count)]
    shown = {"views": views(table, state),
             "events": {str(s): [_plain(table.redact(e, s, public=False)) for e in new]
                        for s in [*range(state.seat_count), None]}}
    return {"seat": seat, "command": _plain(command), "events": [_plain(e) for e in new],
            "listed": [len(listing) for listing in listings], "legal": _digest(listings), "shown": _digest(shown)}


def cases() -> Iterator[tuple[str, str, dict[str, Any], int]]:
    """(file stem, kind, options, seats): each kind's default and each option's other values (those
    `option_variants` gives the random-play harness), seat counts taking turns across the variants."""
    from tests.domain.test_games import option_variants, playable_seats

    for kind in sorted(GAMES):
        for n, options in enumerate(option_variants(GAMES[kind])):
            seats = playable_seats(GAMES[kind], options)
            label = "-".join(f"{k}={v}" for k, v in options.items()) or "default"
            yield f"{kind}-{label}", kind, options, seats[n % len(seats)]


def play(kind: str, options: dict[str, Any], seats: int, seed: bytes) -> list[dict[str, Any]]:
    """The lines of one seeded game played by the kind's bot."""
    table = Table(GAMES[kind])
    state, _ = start_table(table, options, seats, seed)
    lines: list[dict[str, Any]] = [{"kind": kind, "options": options, "seats": seats, "seed": seed.decode(),
                                    "views": views(table, state)}]
    bot, weigh = Rng(seed + b"/golden", 0), GAMES[kind].bot_weights
    while state.status == "active" and len(lines) <= MAX_COMMANDS:
        seat = bot.choice(table.to_act(state))
        legal = table.legal(state, seat)
        command = pick(bot, legal, weigh(state.game, seat, legal) if weigh else None)
        new = table.play(state, seat, command)
        after = table.fold(new, state)
        lines.append(step_line(table, after, seat, command, state, new))
        state = after
    lines.append({"status": state.status, "outcome": _plain(state.outcome), "views": views(table, state)})
    return lines


def path_of(stem: str) -> Path:
    return HERE / f"{stem}.jsonl"


def write_all() -> None:
    """Regenerate every playthrough file (and remove files of variants that no longer exist)."""
    HERE.mkdir(exist_ok=True)
    stems = set()
    for stem, kind, options, seats in cases():
        stems.add(stem)
        lines = play(kind, options, seats, f"golden/{stem}".encode())
        path_of(stem).write_bytes(b"".join(msgspec.json.encode(line) + b"\n" for line in lines))
        print(f"{path_of(stem).relative_to(HERE.parent)}: {len(lines) - 2} commands")
    for stale in HERE.glob("*.jsonl"):
        if stale.stem not in stems:
            stale.unlink()


if __name__ == "__main__":
    write_all()
