"""The read horizon: open transactions of other databases never hold the projector back, one of this
database that holds a transaction id does (it may still commit events below the rest), and such a
stall is visible: lag in seconds grows and a warning names the blocking backend."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import asyncpg
import pytest

from projections import runner
from projections.log import read_after
from projections.runner import Projector
from service.store.protocol import Metadata, NewEvent
from tests.conftest import fresh_database
from tests.projections.support import append_games, project_all, wait_caught_up


class Recorder:
    """Stands in for the projector's logger and keeps every warning."""

    def __init__(self) -> None:
        self.warnings: list[tuple[str, dict[str, Any]]] = []

    def warning(self, event: str, **fields: Any) -> None:
        self.warnings.append((event, fields))

    def info(self, *_: Any, **__: Any) -> None:
        pass

    def exception(self, *_: Any, **__: Any) -> None:
        pass


@pytest.fixture
def other_dsn():
    """Another database on the same server (as another application sharing it would have)."""
    with fresh_database("stela_other") as dsn:
        yield dsn


async def open_transaction(dsn: str) -> tuple[asyncpg.Connection, Any, int]:
    """A session idle in a transaction that holds a transaction id (as after any write), and its pid."""
    conn = await asyncpg.connect(dsn)
    tx = conn.transaction()
    await tx.start()
    await conn.fetchval("SELECT pg_current_xact_id()")
    return conn, tx, await conn.fetchval("SELECT pg_backend_pid()")


async def test_an_open_transaction_in_another_database_does_not_stop_the_projector(store, other_dsn):
    conn, tx, _ = await open_transaction(other_dsn)
    projector = Projector(store.pool)
    await projector.start()
    try:
        await append_games(store, range(10))
        await wait_caught_up(projector.lag)
        async with store.pool.acquire() as reader:
            assert len(await read_after(reader, (0, 0), 10_000)) == await store.pool.fetchval(
                "SELECT count(*) FROM events")
    finally:
        await projector.stop()
        await tx.rollback()
        await conn.close()


async def wait_for(condition: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not await condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_an_open_transaction_in_this_database_holds_the_projector_back_and_is_named(store, pg_dsn,
                                                                                          monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(runner, "log", recorder)
    await append_games(store, range(3))
    projector = Projector(store.pool, stall_after=0.5)
    await projector.start()
    conn = None
    try:
        await wait_caught_up(projector.lag)
        conn, tx, pid = await open_transaction(pg_dsn)
        await store.append("late-game", 0, [NewEvent("tally.Note", {})], Metadata(actor="test"), kind="tally")

        async def warned() -> bool:
            return any(event == "projection_horizon_stalled" for event, _ in recorder.warnings)

        await wait_for(warned)
        (fields,) = [f for e, f in recorder.warnings if e == "projection_horizon_stalled"]
        assert fields["pid"] == pid and fields["state"] == "idle in transaction"
        assert projector.stall is not None and projector.stall.pid == pid
        lags = await projector.lag()
        assert all(v["events"] == 1 for v in lags.values()), "the event behind the open transaction waits"
        assert await projector.lag_seconds() > 0

        await tx.rollback()
        await wait_caught_up(projector.lag)

        async def cleared() -> bool:
            return projector.stall is None

        await wait_for(cleared)
    finally:
        await projector.stop()
        if conn is not None:
            await conn.close()


async def test_the_projector_polls_when_nobody_wakes_it_and_wakes_at_once_when_told(store):
    store.notify = False  # as with NOTIFY off: only the poll or wake() can tell it about appends
    projector = Projector(store.pool, poll=0.2)
    await projector.start()
    try:
        await append_games(store, range(2))
        await wait_caught_up(projector.lag)
        projector.poll = 60.0  # from the next wait on, only wake() makes it look within the deadline
        await asyncio.sleep(0.5)
        await append_games(store, range(2, 4))
        projector.wake()
        await wait_caught_up(projector.lag, timeout=20)
    finally:
        await projector.stop()


async def test_platform_events_this_code_does_not_know_are_skipped_not_fatal(store):
    await append_games(store, range(2))
    await store.append("game-0", await store.pool.fetchval("SELECT max(version) FROM events WHERE stream_id = 'game-0'"),
                       [NewEvent("table.SomethingNew", {"reason": "a newer writer"})], Metadata(actor="test"),
                       kind="tally")
    await project_all(store.pool)
    version = await store.pool.fetchval("SELECT version FROM rm_games WHERE id = 'game-0'")
    assert version == await store.pool.fetchval("SELECT max(version) FROM events WHERE stream_id = 'game-0'")
