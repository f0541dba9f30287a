"""Connections leased from the pool for good, for the append: the one statement of every command.

Borrowing from asyncpg's pool for one statement costs more than the statement's own client work
suggests: every release runs in a task of its own (`asyncio.shield`) under a timer, so
acquire and release together took about a tenth of a busy process's CPU (py-spy, 16 games
posting commands). `Lanes` leases a few connections from the pool once and hands them out
one call at a time from a free list; a call that finds none free waits for the next one
handed back.

Lanes are leased as concurrency asks for them, up to the pool's size less a reserve (a
quarter, at least two) for reads, the projector and the background workers; a lane idle for
`IDLE_RETURN` seconds goes back to the pool, so after a burst of appends the reads have the
whole pool again. (A fixed four lanes took `bench.store` at 16 writers from 0.96x plain inserts
to 0.81x; lanes up to the writers' number, 1.15x.)

A lane whose call ended in a PostgreSQL error (a unique violation, a statement timeout
reported by the server) stays: the connection is idle and sound. Any other ending (the call
cancelled mid-statement, the connection lost, a client-side timeout) gives the lane back to
the pool, which cleans it up or replaces it, and the next call leases another.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

import asyncpg

from service.store.protocol import StoreUnavailable

IDLE_RETURN = 30.0  # seconds a lane may stay unused before it goes back to the pool


def lanes_for(pool_max: int) -> int:
    """How many lanes a pool of `pool_max` connections lets the append lease at most (0: none, use the
    pool): all but a quarter of it (at least two), which reads, the projector and the workers keep."""
    return pool_max - max(2, pool_max // 4) if pool_max >= 4 else 0


class Lanes:
    """`fetch` on one of at most `size` connections leased from `pool`; `close()` hands them back."""

    def __init__(self, pool: Any, size: int, dead: tuple[type[BaseException], ...]) -> None:
        self._pool = pool
        self.size = size
        self._dead = dead  # errors after which a connection is not reused even if PostgreSQL raised them
        self._free: list[tuple[Any, float]] = []  # (connection, idle since); the last is used first
        self._waiters: deque[asyncio.Future[Any]] = deque()
        self._returning: set[asyncio.Task[None]] = set()
        self.leased = 0
        self._closing = False
        self._trimming: asyncio.TimerHandle | None = None

    async def fetch(self, query: str, *args: Any) -> list[asyncpg.Record]:
        conn = self._free.pop()[0] if self._free else await self._take()
        try:
            rows = await conn.fetch(query, *args)
        except asyncpg.PostgresError as exc:
            if isinstance(exc, self._dead) or conn.is_closed() or conn.is_in_transaction():
                self._drop(conn)
            else:
                self._put(conn)
            raise
        except BaseException:
            self._drop(conn)
            raise
        self._put(conn)
        return rows

    async def close(self) -> None:
        """Hand every idle lane back; a lane in use goes back when its call ends."""
        self._closing = True
        if self._trimming is not None:
            self._trimming.cancel()
        free, self._free = self._free, []
        for conn, _ in free:
            self.leased -= 1
            await self._pool.release(conn)
        self._wake(None)
        if self._returning:
            await asyncio.gather(*self._returning, return_exceptions=True)

    async def _take(self) -> Any:
        while True:
            if self._closing:
                raise StoreUnavailable("the store is closing")
            if self.leased < self.size:
                self.leased += 1
                try:
                    return await self._pool.acquire()
                except BaseException:
                    self.leased -= 1
                    self._wake(None)  # a waiter may lease in its place
                    raise
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                conn = await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled() and waiter.result() is not None:
                    self._put(waiter.result())  # handed over just as this call was cancelled
                raise
            if conn is not None:
                return conn
            # None: a lane went back to the pool (or the store is closing); lease one, or wait again

    def _put(self, conn: Any) -> None:
        if self._closing:
            self._drop(conn)
        elif not self._wake(conn):
            self._free.append((conn, time.monotonic()))
            if self._trimming is None:
                self._trimming = asyncio.get_running_loop().call_later(IDLE_RETURN, self._trim)

    def _trim(self) -> None:
        """Give back the lanes unused for `IDLE_RETURN` seconds (the first in the list have waited longest)."""
        self._trimming = None
        cutoff = time.monotonic() - IDLE_RETURN
        while self._free and self._free[0][1] <= cutoff:
            self._drop(self._free.pop(0)[0])
        if self._free:
            self._trimming = asyncio.get_running_loop().call_later(IDLE_RETURN, self._trim)

    def _wake(self, conn: Any) -> bool:
        """Hand `conn` (or None: "try to lease") to the first caller still waiting; False if none."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(conn)
                if conn is None and self._closing:
                    continue  # closing: every waiter learns it
                return True
        return False

    def _drop(self, conn: Any) -> None:
        self.leased -= 1
        task = asyncio.ensure_future(self._release(conn))
        self._returning.add(task)
        task.add_done_callback(self._returning.discard)
        self._wake(None)

    async def _release(self, conn: Any) -> None:
        try:
            await self._pool.release(conn)
        except Exception:  # noqa: BLE001 - the pool terminates a connection it cannot reset
            pass
