"""The timeout worker: fires each due clock deadline once, whichever replica gets there first.

Every `every` seconds each process brings the `deadlines` read model up to date
(`projections.runner.batch`, serialised across processes by its batch lock, so
each event counts once) and selects the rows due now. A row is fired under a
session advisory lock on (game, seat) tried without waiting, so two processes
never fire the same row at once; the firing process re-reads the game and sends
`table.TimeOut(seat, at_ms=now)` only if the seat's deadline in the game's clock
is still the row's, through the game pipeline's one command loop pinned to the
version it read. The append's head check settles any remaining race: a
`table.not_due` refusal or a version conflict means the deadline was already
dealt with, and is dropped silently. The batch's metadata records the command,
so `stela verify` re-decides it. On the memory store (`ReadSideStore.fire_due` there) the same steps run
in one process, a row being fired skipped by a second caller as the advisory lock skips it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import structlog

from domain.kernel import RuleViolation
from projections.deadlines import Deadline, Deadlines
from service.commands.pipeline import CommandPipeline, now_ms
from service.ops.background import Periodic
from service.store.protocol import ConcurrencyError, ReadSideStore

log = structlog.get_logger("stela.timeouts")


def lock_key(game_id: str, seat: int) -> int:
    """The advisory lock key of one (game, seat) deadline."""
    return int.from_bytes(hashlib.sha256(f"stela.timeout.{game_id}.{seat}".encode()).digest()[:8], "big",
                          signed=True)


class TimeoutWorker(Periodic):
    """Fires due deadlines of one process; `start()`/`stop()` from the lifespan, `tick()` from tests."""

    name = "timeouts"

    def __init__(self, store: ReadSideStore, pipeline: CommandPipeline, every: float = 0.5,
                 clock: Callable[[], int] = now_ms, limit: int = 200) -> None:
        super().__init__(every)
        self.store = store
        self.pipeline = pipeline
        self.clock = clock
        self.limit = limit
        self.fired = 0
        self._model = Deadlines()

    async def start(self) -> None:
        await self.store.ensure_tables([self._model])
        await super().start()

    async def cycle(self) -> bool:
        await self.tick()
        return False

    async def tick(self) -> int:
        """Catch the deadlines up with the log, then fire every due one this process can lock; how many fired."""
        fired = await self.store.fire_due(self._model, self.clock, self.limit,
                                          lambda row: lock_key(row.game_id, row.seat), self._fire)
        self.fired += fired
        return fired

    async def _fire(self, row: Deadline, now: int) -> int:
        """Send TimeOut for the row's seat if its clock still shows that deadline; 1 if it was recorded."""
        self.pipeline.repository.forget(row.game_id)
        loaded = await self.pipeline.repository.load(row.game_id)
        state = loaded.state
        clock = state.clock
        if clock is None or state.status != "active" or clock.deadlines_ms[row.seat] != row.due_ms:
            return 0
        try:
            done = await self.pipeline.time_out(row.game_id, loaded, row.seat, now)
        except (RuleViolation, ConcurrencyError):
            return 0  # table.not_due, or the game moved on (another process timed it out, or the seat played)
        log.info("timed_out", game_id=row.game_id, seat=row.seat, version=done.state.version)
        return 1
