"""Players: registration (returns a bearer token once) and lookup."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Request, get, post
from litestar.params import JSONBody, PathParameter

from service.errors import Problem, responses
from service.schemas import PlayerCreate, PlayerCreated, PlayerOut, strictly

PlayerId = Annotated[str, PathParameter(max_length=64, description="player id")]


class PlayerController(Controller):
    path = "/v1/players"
    tags = ["players"]

    @post("/", operation_id="createPlayer", summary="Register a player", status_code=201,
          description="Creates a player and returns its bearer token. The token is shown only here "
                      "and stored hashed; send it as `Authorization: Bearer <token>`.",
          responses=responses(400, 429))
    async def create(self, request: Request, data: JSONBody[PlayerCreate]) -> PlayerCreated:
        data = await strictly(request, PlayerCreate)
        player, token = await request.app.state.service.register(data.name)
        return PlayerCreated(id=player.id, name=player.name, token=token)

    @get("/{player_id:str}", operation_id="getPlayer", summary="A player's public profile",
         responses=responses(400, 404))
    async def get_one(self, request: Request, player_id: PlayerId) -> PlayerOut:
        player = await request.app.state.service.store.get_player(player_id)
        if player is None:
            raise Problem(404, "player_not_found", f"no player with id {player_id!r}")
        return PlayerOut(id=player.id, name=player.name, created_at=player.created_at.isoformat())
