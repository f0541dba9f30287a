"""The query side of the read models, in one object the service holds: `ReadModels(pool)`.

Each query lives beside its model's tables (games, history, ratings, stats, tournaments);
this module only binds them to a pool and re-exports their page types. Pages
are newest (or best) first with opaque keyset cursors, so a page never repeats
or skips a row when games are added meanwhile; invalid cursors raise
`BadCursor`, which the service maps to a 422 problem.
"""

from __future__ import annotations

from typing import Any

from projections import games, history, ratings, stats, tournaments
from projections.base import ensure_tables
from projections.catalog import select
from projections.games import GameItem, GameList, Seat
from projections.history import PlayerGame, PlayerGamePage
from projections.pages import BadCursor, decode_cursor, encode_cursor
from projections.ratings import Leaderboard, Rating
from projections.stats import DayEvents, GameLength, KindStatus, PlatformStats
from projections.tournaments import TournamentItem, TournamentPage

__all__ = ["BadCursor", "DayEvents", "GameItem", "GameLength", "GameList", "KindStatus", "Leaderboard",
           "PlatformStats", "PlayerGame", "PlayerGamePage", "Rating", "ReadModels", "Seat", "TournamentItem",
           "TournamentPage", "decode_cursor", "encode_cursor"]


class ReadModels:
    """Queries over the read-model tables on an asyncpg pool."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    async def start(self) -> None:
        """Create the read-model tables if the projector has not yet (so queries work from the start)."""
        async with self.pool.acquire() as conn:
            await ensure_tables(conn, select(None))

    async def list_games(self, kind: str | None = None, status: str | None = None, player: str | None = None,
                         open_seats: bool | None = None, cursor: str | None = None, limit: int = 50) -> GameList:
        return await games.list_games(self.pool, kind=kind, status=status, player=player, open_seats=open_seats,
                                      cursor=cursor, limit=limit)

    async def player_games(self, player_id: str, cursor: str | None = None, limit: int = 50) -> PlayerGamePage:
        return await history.player_games(self.pool, player_id, cursor, limit)

    async def leaderboard(self, kind: str, cursor: str | None = None, limit: int = 50) -> Leaderboard:
        return await ratings.leaderboard(self.pool, kind, cursor, limit)

    async def list_tournaments(self, status: str | None = None, kind: str | None = None, cursor: str | None = None,
                               limit: int = 50) -> TournamentPage:
        return await tournaments.list_tournaments(self.pool, status, kind, cursor, limit)

    async def stats(self, days: int = 30) -> PlatformStats:
        return await stats.platform_stats(self.pool, days)
