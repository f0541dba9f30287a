"""The tournament result runner: a process manager that follows the global log from its checkpoint,
as a projector does, and records the outcome of each ended tournament game in its tournament,
exactly once.

A batch and its checkpoint commit together (`ReadSide.follow`, under a lock one process holds at a
time); a repeat after a crash is refused by the decider (`tournament.result_already_recorded`) and
dropped by `Tournaments.record`.
"""

from __future__ import annotations

from domain.table import GameAborted, GameEnded
from projections.log import LogEvent
from service.commands.tournaments import Tournaments
from service.ops.background import Periodic

WAKE_DELAY = 0.5  # seconds the result runner lets appends gather before it looks (a round starts that much later)


class ResultRunner(Periodic):
    """Follows the global log and records each ended tournament game in its tournament, exactly once."""

    NAME = name = "tournament-results"

    def __init__(self, tournaments: Tournaments, poll: float = 1.0, size: int = 500) -> None:
        super().__init__(poll)
        self.tournaments = tournaments
        self.size = size
        self.recorded = 0

    async def start(self) -> None:
        await self.tournaments.store.ensure_tables([])  # the checkpoint table
        await super().start()

    async def cycle(self) -> bool:
        return await self.step() >= self.size

    async def step(self) -> int:
        """One batch from the checkpoint, if no other process holds it; the events read."""
        return await self.tournaments.store.follow(self.NAME, self.size, self._record)

    async def _record(self, events: list[LogEvent]) -> None:
        ended = [e for e in events if isinstance(e.table, (GameEnded, GameAborted))]
        owners = await self.tournaments.store.tournaments_of([e.stream_id for e in ended]) if ended else {}
        for event in ended:
            if event.stream_id in owners:
                outcome = event.table.outcome if isinstance(event.table, GameEnded) else None
                self.recorded += await self.tournaments.record(owners[event.stream_id], event.stream_id, outcome)
