"""Players: registration (returns a bearer token once), the caller's own player and token, lookup."""

from __future__ import annotations

from typing import Annotated

from litestar.di import NamedDependency
from litestar import Controller, Request, delete, get, post
from litestar.params import JSONBody, PathParameter

from service.commands.players import Players, Viewer, bearer
from service.edge.dependencies import viewer_after
from service.edge.desks import Credentials
from service.edge.errors import responses
from service.edge.schemas import Me, NO_NUL, PlayerCreate, PlayerCreated, PlayerOut, no_body, StrictBody
from service.ops.subjects import issued

PlayerId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="player id")]


class PlayerController(Controller):
    path = "/v1/players"
    tags = ["players"]
    dependencies = viewer_after("credentials")

    @post("/", dto=StrictBody[PlayerCreate], return_dto=None,
          operation_id="createPlayer", summary="Register a player", status_code=201,
          description="Creates a player and returns its bearer token. The token is shown only here "
                      "and stored hashed; send it as `Authorization: Bearer <token>`. The name is a display "
                      "name (not unique), kept NFC-normalised and trimmed; one with nothing visible, a control, "
                      "bidi, zero-width or line-separator character is refused (422 `invalid_name`).",
          responses=responses(400, 422))
    async def create(self, request: Request, players: NamedDependency[Players],
                     data: JSONBody[PlayerCreate]) -> PlayerCreated:
        player, token = await players.register(data.name)
        issued(request.scope, token, player.id)  # every replica's budgets know it before the client does
        return PlayerCreated(id=player.id, name=player.name, token=token)

    @get("/me", operation_id="getMe", summary="The caller's player", responses=responses(401),
         security=[{"bearer": []}])
    async def me(self, viewer: NamedDependency[Viewer]) -> Me:
        player = viewer.require_player()
        return Me(id=player.id, name=player.name)

    @post("/me/token", operation_id="rotateToken", summary="A new token; the old one stops working",
          status_code=201, description="Returns a new first token (every scope; shown only here). The token used for "
          "this call, and the previous first token, are revoked: at once on this server, within seconds on every replica; its stream tickets "
          "are refused at once and the streams opened with it or them end within a second, everywhere.",
          responses=responses(401), security=[{"bearer": []}])
    async def rotate(self, request: Request, viewer: NamedDependency[Viewer],
                     credentials: NamedDependency[Credentials]) -> PlayerCreated:
        await no_body(request)
        player = viewer.require_player()
        token = await credentials.players.rotate(player, bearer(request.headers.get("authorization")) or "")
        credentials.revocations.revoked()
        issued(request.scope, token, player.id)
        return PlayerCreated(id=player.id, name=player.name, token=token)

    @delete("/me/token", operation_id="revokeToken", summary="Revoke the caller's token", status_code=204,
            description="The token used for this call stops working (at once here, within seconds everywhere): the "
                        "player's first token (then it has none until it rotates one with another token) or any "
                        "other (a session, a personal or an app's token; docs/accounts.md). Its stream tickets are "
                        "refused at once and its open streams end within a second.",
            responses=responses(401), security=[{"bearer": []}])
    async def revoke(self, request: Request, viewer: NamedDependency[Viewer],
                     credentials: NamedDependency[Credentials]) -> None:
        player = viewer.require_player()
        await credentials.players.revoke(player, bearer(request.headers.get("authorization")) or "")
        credentials.revocations.revoked()

    @get("/{player_id:str}", operation_id="getPlayer", summary="A player's public profile",
         responses=responses(400, 404))
    async def get_one(self, players: NamedDependency[Players], player_id: PlayerId) -> PlayerOut:
        player = await players.get(player_id)
        return PlayerOut(id=player.id, name=player.name, created_at=player.created_at.isoformat())
