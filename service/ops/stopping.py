"""Stopping background tasks without letting one that ignores its cancellation hold the shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import structlog

log = structlog.get_logger("stela.stopping")
STOP_WITHIN = 5.0  # seconds a cancelled task may take to end before the shutdown goes on without it


async def cancel_within(tasks: Iterable[asyncio.Task[object]], seconds: float = STOP_WITHIN) -> bool:
    """Cancel `tasks` and wait at most `seconds` for them to end; True if they all did. One that did not
    (its cancellation swallowed somewhere, as 3.11's `wait_for` can) is logged by name and left behind."""
    tasks = [t for t in tasks if t is not None]
    for task in tasks:
        task.cancel()
    if not tasks:
        return True
    done, pending = await asyncio.wait(tasks, timeout=seconds)
    for task in done:  # retrieved, so an error does not surface later as "never retrieved"
        if not task.cancelled():
            task.exception()
    if pending:
        log.warning("task_did_not_stop", tasks=sorted(t.get_name() for t in pending), seconds=seconds)
    return not pending
