"""Read models over HTTP: a player's games, leaderboards per kind, platform statistics.

All three follow the event log within moments (see `GET /readyz` for the lag).
"""

from __future__ import annotations

from typing import Annotated

from litestar.di import NamedDependency
from litestar import Controller, get
from litestar.params import PathParameter, QueryParameter

from projections.queries import Leaderboard, PlatformStats, PlayerGamePage
from service.commands.listings import Listings, leaderboard, player_games
from service.edge.errors import responses
from service.edge.schemas import NO_NUL

Cursor = Annotated[str | None, QueryParameter(max_length=200, pattern=NO_NUL, description="`next_cursor` of the previous page")]
Limit = Annotated[int, QueryParameter(ge=1, le=200)]


class ReadModelController(Controller):
    path = "/v1"

    @get("/players/{player_id:str}/games", operation_id="listPlayerGames", tags=["players"],
         summary="A player's games, newest first, with results",
         description="Every game the player has a seat in: status, seat and, once it ended, score, rank "
                     "and whether the player won. Cursor-paginated.",
         responses=responses(400, 404, 422))
    async def player_games(self, listings: NamedDependency[Listings],
                           player_id: Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="player id")],
                           cursor: Cursor = None, limit: Limit = 50) -> PlayerGamePage:
        return await player_games(listings, player_id, cursor, limit)

    @get("/leaderboards/{kind:str}", operation_id="getLeaderboard", tags=["leaderboards"],
         summary="Ratings of a game kind, best first",
         description="Openskill (Plackett-Luce) ratings updated at the end of each game; `ordinal` "
                     "(mu - 3 sigma) orders the board. Cursor-paginated.",
         responses=responses(400, 404, 422))
    async def leaderboard(self, listings: NamedDependency[Listings],
                          kind: Annotated[str, PathParameter(max_length=32, pattern=NO_NUL, description="game kind")],
                          cursor: Cursor = None, limit: Limit = 50) -> Leaderboard:
        return await leaderboard(listings, kind, cursor, limit)

    @get("/stats", operation_id="getStats", tags=["stats"], summary="Platform statistics",
         description="Games per kind and status, events per day (UTC, newest first) and the average "
                     "length in events and seconds of finished games per kind.",
         responses=responses(400))
    async def stats(self, listings: NamedDependency[Listings],
                    days: Annotated[int, QueryParameter(ge=1, le=3660, description="days of history")] = 30
                    ) -> PlatformStats:
        return await listings.read_models.stats(days)
