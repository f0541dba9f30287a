"""Deadlines: one row per (game, seat) that must act before a clock deadline, for the timeout worker.

Maintained from the platform's clock events only: each `table.ClockSet` replaces
the game's rows with the seats it gives a deadline (`due_ms`, milliseconds since
the epoch), and `table.GameEnded` / `table.GameAborted` remove them. `version` is
the stream version of the `ClockSet` a row comes from, so the worker can tell a
row from a clock that has since moved on. `TimedOut` changes no deadline by
itself: the same batch carries the next `ClockSet` or the end.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.clock import ClockSet
from domain.table import GameAborted, GameEnded
from projections.log import LogEvent

TABLE = "rm_deadlines"


class Deadline(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    due_ms: int
    version: int


def rows_after(current: list[Deadline] | None, event: LogEvent) -> list[Deadline] | None:
    """A game's deadline rows after `event` (None: untouched by it)."""
    table = event.table
    if isinstance(table, ClockSet):
        return [Deadline(event.stream_id, seat, due, event.version)
                for seat, due in enumerate(table.deadlines_ms) if due is not None]
    if isinstance(table, (GameEnded, GameAborted)):
        return []
    return current


def touched(events: list[LogEvent]) -> dict[str, list[Deadline]]:
    """The deadline rows of every game `events` change (each replaces that game's rows): the one fold of this
    model, for the PostgreSQL table and the memory store alike."""
    out: dict[str, list[Deadline]] = {}
    for event in events:
        after = rows_after(out.get(event.stream_id), event)
        if after is not None:
            out[event.stream_id] = after
    return out


def due(rows: dict[str, list[Deadline]], at_ms: int, limit: int) -> list[Deadline]:
    """The first `limit` rows due by `at_ms`, the earliest first (as the PostgreSQL store selects them)."""
    return sorted((r for rs in rows.values() for r in rs if r.due_ms <= at_ms), key=lambda r: r.due_ms)[:limit]


class Deadlines:
    name = "deadlines"
    tables = (TABLE,)

    def ddl(self, schema: str) -> list[str]:
        t = f"{schema}.{TABLE}"
        return [f"""CREATE TABLE IF NOT EXISTS {t} (
                    game_id text NOT NULL, seat integer NOT NULL, due_ms bigint NOT NULL,
                    version integer NOT NULL, PRIMARY KEY (game_id, seat))""",
                f"CREATE INDEX IF NOT EXISTS rm_deadlines_due ON {t} (due_ms)"]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        changed = touched(events)
        if not changed:
            return
        table = f"{schema}.{TABLE}"
        await conn.execute(f"DELETE FROM {table} WHERE game_id = ANY($1::text[])", list(changed))
        rows = [msgspec.structs.astuple(r) for rs in changed.values() for r in rs]
        if rows:
            await conn.executemany(f"INSERT INTO {table} (game_id, seat, due_ms, version) VALUES ($1, $2, $3, $4)",
                                   rows)
