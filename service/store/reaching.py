"""Reaching the database at start-up: a process that starts while PostgreSQL is down waits for it.

A replica or a projector may start while its database is unreachable or restarting (a crash's
recovery, a failover, a pod scheduled before the database is up). Exiting would leave it to a
supervisor to notice; instead `reach` retries the opening (pool and migrations) with exponential
backoff, logging each failed attempt, until it succeeds or its wait is spent (then the last
`StoreUnavailable` is raised). Only a `StoreUnavailable` is retried: anything else is a real fault.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import structlog

from service.store.protocol import StoreUnavailable

log = structlog.get_logger("stela.store")

T = TypeVar("T")

FIRST_PAUSE = 0.2
LONGEST_PAUSE = 5.0


async def reach(opening: Callable[[], Awaitable[T]], wait: float) -> T:
    """`await opening()`, retried with backoff on StoreUnavailable for up to `wait` seconds."""
    deadline = time.monotonic() + wait
    pause, attempts = FIRST_PAUSE, 0
    while True:
        attempts += 1
        try:
            return await opening()
        except StoreUnavailable as exc:
            if time.monotonic() + pause > deadline:
                raise
            log.warning("database_unreachable", attempt=attempts, retry_in=round(pause, 1), error=str(exc)[:300])
        await asyncio.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE)
