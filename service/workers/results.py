"""The tournament result runner: a process manager among the workers. It follows the global log from
its checkpoint, as a projector does, and turns each ended tournament game into its tournament's
`RecordResult`, sent by the platform through the tournaments' command loop, exactly once.

A batch and its checkpoint commit together (`ReadSide.follow`, under a lock one process holds at a
time); a repeat after a crash is refused by the decider (`tournament.result_already_recorded`) and
dropped, and so is a result no retry can ever record. An aborted game counts as everyone level, so
the round still ends. The games of a duplicate deal are recorded together when its last one ends
(`Seals.results`): until then the tournament holds no result of the sealed deal, so none of its reads
can show one, nor even that a table has finished (its version does not move).
"""

from __future__ import annotations

import structlog

import domain.tournament as T
from domain.kernel import Outcome, RuleViolation
from domain.table import GameAborted, GameEnded
from projections.log import LogEvent
from service.commands.sealing import Seals
from service.commands.tournaments import Tournaments
from service.ops.background import Periodic
from service.store.protocol import ENDINGS
from service.store.readside import ReadSide

log = structlog.get_logger("stela.results")
WAKE_DELAY = 0.5  # seconds the result runner lets appends gather before it looks (a round starts that much later)
# refusals of a RecordResult that no retry can change (the tournament ended or moved past the game's round)
UNRECORDABLE = {"tournament.not_running", "tournament.finished", "tournament.unknown_game", "tournament.bad_outcome"}


class ResultRunner(Periodic):
    """Follows the global log and records each ended tournament game in its tournament, exactly once."""

    NAME = name = "tournament-results"

    def __init__(self, store: ReadSide, tournaments: Tournaments, poll: float = 1.0, size: int = 500,
                 seals: Seals | None = None) -> None:
        super().__init__(poll)
        self.store = store
        self.tournaments = tournaments
        self.seals = seals or Seals()  # a duplicate deal's results are recorded together, when it opens
        self.size = size
        self.recorded = 0

    async def start(self) -> None:
        await self.store.ensure_tables([])  # the checkpoint table
        await super().start()

    async def cycle(self) -> bool:
        return await self.step() >= self.size

    async def step(self) -> int:
        """One batch from the checkpoint, if no other process holds it; the events read."""
        return await self.store.follow(self.NAME, self.size, self._record, ENDINGS)

    async def _record(self, events: list[LogEvent]) -> None:
        ended = [e for e in events if isinstance(e.table, (GameEnded, GameAborted))]
        owners = await self.store.tournaments_of([e.stream_id for e in ended]) if ended else {}
        for event in ended:
            if event.stream_id in owners:
                owner = owners[event.stream_id]
                outcome = event.table.outcome if isinstance(event.table, GameEnded) else None
                for game_id, result in await self.seals.results(owner, event.stream_id, outcome):
                    self.recorded += await self.record(owner, game_id, result)

    async def record(self, tournament_id: str, game_id: str, outcome: Outcome | None) -> bool:
        """The platform records a game's outcome (None: aborted, everyone level); False if it never will
        (recorded already, or refused for good)."""
        if outcome is None:
            table = (await self.tournaments.load(tournament_id)).state.table_of(game_id)
            seats = len(table.players) if table is not None else 0
            outcome = Outcome(scores=[0] * seats, ranks=[1] * seats, winners=[], details={"aborted": True})
        try:
            await self.tournaments.act(None, tournament_id, T.RecordResult(game_id=game_id, outcome=outcome))
        except RuleViolation as exc:
            if exc.code == "tournament.result_already_recorded":
                return False
            if exc.code in UNRECORDABLE:  # it never can be: retrying would hold the runner on this event forever
                log.warning("result_dropped", tournament_id=tournament_id, game_id=game_id, code=exc.code,
                            reason=exc.message)
                return False
            raise
        return True
