"""The arena process manager, among the workers: it pairs free players, records each ended arena game in
its arena exactly once, and closes each arena at its end time.

Results: it has the one worker shape of competitions (`service.workers.results.CompetitionResults`,
as the tournament result runner has): it follows the global log from its checkpoint; a batch
and its checkpoint commit together (`ReadSideStore.follow`, under a lock one process holds at a time), a
repeat after a crash is refused by the decider (`arena.result_already_recorded`) and dropped, and an
aborted game is recorded as such (it scores nothing). After a result its arena is paired at once, so
a player whose game ended waits for no tick.

Ticks: every `tick` seconds (and when woken) each arena that may be running is looked at: past its end
it is closed (`Close(at_ms)`), otherwise its free players are paired (`Pair(at_ms)`). Every replica
ticks; the one command loop makes each decision once (a stale decision is reloaded and decided again,
and "nobody to pair" is no error). No game starts after the end, because the decider refuses a
pairing at or after it; games running then finish, count, and the last one ends the arena.
"""

from __future__ import annotations

import time

import structlog

import domain.tournament.arena as A
from domain.kernel import Outcome, RuleViolation
from service.commands.arenas import Arenas
from service.store.protocol import ReadSideStore
from service.workers.results import CompetitionResults

log = structlog.get_logger("stela.arenas.worker")
IDLE = {"arena.nobody_to_pair", "arena.not_started", "arena.closed", "arena.finished", "arena.not_over_yet"}


def now_ms() -> int:
    return int(time.time() * 1000)


class ArenaWorker(CompetitionResults):
    """Pairs, records results and closes arenas (see the module)."""

    NAME = name = "arena-results"
    UNRECORDABLE = frozenset({"arena.unknown_game", "arena.bad_outcome", "arena.finished"})

    def __init__(self, store: ReadSideStore, arenas: Arenas, tick: float = 1.0, size: int = 500) -> None:
        super().__init__(store, arenas, tick, size)
        self.arenas = arenas
        self.finished: set[str] = set()  # arenas seen finished: never looked at again
        self._next_tick = 0.0

    async def cycle(self) -> bool:
        busy = await self.step() >= self.size
        if time.monotonic() >= self._next_tick:
            self._next_tick = time.monotonic() + self.every
            await self.tick()
        return busy

    async def tick(self) -> None:
        """Close every arena past its end and pair the free players of every other running one."""
        for arena_id in await self.arenas.live():
            if arena_id not in self.finished:
                await self.advance(arena_id)

    async def advance(self, arena_id: str) -> None:
        """Close the arena if its time is up, else pair whoever is free (no error when nobody is)."""
        state = (await self.arenas.load(arena_id)).state
        if state.finished:
            self.finished.add(arena_id)
            return
        at = now_ms()
        if state.closed or at < state.settings.starts_at_ms:
            return
        command = A.Close(at_ms=at) if at >= state.settings.ends_at_ms else A.Pair(at_ms=at)
        if isinstance(command, A.Pair) and len(state.free()) < state.settings.seats:
            return
        try:
            await self.arenas.platform(arena_id, command)
        except RuleViolation as exc:
            if exc.code not in IDLE:
                raise

    async def owners(self, game_ids: list[str]) -> dict[str, str]:
        return await self.arenas.owners(game_ids)

    async def ended(self, competition_id: str, game_id: str, outcome: Outcome | None) -> None:
        moves = await self.arenas.own_moves(game_id, len(outcome.ranks)) if outcome else None
        await self.record(competition_id, game_id, outcome, moves)

    async def touched(self, competition_ids: list[str]) -> None:
        for arena_id in competition_ids:  # paired at once: a player whose game ended waits for no tick
            await self.advance(arena_id)

    async def record(self, arena_id: str, game_id: str, outcome: Outcome | None, moves: list[int] | None = None
                     ) -> bool:
        """The platform records a game's outcome (None: aborted) and each seat's own `moves` (what a berserk
        needs to count); False if it never will (recorded already, or refused for good)."""
        return await self.send(arena_id, game_id, A.RecordResult(game_id=game_id, outcome=outcome, moves=moves))
