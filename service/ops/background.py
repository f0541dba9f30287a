"""Periodic work a process runs beside its requests (the timeout worker, the tournament result runner).

A `Periodic` calls `cycle()` again at once while it reports more to do, and
otherwise waits `every` seconds or until `wake()`. A failed cycle is logged and
retried after a backoff (a quarter of a second, doubling while it keeps failing, at
most five seconds; wakes meanwhile are ignored, so a cycle that fails on every
append is not retried at the append rate; a stream held by another transaction, `Contended`, is
retried the same way and logged as a warning without a traceback); `stop()` cancels the loop within the
lifespan's stop.

The wait is `asyncio.timeout` around the event itself, not `asyncio.wait_for`: on Python 3.11,
`wait_for` whose inner wait has just finished (a wake) when the cancellation arrives returns that
result and drops the cancellation, so the loop ran on and `stop()` waited out the lifespan's
15 s bound (a SIGTERM under load took more than 20 s). A stop flag ends the loop as well, should
a cancellation be lost inside a cycle.

`coalesced` turns a hook called on every append into one wake a short delay after the first of
a burst, so a worker (or a projector) under load handles batches rather than single events.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import structlog

from projections.runner import Backoff
from service.ops.stopping import cancel_within

log = structlog.get_logger("stela.background")


class Contended(Exception):
    """A refusal by design, not a fault of this process: what the cycle needed is held by another
    transaction for now (the store's `StreamLocked`). Retried like any failed cycle, logged without a
    traceback."""


class Periodic:
    """Subclasses implement `cycle()`; `start()` / `stop()` come from the lifespan hooks."""

    name = "periodic"

    def __init__(self, every: float, backoff: Backoff | None = None) -> None:
        self.every = every
        self.backoff = backoff or Backoff()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def cycle(self) -> bool:
        """Do one round of work; True when more is waiting."""
        raise NotImplementedError

    def wake(self, *_: Any) -> None:
        self._wake.set()

    async def start(self) -> None:
        self._stopping = False
        self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._stopping = True
            await cancel_within([self._task])
            self._task = None

    async def _run(self) -> None:
        while not self._stopping:
            busy = False
            try:
                busy = await self.cycle()
            except asyncio.CancelledError:
                raise
            except Contended as locked:  # another transaction holds a stream past the append's lock_timeout:
                # the designed refusal (README, STELA_PG_LOCK_TIMEOUT_MS), retried like any failed cycle, and
                # no fault of this process, so a warning without a traceback
                delay = self.backoff.failed()
                log.warning("background_stream_locked", task=self.name, error=str(locked), retry_in=round(delay, 3))
                await asyncio.sleep(delay)
                continue
            except Exception:  # noqa: BLE001 - a lost connection or a failed batch: retried after a backoff
                delay = self.backoff.failed()
                log.exception("background_failed", task=self.name, failures=self.backoff.failures,
                              retry_in=round(delay, 3))
                await asyncio.sleep(delay)
                continue
            self.backoff.succeeded()
            if not busy and not self._stopping:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.every):  # (not wait_for: see the module's notes)
                        await self._wake.wait()


WAKE_EVERY = 0.2


def coalesced(wake: Callable[[], None], delay: float = WAKE_EVERY) -> Callable[..., None]:
    """A hook that calls `wake` once, `delay` seconds after the first of any number of calls."""
    pending = False

    def fire() -> None:
        nonlocal pending
        pending = False
        wake()

    def hook(*_: Any) -> None:
        nonlocal pending
        if not pending:
            pending = True
            asyncio.get_running_loop().call_later(delay, fire)

    return hook
