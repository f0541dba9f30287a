"""Stopping background tasks and workers without letting one that ignores its cancellation, fails or
hangs hold the shutdown."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable

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


STOP_HOOK_SECONDS = 15.0  # a stop that takes longer is given up (the process still exits)
SLOW_STOP_HOOK = 1.0  # a stop that takes longer is logged (a stop is normally milliseconds)


async def stop_bounded(name: str, stop: Callable[[], Awaitable[object]]) -> None:
    """Run one stop within `STOP_HOOK_SECONDS`; a failed, timed-out or slow one is logged, so a slow
    shutdown says which stop held it (a stop stuck for the whole bound left no trace before)."""
    began = time.monotonic()
    try:
        await asyncio.wait_for(stop(), STOP_HOOK_SECONDS)
    except Exception as exc:  # noqa: BLE001 - the other stops and the services' close still run
        log.warning("stop_hook_failed", hook=name, error_type=type(exc).__name__,
                    seconds=round(time.monotonic() - began, 3))
        return
    if (seconds := time.monotonic() - began) > SLOW_STOP_HOOK:
        log.warning("stop_hook_slow", hook=name, seconds=round(seconds, 3))
