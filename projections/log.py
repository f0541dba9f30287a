"""The global event log and the projection checkpoints, read straight from PostgreSQL.

Ordering rule (normative; the event store's global read uses `read_after` too).
Every event row records `tx`, the id of the transaction that appended it
(`pg_current_xact_id()`). The log is read in (tx, position) order, and only
below a *horizon* H computed from the reading statement's own snapshot S
(`pg_current_snapshot()`, the snapshot that also decides which rows it sees):

    H = least(xmax(S), min{ x in xip(S) : x is not known to run in another database })

where "known to run in another database" means `pg_stat_activity` shows x as
the `backend_xid` of a backend connected to a different database. Why no
event is ever skipped: an event with tx < H was appended by a transaction X
that is below xmax(S) and not in xip(S) (X wrote to this database's `events`,
so it can never be proven foreign), hence X had finished before S was taken
and, if it committed, all its rows are visible to the read; a transaction
still running, or starting later, either is in xip(S) (so H <= its tx) or gets
an id >= xmax(S) >= H. The activity view is consulted only to *exclude*
transactions of other databases: if it is stale or hidden from this role, an
x merely stays in the minimum and the horizon is lower (slower, never wrong).
So an idle transaction in another database of the same server no longer
holds back every reader, while one in this database that holds an xid still
does (it may yet commit events below the rest); `blocker` names it.
Only platform events (`table.*`) have their data decoded, into the structs of
`domain.table`: a projection never looks inside a game's own events.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import msgspec

from domain.table import TABLE_EVENTS, TableEvent

Cursor = tuple[int, int]  # (tx, position)
CHANNEL = "stela_events"

_decode = msgspec.json.Decoder(dict[str, Any])
_table = msgspec.json.Decoder(TableEvent)
_TABLE_TAGS = frozenset(t.__struct_config__.tag for t in TABLE_EVENTS)

# The horizon H of the module docstring, as a bigint, for the statement's own snapshot.
HORIZON = """least(pg_snapshot_xmax(pg_current_snapshot()),
                   (SELECT min(x) FROM pg_snapshot_xip(pg_current_snapshot()) AS x
                    WHERE NOT EXISTS (SELECT 1 FROM pg_stat_get_activity(NULL) AS a
                                      WHERE a.backend_xid = x::xid AND a.datid IS DISTINCT FROM
                                            (SELECT oid FROM pg_database WHERE datname = current_database()))
                   ))::text::bigint"""
_READ = f"""SELECT tx, position, stream_id, version, type,
                   CASE WHEN type LIKE 'table.%' THEN data::text END, metadata::text, at
            FROM events
            WHERE (tx, position) > ($1, $2) AND tx < ({HORIZON})
            ORDER BY tx, position LIMIT $3"""


class LogEvent(msgspec.Struct, frozen=True):
    """An event of the global log. Its data and metadata stay JSON text until read (`data`, `metadata`):
    most readers look only at the platform event (`table`), so most of them are never decoded."""

    tx: int
    position: int
    stream_id: str
    version: int
    type: str
    data_json: str | None  # a game's own event's data is not read from the store (None)
    metadata_json: str
    at: datetime
    table: TableEvent | None = None  # the platform event decoded, for `table.*` types this reader knows

    @property
    def cursor(self) -> Cursor:
        return (self.tx, self.position)

    @property
    def data(self) -> dict[str, Any]:
        """A platform event's data as a dict (empty for a game's own event: projections never look inside)."""
        return _decode.decode(self.data_json) if self.data_json else {}

    @property
    def metadata(self) -> dict[str, Any]:
        return _decode.decode(self.metadata_json)


class UndecodableEvent(Exception):
    """A stored platform event this code cannot decode. Its readers stop at it rather than skip it (a model
    that skipped a seat or an ending would be wrong from then on), and the error names it."""

    def __init__(self, position: int, stream_id: str, type_: str, reason: str) -> None:
        super().__init__(f"event {position} ({type_} of {stream_id}) cannot be decoded: {reason}")
        self.position, self.stream_id, self.type, self.reason = position, stream_id, type_, reason


def decode_table(type_: str, data: str) -> TableEvent | None:
    """The `domain.table` struct of a stored platform event (None for a tag this code does not know)."""
    if type_ not in _TABLE_TAGS:
        return None
    inner = data.strip()[1:-1].strip()
    return _table.decode(f'{{"type":"{type_}"{"," + inner if inner else ""}}}')


async def read_after(conn: Any, after: Cursor, limit: int) -> list[LogEvent]:
    """Up to `limit` events after `after`, in (tx, position) order, that no later commit can precede."""
    return _events(await conn.fetch(_READ, after[0], after[1], limit), 0)


def _events(rows: list[Any], at: int) -> list[LogEvent]:
    """The events of `rows` whose columns start at index `at` (tx, position, stream, version, type, data,
    metadata, time); a platform event this code cannot decode raises `UndecodableEvent`, naming it."""
    try:
        return [LogEvent(*r[at:at + 8], decode_table(r[at + 4], r[at + 5]) if r[at + 5] else None) for r in rows]
    except msgspec.DecodeError:
        for r in rows:
            try:
                decode_table(r[at + 4], r[at + 5]) if r[at + 5] else None
            except msgspec.DecodeError as exc:
                raise UndecodableEvent(r[at + 1], r[at + 2], r[at + 4], str(exc)) from exc
        raise


class LogBatch(list[LogEvent]):
    """Events read by a typed reader (`read_types`), and `upto`: the cursor a follower may move its checkpoint
    to (past the events of other types it never read), or None when nothing new is below the horizon."""

    upto: Cursor | None = None


def reached(events: list[LogEvent]) -> Cursor | None:
    """Where a follower's checkpoint moves after reading `events`: a typed read's `upto` (past the events it
    skipped), else the last event's cursor; None: it stays."""
    upto = getattr(events, "upto", None)
    return upto if upto is not None else (events[-1].cursor if events else None)


_TYPE = re.compile(r"^[a-z]+\.[A-Za-z]+$")


def _typed_read(types: tuple[str, ...]) -> str:
    """The statement of `read_types`: the newest event below the horizon (one probe of `events_tx_position`)
    and, after the cursor, up to $3 events of `types` below it. The types are literals, so the planner can
    prove a partial index on them usable (migrations 006, the clock and ending events, and 010, the endings)."""
    if not types or not all(_TYPE.match(t) for t in types):
        raise ValueError(f"event types {types!r}")
    listed = ", ".join(f"'{t}'" for t in types)
    return f"""WITH h AS MATERIALIZED (SELECT {HORIZON} AS horizon),
       head AS MATERIALIZED (SELECT e.tx, e.position FROM events e WHERE e.tx < (SELECT horizon FROM h)
                             ORDER BY e.tx DESC, e.position DESC LIMIT 1)
  SELECT head.tx, head.position, m.* FROM head LEFT JOIN LATERAL (
      SELECT tx, position, stream_id, version, type, data::text, metadata::text, at FROM events
      WHERE (tx, position) > ($1, $2) AND tx < (SELECT horizon FROM h) AND type IN ({listed})
      ORDER BY tx, position LIMIT $3) AS m ON true
  ORDER BY m.tx, m.position"""


def read_types(types: tuple[str, ...]) -> Callable[[Any, Cursor, int], Awaitable[LogBatch]]:
    """A reader like `read_after` for a follower that handles only platform events of `types` (such as the
    result runners, which look only at endings): it reads those, under the same ordering rule, and its
    batch's `upto` lets the follower's checkpoint pass every other event below the horizon, so neither
    PostgreSQL nor this process reads, sends or decodes them."""
    statement = _typed_read(types)

    async def read(conn: Any, after: Cursor, limit: int) -> LogBatch:
        rows = await conn.fetch(statement, after[0], after[1], limit)
        batch = LogBatch(_events([r for r in rows if r[2] is not None], 2))
        if len(batch) == limit:
            batch.upto = batch[-1].cursor
        elif rows and (rows[0][0], rows[0][1]) > after:
            batch.upto = (rows[0][0], rows[0][1])
        return batch

    return read


class Blocker(msgspec.Struct, frozen=True, kw_only=True):
    """The backend of this database whose open transaction holds the horizon back."""

    xid: int
    pid: int | None
    seconds: float | None
    state: str | None
    application_name: str | None


_BLOCKER = f"""WITH h AS (SELECT {HORIZON} AS horizon, pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax)
               SELECT h.horizon, a.pid, extract(epoch FROM now() - a.xact_start)::float8, a.state,
                      a.application_name
               FROM h LEFT JOIN pg_stat_activity a
                 ON a.backend_xid::text::bigint = h.horizon % 4294967296 AND a.datname = current_database()
               WHERE h.horizon < h.xmax"""


async def blocker(conn: Any) -> Blocker | None:
    """Who holds the horizon below the newest transaction now, if anyone (pid None: not a live session)."""
    row = await conn.fetchrow(_BLOCKER)
    return Blocker(xid=row[0], pid=row[1], seconds=row[2], state=row[3], application_name=row[4]) if row else None


CHECKPOINT_DDL = """CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name        text        PRIMARY KEY,
    tx          bigint      NOT NULL,
    position    bigint      NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now())"""


async def load_checkpoint(conn: Any, name: str) -> Cursor:
    row = await conn.fetchrow("SELECT tx, position FROM projection_checkpoints WHERE name = $1", name)
    return (row[0], row[1]) if row else (0, 0)


async def load_checkpoints(conn: Any, names: list[str]) -> dict[str, Cursor]:
    """The checkpoints of `names` in one query ((0, 0) for a model that has none yet)."""
    rows = await conn.fetch("SELECT n.name, c.tx, c.position FROM unnest($1::text[]) AS n(name) "
                            "LEFT JOIN projection_checkpoints c ON c.name = n.name", names)
    return {r[0]: (r[1], r[2]) if r[1] is not None else (0, 0) for r in rows}


_SAVE = """INSERT INTO projection_checkpoints (name, tx, position)
           SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])
           ON CONFLICT (name) DO UPDATE SET tx = excluded.tx, position = excluded.position, updated_at = now()"""


async def save_checkpoint(conn: Any, name: str, cursor: Cursor) -> None:
    await save_checkpoints(conn, {name: cursor})


async def save_checkpoints(conn: Any, cursors: dict[str, Cursor]) -> None:
    """Move several checkpoints in one statement."""
    await conn.execute(_SAVE, list(cursors), [c[0] for c in cursors.values()], [c[1] for c in cursors.values()])
