"""The projector: feeds each read model from its checkpoint, exactly once, with one leader per model.

One dedicated connection per projector process holds a session-level advisory
lock per projection it leads (others are retried every second, so a standby
takes over within about a second of the leader's death). A batch is one
transaction: the per-projection batch lock (which a rebuild's swap also takes),
the checkpoint read afresh, the events after it, the model's update and the new
checkpoint, so a crash anywhere leaves either all of it or none. The batches of
every model with events to read at one look share one transaction (`batches`):
one BEGIN, lock, checkpoint read, checkpoint write and COMMIT for all of them,
instead of one of each per model. If that transaction
fails, the look is retried one model per transaction (`batch`), so the models
that can move still do while the failing one is retried and logged.

A model that finds a full batch is catching up: its next batch is twice as large, up to `max_batch`
(a model's row is then written once for many of its events, which is most of the speed of a catch-up),
and back to `batch_size` as soon as a batch is not full, so a model that keeps up commits small,
short transactions.

After a look that found events, the next waits `linger` seconds (here 50 ms by default; the
service's projectors, the embedded one and `stela projector`, pass 0.5 s: `LINGER` in
service/store/readside.py) so that, under a steady stream of appends, each model commits one
batch per linger period rather than one per append (a batch is a transaction of several
statements per model, and writes a game's rows once for all its events); the first event after
a quiet spell is projected at once.

The loop looks at the log when `wake()` is called (the fan-out announcing an
append in this process, or a NOTIFY when the store still sends them) and
otherwise every `poll` seconds; an idle look is one query (the horizon, see
projections/log.py, and an index probe per model for an event after its
checkpoint), not a batch per model. The connection plans every statement afresh (`plan_cache_mode =
force_custom_plan`): read-model tables start empty, and plans cached then keep
scanning them sequentially long after they have grown; for the same reason a
catch-up ANALYZEs the tables it fills (`base.Analyzer`). When the horizon is
held by a transaction of this database for `stall_after` seconds, the
projector logs `projection_horizon_stalled` naming the backend (and again
every minute while it lasts); `stall` holds the current blocker.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import asyncpg
import structlog

from projections.base import Analyzer, Projection, ensure_tables, lock_key
from projections.catalog import select
from projections.log import (
    CHANNEL, HORIZON, Blocker, Cursor, LogEvent, blocker, load_checkpoints, reached, read_after, save_checkpoints,
)

log = structlog.get_logger("stela.projector")

LAG_CAP = 1_000  # events behind a checkpoint counted exactly; beyond, estimated from positions (cheap)
CLAIM_EVERY = 1.0  # seconds between attempts to take the leader locks this process does not hold
_LAG = f"""SELECT n.name,
                  CASE WHEN l.events < {LAG_CAP} THEN l.events
                       ELSE greatest(l.events, (SELECT max(position) FROM events) - coalesce(c.position, 0)) END,
                  l.seconds
           FROM unnest($1::text[]) AS n(name)
           LEFT JOIN projection_checkpoints c ON c.name = n.name
           CROSS JOIN LATERAL (
               SELECT count(*) AS events, coalesce(extract(epoch FROM now() - min(t.at)), 0)::float8 AS seconds
               FROM (SELECT e.at FROM events e
                     WHERE (e.tx, e.position) > (coalesce(c.tx, 0), coalesce(c.position, 0))
                     ORDER BY e.tx, e.position LIMIT {LAG_CAP}) t) l"""
# The horizon, whether an open transaction holds it below the newest finished one, and which of the
# named projections have an event to read after their checkpoint (one index probe each).
_PROBE = f"""WITH h AS MATERIALIZED (SELECT {HORIZON} AS horizon,
                                            pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax)
             SELECT h.horizon, h.horizon < h.xmax,
                    ARRAY(SELECT n.name FROM unnest($1::text[]) AS n(name)
                          LEFT JOIN projection_checkpoints c ON c.name = n.name
                          WHERE EXISTS (SELECT 1 FROM events e
                                        WHERE (e.tx, e.position) > (coalesce(c.tx, 0), coalesce(c.position, 0))
                                          AND e.tx < h.horizon))
             FROM h"""


class Backoff:
    """How long to wait before retrying work that keeps failing: `first` seconds, doubled for each failure
    in a row, at most `most`; `succeeded()` starts over. (A model that cannot apply an event fails on
    every look: retried at the polling rate, it would log a traceback four times a second.)"""

    def __init__(self, first: float = 0.25, most: float = 5.0) -> None:
        self.first, self.most = first, most
        self.failures = 0

    def failed(self) -> float:
        """Count a failure; the seconds to wait before the next try."""
        self.failures += 1
        return min(self.first * 2 ** min(self.failures - 1, 30), self.most)

    def succeeded(self) -> None:
        self.failures = 0


class SharedRead:
    """`read_after` that reads once for every model whose checkpoint is the same (they usually move in step).

    Reusing the events read for another model is exact: every event between that
    checkpoint and the last one read was below the horizon then, so no later
    commit can fall among them.
    """

    def __init__(self) -> None:
        self._key: tuple[Cursor, int] | None = None
        self._events: list[LogEvent] = []

    async def __call__(self, conn: Any, after: Cursor, limit: int) -> list[LogEvent]:
        if self._key != (after, limit):
            self._events, self._key = await read_after(conn, after, limit), (after, limit)
        return self._events


async def batch(conn: Any, projection: Projection, size: int, read: Any = read_after) -> int:
    """Project the next batch of at most `size` events of one model in one transaction; returns how many."""
    return (await batches(conn, [projection], {projection.name: size}, read))[projection.name]


async def batches(conn: Any, projections: list[Projection], sizes: dict[str, int],
                  read: Any = None) -> dict[str, int]:
    """The next batch of each of `projections` (at most `sizes[name]` events each), all in one transaction;
    returns how many events each one projected.

    The batch locks are taken in key order (a rebuild's swap holds one of them at a time, so nothing
    waits in a cycle); the checkpoints are read after them, in a statement of their own, so a
    checkpoint a swap committed while this waited is the one used.
    """
    read = read or SharedRead()
    keys = sorted(lock_key("batch", p.name) for p in projections)
    done: dict[str, int] = {}
    moved: dict[str, Cursor] = {}
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS k", keys)
        cursors = await load_checkpoints(conn, [p.name for p in projections])
        for projection in projections:
            events = await read(conn, cursors[projection.name], sizes[projection.name])
            if events:
                await projection.apply(conn, "public", events)
            upto = reached(events)
            if upto is not None:
                moved[projection.name] = upto
            done[projection.name] = len(events)
        if moved:
            await save_checkpoints(conn, moved)
    return done


async def lag(pool: Any, names: list[str]) -> dict[str, dict[str, float]]:
    """Per projection: events after its checkpoint and the age in seconds of the oldest of them.

    Cheap however far behind: up to LAG_CAP events are counted (and the oldest
    found) among the next LAG_CAP only; a longer tail is estimated from the
    positions. Committed events that wait behind an open transaction count too,
    so a stalled horizon shows as growing seconds.
    """
    try:
        rows = await pool.fetch(_LAG, names)
    except asyncpg.UndefinedTableError:  # no projector has run yet: everything is behind
        rows = await pool.fetch(_LAG.replace("projection_checkpoints", "(SELECT '' AS name, 0 AS tx, 0 AS position)"),
                                names)
    return {r[0]: {"events": int(r[1]), "seconds": float(r[2])} for r in rows}


async def _hand_back(conn: Any, listener: Any) -> None:
    """Drop the LISTEN, the leader locks and the planning setting before `conn` returns to the pool
    (which does not reset it).

    If that cannot be done cleanly (a query was cut off, the link is gone), the
    connection is terminated: its session ends and PostgreSQL frees the locks.
    """
    try:
        if conn.is_closed() or conn.is_in_transaction():
            raise ConnectionError("connection not reusable")
        await asyncio.wait_for(conn.remove_listener(CHANNEL, listener), 2)
        await asyncio.wait_for(conn.execute("SELECT pg_advisory_unlock_all(); RESET plan_cache_mode; RESET random_page_cost"), 2)
    except Exception:  # noqa: BLE001 - any doubt: end the session
        # a connection the server already ended went back to the pool by itself (asyncpg detaches it)
        with contextlib.suppress(asyncpg.InterfaceError):
            conn.terminate()


class Projector:
    """Runs `projections` on a connection held from `pool`; `start()`/`stop()` from a lifespan or CLI."""

    def __init__(self, pool: Any, projections: list[Projection] | None = None, batch_size: int = 500,
                 poll: float = 0.25, stall_after: float = 10.0, max_batch: int = 4000, linger: float = 0.05,
                 backoff: Backoff | None = None) -> None:
        self.pool = pool
        self.backoff = backoff or Backoff(first=poll)
        self.projections = projections if projections is not None else select(None)
        self.batch_size = batch_size
        self.max_batch = max(max_batch, batch_size)
        self._sizes: dict[str, int] = {}  # per model: the next batch's size (doubles while catching up)
        self.poll = poll
        self.linger = linger
        self.stall_after = stall_after
        self.leading: set[str] = set()
        self.projected = 0
        self.stall: Blocker | None = None  # who has held the horizon for `stall_after` seconds, while it lasts
        self._analyzer = Analyzer()
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._stopping = False
        self._horizon: tuple[int, float] = (0, time.monotonic())  # the horizon and since when it has been held
        self._warned_at = 0.0
        self._held = False  # the horizon was below the newest transaction at the last look

    def wake(self, *_: Any) -> None:
        """Look at the log now (called by the fan-out when an append is announced, or on NOTIFY)."""
        self._wake.set()

    async def lag(self) -> dict[str, dict[str, float]]:
        return await lag(self.pool, [p.name for p in self.projections])

    async def lag_seconds(self) -> float:
        """Age in seconds of the oldest event some model of this projector has not projected yet (0 when none)."""
        return max((v["seconds"] for v in (await self.lag()).values()), default=0.0)

    def horizon_held_seconds(self) -> float:
        """How long the horizon has stood still below a transaction still open (0 while it moves): a few
        milliseconds are normal; seconds mean a transaction of this database holds every read model back."""
        return time.monotonic() - self._horizon[1] if self._held else 0.0

    async def start(self) -> None:
        """Ensure the tables, then run; again after a `stop` too (a start-up retried after its database left)."""
        async with self.pool.acquire() as conn:
            await ensure_tables(conn, self.projections)
        self._stopping = False
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
                delay = self.backoff.failed()
                log.exception("projector_failed", failures=self.backoff.failures, retry_in=round(delay, 3))
                self.leading.clear()
                await asyncio.sleep(delay)

    async def _serve(self, conn: Any) -> None:
        wake = self._wake
        notified = self.wake
        claimed_at = 0.0
        try:  # the LISTEN and the settings too: a stop between them must not leave them on the pool's connection
            await conn.add_listener(CHANNEL, notified)
            await conn.execute("SET plan_cache_mode = force_custom_plan; SET random_page_cost = 1.1")
            while not self._stopping:
                if len(self.leading) < len(self.projections) and time.monotonic() - claimed_at >= CLAIM_EVERY:
                    await self._claim(conn)
                    claimed_at = time.monotonic()
                wake.clear()
                busy = False
                ready = await self._look(conn)
                due = [p for p in self.projections if p.name in ready]
                sizes = {p.name: self._sizes.get(p.name, self.batch_size) for p in due}
                found = await self._batches(conn, due, sizes) if due else {}
                for projection in due:
                    size, done = sizes[projection.name], found[projection.name]
                    self.projected += done
                    if done >= size:  # catching up: larger batches, and the planner's statistics in step
                        busy = True
                        self._sizes[projection.name] = min(size * 2, self.max_batch)
                        await self._analyzer.after(conn, projection, "public", done)
                    else:
                        self._sizes[projection.name] = self.batch_size
                self.backoff.succeeded()
                if not busy:
                    if ready and self.linger > 0:  # appends are flowing: gather them into fewer, larger batches
                        await asyncio.sleep(self.linger)
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.poll):  # not wait_for: 3.11's can drop a stop's cancel
                            await wake.wait()
        finally:
            self.leading.clear()
            await _hand_back(conn, notified)

    async def _batches(self, conn: Any, due: list[Projection], sizes: dict[str, int]) -> dict[str, int]:
        """`batches` for every due model; if that transaction fails, one transaction per model, so that
        the models before the failing one move on (the failure is raised to `run`, which logs and retries)."""
        try:
            return await batches(conn, due, sizes)
        except Exception:  # noqa: BLE001 - which model failed is found by the retry below
            if len(due) == 1 or conn.is_closed() or conn.is_in_transaction():
                raise
        read = SharedRead()
        return {p.name: await batch(conn, p, sizes[p.name], read) for p in due}

    async def _look(self, conn: Any) -> set[str]:
        """The projections led here that have events to read; watches the horizon for stalls."""
        row = await conn.fetchrow(_PROBE, sorted(self.leading))
        horizon, held, now = row[0], row[1], time.monotonic()
        self._held = held
        if horizon != self._horizon[0] or not held:
            self._horizon = (horizon, now)
            self.stall = None
        elif now - self._horizon[1] >= self.stall_after:
            await self._stalled(conn, now)
        return set(row[2])

    async def _stalled(self, conn: Any, now: float) -> None:
        """The horizon has not moved for `stall_after` seconds: name the blocker, if one holds it."""
        if self.stall is None or now - self._warned_at >= 60:
            self.stall = await blocker(conn)
            if self.stall is not None:
                self._warned_at = now
                log.warning("projection_horizon_stalled", xid=self.stall.xid, pid=self.stall.pid,
                            transaction_seconds=self.stall.seconds, state=self.stall.state,
                            application_name=self.stall.application_name,
                            stalled_seconds=round(now - self._horizon[1], 1))

    async def _claim(self, conn: Any) -> None:
        for projection in self.projections:
            if projection.name not in self.leading and await conn.fetchval(
                    "SELECT pg_try_advisory_lock($1)", lock_key("leader", projection.name)):
                self.leading.add(projection.name)
                log.info("projection_leader", projection=projection.name)
