"""The projector hands its connection back to the pool without its LISTEN and settings, even when it is stopped
between taking them and starting to project."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import asyncpg
import pytest

from projections.runner import Projector


class StoppedAtTheSettings:
    """The projector's connection, whose first `execute` (the settings after LISTEN) is cancelled, as a stop
    arriving at that moment; everything else goes to the real connection."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.cut = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        if not self.cut:
            self.cut = True
            raise asyncio.CancelledError
        return await self.conn.execute(*args, **kwargs)


async def test_a_projector_stopped_right_after_its_listen_leaves_no_listener_on_the_pools_connection(pg_dsn):
    pool = await asyncpg.create_pool(pg_dsn, min_size=1, max_size=1)
    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")  # asyncpg warns when a connection comes back with a listener
            async with pool.acquire() as conn:
                cut = StoppedAtTheSettings(conn)
                with pytest.raises(asyncio.CancelledError):
                    await Projector(pool, projections=[])._serve(cut)
                assert cut.cut
                assert await conn.fetchval("SELECT count(*) FROM pg_listening_channels()") == 0
        assert not [w for w in warned if issubclass(w.category, asyncpg.InterfaceWarning)], [str(w.message) for w in warned]
        async with pool.acquire() as again:
            assert await again.fetchval("SHOW random_page_cost") == "4"
    finally:
        await pool.close()


async def test_a_connection_the_server_ended_is_handed_back_quietly(pg_dsn):
    # seen in the fault suite: PostgreSQL stopped under the projector; asyncpg had already returned the lost
    # connection to the pool, and ending it again raised InterfaceError out of the clean-up (a traceback)
    from projections.runner import _hand_back

    pool = await asyncpg.create_pool(pg_dsn, min_size=1, max_size=1)
    try:
        async with pool.acquire() as conn:
            conn.terminate()  # the session is gone, as after a crash: asyncpg detaches the proxy
            await _hand_back(conn, None)
        async with pool.acquire() as again:
            assert await again.fetchval("SELECT 1") == 1
    finally:
        await pool.close()
