"""Reaching the database at start-up: a process that starts while PostgreSQL is down waits for it.

A replica or a projector may start while its database is unreachable or restarting (a crash's
recovery, a failover, a pod scheduled before the database is up), or lose it in the middle of its
start-up. Exiting would leave it to a supervisor to notice; instead `reach` runs each start-up step
that needs the database (the opening: pool and migrations; then the workers' start: their tables)
with exponential backoff, logging each failed attempt, until it succeeds or its wait is spent (then
the last error is raised). The steps of one start-up share one deadline (`left`).

Only the database's absence is retried: a `StoreUnavailable`, or the driver's own sign of a lost or
refused connection (`LOST`: the step is a plain query on the pool, which the store does not translate).
Anything else is a real fault. A retried step is run again from its beginning, so it must be safe to
redo: each creates only what is missing, and stops what it started before it failed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import structlog

from service.store.errors import UNAVAILABLE
from service.store.protocol import StoreUnavailable

log = structlog.get_logger("stela.store")

T = TypeVar("T")

FIRST_PAUSE = 0.2
LONGEST_PAUSE = 5.0
# a connection refused or reset, a statement's timeout, or one of the driver's "cannot serve now"
LOST: tuple[type[BaseException], ...] = (StoreUnavailable, OSError, TimeoutError, *UNAVAILABLE)


def left(deadline: float) -> float:
    """Seconds until `deadline` (a `time.monotonic()` instant): what a later step may still wait."""
    return deadline - time.monotonic()


async def reach(opening: Callable[[], Awaitable[T]], wait: float, step: str = "open") -> T:
    """`await opening()`, retried with backoff while the database is away (`LOST`) for up to `wait` seconds."""
    deadline = time.monotonic() + wait
    pause, attempts = FIRST_PAUSE, 0
    while True:
        attempts += 1
        try:
            return await opening()
        except LOST as exc:
            if time.monotonic() + pause > deadline:
                raise
            log.warning("database_unreachable", step=step, attempt=attempts, retry_in=round(pause, 1),
                        error=f"{type(exc).__name__}: {exc}"[:300])
        await asyncio.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE)
