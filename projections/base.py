"""What every read model provides, and the generic row plumbing they share.

A projection folds a batch of events over the rows the batch touches: it loads
those rows (`load`), folds the events in Python, and writes the changed rows
back with one pipelined upsert (`upsert`). The runner calls `apply` inside the
transaction that also moves the checkpoint, so each event counts exactly once.
Table names are qualified by a schema so a rebuild can fill a shadow copy.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeVar

import msgspec

from projections.log import CHECKPOINT_DDL, LogEvent

R = TypeVar("R", bound=msgspec.Struct)
_DDL_LOCK = 7_114_101


class Projection(Protocol):
    name: str
    tables: tuple[str, ...]

    def ddl(self, schema: str) -> list[str]:
        """CREATE TABLE/INDEX IF NOT EXISTS statements for this model's tables in `schema`."""
        ...

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        """Fold `events` (in log order) into the tables of `schema`; called inside a transaction."""
        ...


@functools.cache
def lock_key(purpose: str, name: str) -> int:
    """A stable 64-bit advisory lock key for one projection and purpose ("leader" or "batch")."""
    return int.from_bytes(hashlib.sha256(f"stela.projection.{purpose}.{name}".encode()).digest()[:8], "big",
                          signed=True)


async def ensure_tables(conn: Any, projections: Iterable[Projection], schema: str = "public") -> None:
    """Create the checkpoint table and the models' tables if missing (serialised across processes)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _DDL_LOCK)
        await conn.execute(CHECKPOINT_DDL)
        for projection in projections:
            for statement in projection.ddl(schema):
                await conn.execute(statement)


def columns(row_type: type[msgspec.Struct]) -> tuple[str, ...]:
    return row_type.__struct_fields__


async def load(conn: Any, table: str, row_type: type[R], where: str, *args: Any) -> list[R]:
    """Rows of `table` matching `where`, as `row_type` (its fields are the column names, in order)."""
    rows = await conn.fetch(f"SELECT {', '.join(columns(row_type))} FROM {table} WHERE {where}", *args)
    return [row_type(**r) for r in rows]


async def upsert(conn: Any, table: str, key: Sequence[str], rows: Iterable[msgspec.Struct]) -> None:
    """Insert or overwrite `rows` (all of one Struct type whose fields are the columns) keyed by `key`."""
    rows = list(rows)
    if not rows:
        return
    cols = columns(type(rows[0]))
    sets = ", ".join(f"{c} = excluded.{c}" for c in cols if c not in key)
    sql = (f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join(f'${i + 1}' for i in range(len(cols)))}) "
           f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {sets}")
    await conn.executemany(sql, [msgspec.structs.astuple(r) for r in rows])


class Analyzer:
    """Keep a model's tables fit while a catch-up fills them.

    ANALYZE after 1,000 events, then each time the count doubles (at most every
    50,000 events): statistics gathered while the tables were empty make the
    planner read a batch's rows by sequential scan (`= ANY(ids)` looks like half
    the table), a cost that grows with the log; autovacuum corrects them only much later.

    Every `vacuum_every` events, VACUUM each table whose dead rows exceed a fifth of
    its live ones (autovacuum's own rule, applied in step with the catch-up rather
    than once a minute): the tables of open games, whose rows are deleted as games
    end, and rows updated in place would otherwise be read among ever more dead
    versions. Each VACUUM costs about the rows it finds dead, so its share per event
    does not grow with the log.
    """

    def __init__(self, first: int = 1_000, most: int = 50_000, vacuum_every: int = 10_000) -> None:
        self.most = most
        self.first = first
        self.vacuum_every = vacuum_every
        self.due: dict[str, int] = {}
        self.vacuum_due: dict[str, int] = {}
        self.done: dict[str, int] = {}

    async def after(self, conn: Any, projection: Projection, schema: str, events: int) -> None:
        """Count `events` just projected into `schema`; ANALYZE and VACUUM the model's tables when due.
        Call it outside a transaction (VACUUM cannot run in one)."""
        done = self.done[projection.name] = self.done.get(projection.name, 0) + events
        due = self.due.setdefault(projection.name, self.first)
        if done >= due:
            self.due[projection.name] = done + min(done, self.most)
            for table in projection.tables:
                await conn.execute(f"ANALYZE {schema}.{table}")
        if done >= self.vacuum_due.setdefault(projection.name, self.vacuum_every):
            self.vacuum_due[projection.name] = done + self.vacuum_every
            if conn.get_server_version() >= (15, 0):  # this session's own counts, shared now rather than in 1 s
                await conn.execute("SELECT pg_stat_force_next_flush()")
            for table in projection.tables:
                dead = await conn.fetchval(_DEAD, f"{schema}.{table}")
                if dead:
                    await conn.execute(f"VACUUM {schema}.{table}")


# whether a table's dead rows exceed a fifth of its live ones
_DEAD = """SELECT n_dead_tup > 50 + n_live_tup / 5 FROM pg_stat_user_tables WHERE relid = to_regclass($1)"""


async def delete(conn: Any, table: str, key: str, values: Iterable[Any]) -> None:
    values = list(values)
    if values:
        await conn.execute(f"DELETE FROM {table} WHERE {key} = ANY($1::text[])", values)
