"""Rebuild a read model from zero: replay the whole log into a shadow schema, then swap it in.

The replay runs beside the live projector. The swap is one transaction under
the projection's batch lock (so no live batch interleaves): it projects what
arrived meanwhile into the shadow tables, replaces the live tables with them
and sets the checkpoint to where the replay stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec

from projections.base import Analyzer, Projection, ensure_tables, lock_key
from projections.log import Cursor, read_after, save_checkpoint

Progress = Callable[[int, int], None]


class Rebuilt(msgspec.Struct, kw_only=True):
    name: str
    schema: str
    events: int
    seconds: float
    swapped: bool


def shadow_schema(name: str) -> str:
    return f"stela_rebuild_{name}"


async def _replay(conn: Any, projection: Projection, schema: str, after: Cursor, size: int,
                  on_batch: Callable[[int], None]) -> Cursor:
    """Project every visible event after `after` into `schema`, one short transaction per batch.

    Short transactions matter: a long one would hold back the snapshot horizon
    that every reader of the log (the live projector included) waits behind.
    """
    analyzer = Analyzer()
    while True:
        async with conn.transaction():
            await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")  # see runner.py
            events = await read_after(conn, after, size)
            if events:
                await projection.apply(conn, schema, events)
        if not events:
            return after
        after = events[-1].cursor
        on_batch(len(events))
        await analyzer.after(conn, projection, schema, len(events))


async def rebuild(conn: Any, projection: Projection, *, swap: bool = True, batch_size: int = 5000,
                  progress: Progress | None = None) -> Rebuilt:
    """Replay the log into `stela_rebuild_<name>`; with `swap`, make it live along with its checkpoint."""
    started = time.perf_counter()
    schema = shadow_schema(projection.name)
    await ensure_tables(conn, [projection])
    await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    await conn.execute(f"CREATE SCHEMA {schema}")
    for statement in projection.ddl(schema):
        await conn.execute(statement)
    total = await conn.fetchval("SELECT count(*) FROM events")
    done = 0

    def advance(n: int) -> None:
        nonlocal done, total
        done += n
        total = max(total, done)
        if progress is not None:
            progress(done, total)

    after = await _replay(conn, projection, schema, (0, 0), batch_size, advance)
    if swap:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key("batch", projection.name))
            after = await _replay(conn, projection, schema, after, batch_size, advance)
            for table in projection.tables:
                await conn.execute(f"DROP TABLE IF EXISTS public.{table}")
                await conn.execute(f"ALTER TABLE {schema}.{table} SET SCHEMA public")
            await save_checkpoint(conn, projection.name, after)
            await conn.execute(f"DROP SCHEMA {schema}")
    return Rebuilt(name=projection.name, schema="public" if swap else schema, events=done,
                   seconds=time.perf_counter() - started, swapped=swap)
