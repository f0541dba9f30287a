"""The lists read from the read models, as the routes answer them: the lobby, a player's games and a kind's
leaderboard, each with what the read model cannot know asked first or after (the player or the kind exists;
a sealed duplicate deal's games are left out until the deal opens).

`Listings` names what these reads use, built once by the composition root; the routes call the functions
with it."""

from __future__ import annotations

import msgspec

from projections.queries import GameList, Leaderboard, PlayerGamePage
from service.commands.players import Players
from service.commands.readmodels import ReadModelQueries
from service.commands.repository import GameRepository
from service.commands.sealing import DealSeals


class Listings:
    """What the lists use: the read models' queries, the sealed deals, the players and the game kinds (the
    game repository's tables)."""

    __slots__ = ("read_models", "seals", "players", "repository")

    def __init__(self, *,
                 read_models: ReadModelQueries, seals: DealSeals, players: Players,
                 repository: GameRepository) -> None:
        self.read_models = read_models
        self.seals = seals
        self.players = players
        self.repository = repository


async def games_page(listings: Listings, kind: str | None, status: str | None, player: str | None,
                     open_seats: bool | None, cursor: str | None, limit: int) -> GameList:
    """A page of the lobby, a sealed duplicate deal's games left out."""
    page = await listings.read_models.list_games(kind=kind, status=status, player=player, open_seats=open_seats,
                                                 cursor=cursor, limit=limit)
    sealed = await listings.seals.among([item.id for item in page.items])
    return msgspec.structs.replace(page, items=[i for i in page.items if i.id not in sealed]) if sealed else page


async def player_games(listings: Listings, player_id: str, cursor: str | None, limit: int) -> PlayerGamePage:
    """A page of a player's games (404 for an unknown player), a sealed duplicate deal's games left out."""
    await listings.players.get(player_id)
    page = await listings.read_models.player_games(player_id, cursor, limit)
    sealed = await listings.seals.among([item.game_id for item in page.items])
    return msgspec.structs.replace(page, items=[i for i in page.items if i.game_id not in sealed]) if sealed else page


async def leaderboard(listings: Listings, kind: str, cursor: str | None, limit: int) -> Leaderboard:
    """A page of a hosted kind's ratings (404 for a kind not hosted)."""
    listings.repository.table(kind)
    return await listings.read_models.leaderboard(kind, cursor, limit)
