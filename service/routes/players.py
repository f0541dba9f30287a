"""Players: registration (returns a bearer token once) and lookup."""

from __future__ import annotations

from typing import Annotated

from litestar.di import NamedDependency
from litestar import Controller, Request, get, post
from litestar.params import JSONBody, PathParameter

from service.container import Services
from service.errors import responses
from service.players import Players
from service.schemas import PlayerCreate, PlayerCreated, PlayerOut, strictly

PlayerId = Annotated[str, PathParameter(max_length=64, description="player id")]


class PlayerController(Controller):
    path = "/v1/players"
    tags = ["players"]

    @post("/", operation_id="createPlayer", summary="Register a player", status_code=201,
          description="Creates a player and returns its bearer token. The token is shown only here "
                      "and stored hashed; send it as `Authorization: Bearer <token>`.",
          responses=responses(400, 429))
    async def create(self, services: NamedDependency[Services], request: Request, data: JSONBody[PlayerCreate]) -> PlayerCreated:
        data = await strictly(request, PlayerCreate)
        player, token = await services.players.register(data.name)
        return PlayerCreated(id=player.id, name=player.name, token=token)

    @get("/{player_id:str}", operation_id="getPlayer", summary="A player's public profile",
         responses=responses(400, 404))
    async def get_one(self, services: NamedDependency[Services], player_id: PlayerId) -> PlayerOut:
        player = await services.players.get(player_id)
        return PlayerOut(id=player.id, name=player.name, created_at=player.created_at.isoformat())
