"""Which games are sealed: the one fact the visibility rule needs from the tournaments.

A game of a duplicate tournament round shares its deal with every other table of the round
(`domain.tournament.deals`). The deal is sealed until every one of those games has ended: the
tournament names the games whose result it has not recorded yet, and each of them is looked at
itself, so a deal opens the moment its last game ends, before the result runner has recorded it.
`results` applies the same rule to the result runner: a deal's results reach its tournament together,
when its last game ends, so no tournament read (view, report, events, stream) shows one before. A game
that is no tournament's, or whose deal is open, stays so for ever: that answer is kept
(a bounded memory), so reading an ordinary game costs one lookup per process, not one per read.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

import domain.tournament as T
from domain.kernel import Outcome
from service.commands.repository import GameRepository, Loaded
from service.store.protocol import EventStore

_OVER = ("finished", "aborted")


class TournamentLoader(Protocol):
    async def load(self, tournament_id: str) -> Loaded[T.TournamentState]: ...


class Seals:
    """No tournaments (a result runner or pipeline built without them, as in some tests): nothing is ever sealed."""

    async def sealed(self, game_id: str, running: bool | None = None) -> bool:
        """Is `game_id`'s duplicate deal still sealed? `running`: whether the game itself is still going
        (None: look)."""
        return False

    async def among(self, game_ids: list[str]) -> set[str]:
        """Those of `game_ids` whose deal is sealed (a page of the lobby)."""
        return set()

    async def results(self, owner: str, game_id: str, outcome: Outcome | None) -> list[tuple[str, Outcome | None]]:
        """The results tournament `owner` records now that `game_id` has ended with `outcome` (None: aborted):
        its own, or, for a game of a duplicate deal, none while another table plays and every table's once
        the last has ended, so the tournament never holds (nor streams) a result of a sealed deal."""
        return [(game_id, outcome)]


class DealSeals(Seals):
    """Seals read from the tournaments and the games of a deal."""

    def __init__(self, store: EventStore, games: GameRepository, tournaments: TournamentLoader,
                 remember: int = 100_000) -> None:
        self.store, self.games, self.tournaments = store, games, tournaments
        self.remember = remember
        self._open: OrderedDict[str, None] = OrderedDict()  # games whose answer can no longer change

    async def sealed(self, game_id: str, running: bool | None = None) -> bool:
        return game_id in await self._sealed_of([game_id], {game_id: running} if running is not None else {})

    async def among(self, game_ids: list[str]) -> set[str]:
        return await self._sealed_of(game_ids, {})

    async def _sealed_of(self, game_ids: list[str], running: dict[str, bool]) -> set[str]:
        unknown = [g for g in game_ids if g not in self._open]
        owners = await self.store.tournaments_of(unknown) if unknown else {}
        sealed = set()
        for game_id in unknown:
            owner = owners.get(game_id)
            if owner is not None and await self._deal_sealed(owner, game_id, running.get(game_id)):
                sealed.add(game_id)
            else:
                self._opened(game_id)
        return sealed

    async def _deal_sealed(self, owner: str, game_id: str, running: bool | None) -> bool:
        """Is any game of `game_id`'s deal (itself included) still being played?"""
        state = (await self.tournaments.load(owner)).state
        if T.deal_round(state, game_id) is None:
            return False
        if running:
            return True
        for other in T.unrecorded(state, game_id):
            if (other != game_id or running is None) and (await self.games.load(other)).state.status not in _OVER:
                return True
        return False

    async def results(self, owner: str, game_id: str, outcome: Outcome | None) -> list[tuple[str, Outcome | None]]:
        state = (await self.tournaments.load(owner)).state
        if T.deal_round(state, game_id) is None:
            return [(game_id, outcome)]
        tables = [(g, (await self.games.load(g)).state) for g in T.unrecorded(state, game_id)]
        if any(table.status not in _OVER for _, table in tables):
            return []
        return [(g, table.outcome if table.status == "finished" else None) for g, table in tables]

    def _opened(self, game_id: str) -> None:
        self._open[game_id] = None
        while len(self._open) > self.remember:
            self._open.popitem(last=False)
