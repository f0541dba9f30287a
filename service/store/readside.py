"""The PostgreSQL store's read side: what projectors, read models and log followers need of the
database, so that nothing outside `service.store` holds a pool or a connection.

`ReadSide` is mixed into `PostgresStore` (the in-memory store keeps no read models): it builds
the projector and the read-model queries on the store's pool, reports projection lag, rebuilds a
projection, runs a checkpointed log follower's batch, and fires due clock deadlines.

The service's projectors (the embedded one and `stela projector`) linger `LINGER` seconds (0.5)
after a look that found events, not the runner's 50 ms: under a steady stream of appends each
model then commits one batch per half second, and a batch writes a game's rows once for all of
its events since the last (most of a batch's cost is per game, not per event). Measured on
16 real games posting (2026-11-29, load 12-14 from other work, four alternating rounds): the
shipped defaults' server CPU per command 1.82 ms at 50 ms, 1.45 ms at 0.5 s, 1.51 ms at 1 s,
the settings without a projector 1.46 ms. The first event after a quiet spell is still projected
at once; under load a read model is at most about `LINGER` plus the wake's delay behind.

Due deadlines are found without waiting for the global-order horizon: the `deadlines` read model
covers the log up to its checkpoint, and every clock event committed past it (an open transaction
anywhere in the database holds the checkpoint back, not these) is read directly: each game's
latest `ClockSet` or ending there replaces the model's rows of that game (`_DUE`). Such a row may
fire before the model has it; the worker's re-read of the game and the append's head check keep
each deadline fired once.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import asyncpg

from projections.base import Projection, ensure_tables, lock_key
from projections.deadlines import TABLE as DEADLINES, Deadline, Deadlines
from projections.log import (Blocker, LogEvent, blocker, load_checkpoint, reached, read_after, read_types,
                             save_checkpoint)
from projections.queries import ReadModels
from projections.ratings import player_rating
from projections.rebuild import Rebuilt, rebuild
from projections.runner import Projector, batch, lag


LINGER = 0.5  # seconds a projector of the service waits after a batch while appends keep coming
CLOCK_TYPES = ("table.ClockSet", "table.GameEnded", "table.GameAborted")  # all the deadlines model reads
_typed = functools.cache(read_types)  # a follower's reader of its types, one per set of types

# The rows due by $3: the read model's, except for games with a clock event past its checkpoint
# ($1, $2), whose latest one (a ClockSet's deadlines, or an ending: none) stands instead. The
# literal type list matches the partial index of migration 006.
_DUE = f"""
WITH fresh AS (
    SELECT DISTINCT ON (stream_id) stream_id, version, type, data FROM events
    WHERE (tx, position) > ($1, $2) AND type IN ({", ".join(f"'{t}'" for t in CLOCK_TYPES)})
    ORDER BY stream_id, version DESC
)
SELECT game_id, seat, due_ms, version FROM {DEADLINES} r
WHERE due_ms <= $3 AND NOT EXISTS (SELECT 1 FROM fresh WHERE fresh.stream_id = r.game_id)
UNION ALL
SELECT f.stream_id, (d.ord - 1)::int, (d.due)::text::bigint, f.version
FROM fresh f CROSS JOIN LATERAL jsonb_array_elements(f.data -> 'deadlines_ms') WITH ORDINALITY AS d(due, ord)
WHERE f.type = 'table.ClockSet' AND jsonb_typeof(d.due) = 'number' AND (d.due)::text::bigint <= $3
ORDER BY 3 LIMIT $4"""


class ReadSide:
    """The read-side queries of a store on `pool`."""

    pool: asyncpg.Pool

    def read_models(self) -> ReadModels:
        """The read-model queries (their tables ensured by `ReadModels.start`)."""
        return ReadModels(self.pool)

    def projector(self, projections: list[Projection] | None = None, **options: Any) -> Projector:
        """A projector of `projections` (default all) holding a connection of this store's pool, lingering
        `LINGER` seconds between batches under load unless `options` say otherwise."""
        return Projector(self.pool, projections, **{"linger": LINGER, **options})

    async def horizon_blocker(self) -> Blocker | None:
        """The session whose open transaction holds the global-order horizon back now, if any (`seconds`:
        how long it has been open); a question any replica can ask, projector or not."""
        async with self.pool.acquire() as conn:
            return await blocker(conn)

    async def projection_lag(self, names: list[str]) -> dict[str, dict[str, float]]:
        return await lag(self.pool, names)

    async def rebuild(self, projection: Projection, batch_size: int,
                      progress: Callable[[int, int | None], None]) -> Rebuilt:
        """Replay the whole log into fresh tables of `projection` and swap them in."""
        async with self.pool.acquire() as conn:
            return await rebuild(conn, projection, batch_size=batch_size, progress=progress)

    async def ensure_tables(self, projections: Iterable[Projection]) -> None:
        """The tables of `projections` and the checkpoint table, created if missing."""
        async with self.pool.acquire() as conn:
            await ensure_tables(conn, projections)

    async def follow(self, name: str, size: int, handle: Callable[[list[LogEvent]], Awaitable[None]],
                     types: tuple[str, ...] = ()) -> int:
        """One batch of the global log after follower `name`'s checkpoint, handed to `handle`, and the
        checkpoint moved past it, in one transaction; 0 (nothing read) while another process holds it.
        With `types`, only events of those types are read (`projections.log.read_types`), and the
        checkpoint passes the others."""
        async with self.pool.acquire() as conn, conn.transaction():
            if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1)", lock_key("batch", name)):
                return 0
            after = await load_checkpoint(conn, name)
            events = await (_typed(types) if types else read_after)(conn, after, size)
            await handle(events)
            upto = reached(events)
            if upto is not None:
                await save_checkpoint(conn, name, upto)
        return len(events)

    async def tournaments_of(self, game_ids: list[str]) -> dict[str, str]:
        """The tournament of each of `game_ids` that belongs to one."""
        try:
            rows = await self.pool.fetch(
                "SELECT game_id, tournament_id FROM tournament_games WHERE game_id = ANY($1::text[])", game_ids)
        except asyncpg.UndefinedTableError:
            return {}
        return {r[0]: r[1] for r in rows}

    async def arenas_of(self, game_ids: list[str]) -> dict[str, str]:
        """The arena of each of `game_ids` that belongs to one."""
        rows = await self.pool.fetch("SELECT game_id, arena_id FROM arena_games WHERE game_id = ANY($1::text[])",
                                     game_ids)
        return {r[0]: r[1] for r in rows}

    async def rating(self, kind: str, player_id: str) -> tuple[float, int] | None:
        """The player's (ordinal, rated games) of `kind` on the leaderboard; None before any rated game."""
        return await player_rating(self.pool, kind, player_id)

    async def fire_due(self, model: Deadlines, now: Callable[[], int], limit: int, key: Callable[[Deadline], int],
                       fire: Callable[[Deadline, int], Awaitable[int]]) -> int:
        """Bring the deadlines read model up to where the horizon allows, then `fire(row, now)` each row due
        by then (the model's and those past its checkpoint, `_DUE`) under a session advisory lock
        `key(row)` tried without waiting (a row locked elsewhere is skipped), and delete it from the
        model; how many `fire` reported."""
        async with self.pool.acquire() as conn:
            while await batch(conn, model, 1000, _typed(CLOCK_TYPES)) >= 1000:
                pass
            at = now()
            tx, position = await load_checkpoint(conn, model.name)
            due = [Deadline(*r) for r in await conn.fetch(_DUE, tx, position, at, limit)]
            fired = 0
            for row in due:
                lock = key(row)
                if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", lock):
                    continue  # another process is firing it
                try:
                    fired += await fire(row, at)
                    await conn.execute(f"DELETE FROM {DEADLINES} WHERE game_id = $1 AND seat = $2 AND version = $3",
                                       row.game_id, row.seat, row.version)
                finally:
                    await conn.execute("SELECT pg_advisory_unlock($1)", lock)
        return fired
