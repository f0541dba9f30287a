"""The global event log and the projection checkpoints, read straight from PostgreSQL.

`read_after` applies the event store's ordering rule (see service/store/postgres.py
`read_all`): events in (tx, position) order, only below the oldest running
transaction, so a reader that advances its cursor never skips a late commit.
It lives here because projections must not import the service layer.
Only platform events (`table.*`) have their data decoded: a projection never
looks inside a game's own events.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

Cursor = tuple[int, int]  # (tx, position)
CHANNEL = "stela_events"

_decode = msgspec.json.Decoder(dict[str, Any])
_READ = """SELECT tx, position, stream_id, version, type,
                  CASE WHEN type LIKE 'table.%' THEN data::text END, metadata::text, at
           FROM events
           WHERE (tx, position) > ($1, $2) AND tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
           ORDER BY tx, position LIMIT $3"""


class LogEvent(msgspec.Struct, frozen=True):
    tx: int
    position: int
    stream_id: str
    version: int
    type: str
    data: dict[str, Any]
    metadata: dict[str, Any]
    at: datetime

    @property
    def cursor(self) -> Cursor:
        return (self.tx, self.position)


async def read_after(conn: Any, after: Cursor, limit: int) -> list[LogEvent]:
    """Up to `limit` events after `after` that no later commit can precede."""
    rows = await conn.fetch(_READ, after[0], after[1], limit)
    return [LogEvent(r[0], r[1], r[2], r[3], r[4], _decode.decode(r[5]) if r[5] else {}, _decode.decode(r[6]), r[7])
            for r in rows]


CHECKPOINT_DDL = """CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name        text        PRIMARY KEY,
    tx          bigint      NOT NULL,
    position    bigint      NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now())"""


async def load_checkpoint(conn: Any, name: str) -> Cursor:
    row = await conn.fetchrow("SELECT tx, position FROM projection_checkpoints WHERE name = $1", name)
    return (row[0], row[1]) if row else (0, 0)


async def save_checkpoint(conn: Any, name: str, cursor: Cursor) -> None:
    await conn.execute(
        """INSERT INTO projection_checkpoints (name, tx, position) VALUES ($1, $2, $3)
           ON CONFLICT (name) DO UPDATE SET tx = excluded.tx, position = excluded.position, updated_at = now()""",
        name, cursor[0], cursor[1])
