"""The one worker shape of competitions (`CompetitionResults`), and the tournament result runner.

Every format's results are recorded the same way: a process manager among the workers follows the
global log from its checkpoint, as a projector does, finds each ended game that belongs to a
competition of its family (`owners`) and sends the platform's `RecordResult` through the one command
loop (`Competition.platform`), exactly once. `ResultRunner` does it for the formats of rounds;
`service.workers.arenas.ArenaWorker` for the arena, which also pairs and closes on a clock.

A batch and its checkpoint commit together (`ReadSideStore.follow`, under a lock one process holds at a
time); a repeat after a crash is refused by the decider (`tournament.result_already_recorded`) and
dropped, and so is a result no retry can ever record. An aborted game counts as everyone level, so
the round still ends. The games of a duplicate deal are recorded together when its last one ends
(`Seals.results`): until then the tournament holds no result of the sealed deal, so none of its reads
can show one, nor even that a table has finished (its version does not move).
"""

from __future__ import annotations

from typing import Any, ClassVar

import structlog

import domain.tournament as T
from domain.kernel import Outcome, RuleViolation
from domain.table import GameAborted, GameEnded
from projections.log import LogEvent
from service.commands.sealing import Seals
from service.commands.competition import Competition
from service.commands.tournaments import Tournaments
from service.ops.background import Periodic
from service.store.protocol import ENDINGS, ReadSideStore

log = structlog.get_logger("stela.results")
WAKE_DELAY = 0.5  # seconds the result runner lets appends gather before it looks (a round starts that much later)


class CompetitionResults(Periodic):
    """Follows the global log and records each ended game of a competition of one family, exactly once.

    A subclass says whose games they are (`owners`) and what an ended game sends (`ended`); `send`
    sends a platform command and drops the refusals no retry can change (`UNRECORDABLE`): a repeat after
    a crash is refused by the decider (`<family>.result_already_recorded`) and dropped quietly."""

    NAME: ClassVar[str]
    UNRECORDABLE: ClassVar[frozenset[str]]

    def __init__(self, store: ReadSideStore, competitions: Competition[Any], every: float, size: int) -> None:
        super().__init__(every)
        self.store = store
        self.competitions = competitions
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
        owners = await self.owners([e.stream_id for e in ended]) if ended else {}
        touched = []
        for event in ended:
            if event.stream_id in owners:
                outcome = event.table.outcome if isinstance(event.table, GameEnded) else None
                await self.ended(owners[event.stream_id], event.stream_id, outcome)
                touched.append(owners[event.stream_id])
        await self.touched(list(dict.fromkeys(touched)))

    async def owners(self, game_ids: list[str]) -> dict[str, str]:
        """The competition of each of `game_ids` that belongs to one of this family."""
        raise NotImplementedError

    async def ended(self, competition_id: str, game_id: str, outcome: Outcome | None) -> None:
        """Record that `game_id` of `competition_id` ended with `outcome` (None: aborted)."""
        raise NotImplementedError

    async def touched(self, competition_ids: list[str]) -> None:
        """Told, after a batch, the competitions whose games it recorded."""

    async def send(self, competition_id: str, game_id: str, command: Any) -> bool:
        """The platform sends `command` (a game's result); False if it never will be recorded."""
        try:
            await self.competitions.platform(competition_id, command)
        except RuleViolation as exc:
            if exc.code in self.UNRECORDABLE or exc.code.endswith(".result_already_recorded"):
                if not exc.code.endswith(".result_already_recorded"):  # retrying would hold the runner here
                    log.warning("result_dropped", competition_id=competition_id, game_id=game_id, code=exc.code,
                                reason=exc.message)
                return False
            raise
        self.recorded += 1
        return True


class ResultRunner(CompetitionResults):
    """Records each ended tournament game in its tournament; a duplicate deal's together, when it opens."""

    NAME = name = "tournament-results"
    # refusals of a RecordResult that no retry can change (the tournament ended or moved past the game's round)
    UNRECORDABLE = frozenset({"tournament.not_running", "tournament.finished", "tournament.unknown_game",
                              "tournament.bad_outcome"})

    def __init__(self, store: ReadSideStore, tournaments: Tournaments, poll: float = 1.0, size: int = 500,
                 seals: Seals | None = None) -> None:
        super().__init__(store, tournaments, poll, size)
        self.tournaments = tournaments
        self.seals = seals or Seals()  # a duplicate deal's results are recorded together, when it opens

    async def owners(self, game_ids: list[str]) -> dict[str, str]:
        return await self.store.tournaments_of(game_ids)

    async def ended(self, competition_id: str, game_id: str, outcome: Outcome | None) -> None:
        for dealt, result in await self.seals.results(competition_id, game_id, outcome):
            await self.record(competition_id, dealt, result)

    async def record(self, tournament_id: str, game_id: str, outcome: Outcome | None) -> bool:
        """The platform records a game's outcome (None: aborted, everyone level); False if it never will
        (recorded already, or refused for good)."""
        if outcome is None:
            table = (await self.tournaments.load(tournament_id)).state.table_of(game_id)
            seats = len(table.players) if table is not None else 0
            outcome = Outcome(scores=[0] * seats, ranks=[1] * seats, winners=[], details={"aborted": True})
        return await self.send(tournament_id, game_id, T.RecordResult(game_id=game_id, outcome=outcome))
