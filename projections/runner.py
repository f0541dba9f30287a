"""The projector: feeds each read model from its checkpoint, exactly once, with one leader per model.

One dedicated connection per projector process holds a session-level advisory
lock per projection it leads (others are retried every `poll` seconds, so a
standby takes over within about a second of the leader's death). Each batch is
one transaction: the per-projection batch lock (which a rebuild's swap also
takes), the checkpoint read afresh, the events after it, the model's update and
the new checkpoint, so a crash anywhere leaves either all of it or none.
The loop wakes on `LISTEN stela_events`, on `wake()` (the fan-out announcing an append),
and polls as a fallback.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import asyncpg
import structlog

from projections.base import Projection, ensure_tables, lock_key
from projections.catalog import select
from projections.log import CHANNEL, load_checkpoint, read_after, save_checkpoint

log = structlog.get_logger("stela.projector")

_LAG = """SELECT n.name, l.events, l.seconds
          FROM unnest($1::text[]) AS n(name)
          LEFT JOIN projection_checkpoints c ON c.name = n.name
          CROSS JOIN LATERAL (
              SELECT count(*) AS events,
                     coalesce(extract(epoch FROM now() - min(e.at)), 0)::float8 AS seconds
              FROM events e WHERE (e.tx, e.position) > (coalesce(c.tx, 0), coalesce(c.position, 0))) l"""


async def batch(conn: Any, projection: Projection, size: int) -> int:
    """Project the next batch of at most `size` events in one transaction; returns how many."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key("batch", projection.name))
        events = await read_after(conn, await load_checkpoint(conn, projection.name), size)
        if events:
            await projection.apply(conn, "public", events)
            await save_checkpoint(conn, projection.name, events[-1].cursor)
    return len(events)


async def lag(pool: Any, names: list[str]) -> dict[str, dict[str, float]]:
    """Per projection: events after its checkpoint and the age in seconds of the oldest of them."""
    try:
        rows = await pool.fetch(_LAG, names)
    except asyncpg.UndefinedTableError:  # no projector has run yet: everything is behind
        rows = await pool.fetch(_LAG.replace("projection_checkpoints", "(SELECT '' AS name, 0 AS tx, 0 AS position)"),
                                names)
    return {r[0]: {"events": int(r[1]), "seconds": float(r[2])} for r in rows}


async def _hand_back(conn: Any, listener: Any) -> None:
    """Drop the LISTEN and the leader locks before `conn` returns to the pool (which does not reset it).

    If that cannot be done cleanly (a query was cut off, the link is gone), the
    connection is terminated: its session ends and PostgreSQL frees the locks.
    """
    try:
        if conn.is_closed() or conn.is_in_transaction():
            raise ConnectionError("connection not reusable")
        await asyncio.wait_for(conn.remove_listener(CHANNEL, listener), 2)
        await asyncio.wait_for(conn.execute("SELECT pg_advisory_unlock_all()"), 2)
    except Exception:  # noqa: BLE001 - any doubt: end the session
        conn.terminate()


class Projector:
    """Runs `projections` on a connection held from `pool`; `start()`/`stop()` from a lifespan or CLI."""

    def __init__(self, pool: Any, projections: list[Projection] | None = None, batch_size: int = 500,
                 poll: float = 1.0) -> None:
        self.pool = pool
        self.projections = projections if projections is not None else select(None)
        self.batch_size = batch_size
        self.poll = poll
        self.leading: set[str] = set()
        self.projected = 0
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._stopping = False

    def wake(self, *_: Any) -> None:
        """Look at the log now (called on NOTIFY, or by the fan-out when an append is announced)."""
        self._wake.set()

    async def lag(self) -> dict[str, dict[str, float]]:
        return await lag(self.pool, [p.name for p in self.projections])

    async def start(self) -> None:
        async with self.pool.acquire() as conn:
            await ensure_tables(conn, self.projections)
        self._task = asyncio.create_task(self.run(), name="projector")

    async def stop(self) -> None:
        """Stop within seconds, even if a cancellation is swallowed by an inner timeout (a 3.11 race)."""
        if self._task is not None:
            self._stopping = True
            self._wake.set()
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(self._task, 10)
            self._task = None

    async def run(self) -> None:
        """Lead and project until stopped; reconnects after any failure."""
        while not self._stopping:
            try:
                async with self.pool.acquire() as conn:
                    await self._serve(conn)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a lost connection or a failed batch: back off and retry
                log.exception("projector_failed")
                self.leading.clear()
                await asyncio.sleep(self.poll)

    async def _serve(self, conn: Any) -> None:
        wake = self._wake
        notified = self.wake
        await conn.add_listener(CHANNEL, notified)
        claimed_at = 0.0
        try:
            while not self._stopping:
                if len(self.leading) < len(self.projections) and time.monotonic() - claimed_at >= self.poll:
                    await self._claim(conn)
                    claimed_at = time.monotonic()
                wake.clear()
                busy = False
                for projection in self.projections:
                    if projection.name in self.leading:
                        done = await batch(conn, projection, self.batch_size)
                        self.projected += done
                        busy |= done >= self.batch_size
                if not busy:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(wake.wait(), self.poll)
        finally:
            self.leading.clear()
            await _hand_back(conn, notified)

    async def _claim(self, conn: Any) -> None:
        for projection in self.projections:
            if projection.name not in self.leading and await conn.fetchval(
                    "SELECT pg_try_advisory_lock($1)", lock_key("leader", projection.name)):
                self.leading.add(projection.name)
                log.info("projection_leader", projection=projection.name)
