"""Games: create, list, read, join, leave, start, and the state at any version.

Create, join, leave and start honour `Idempotency-Key` like commands do: a resent key gets the
first result (or refusal) again, marked `Idempotent-Replayed: true`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar.di import NamedDependency
from litestar import Controller, Request, Response, get, post
from litestar.params import HeaderParameter, JSONBody, PathParameter, QueryParameter

from projections.queries import GameList
from service.commands.game_queries import GameQueries, current, past_game
from service.commands.listings import Listings, games_page
from service.edge.dependencies import viewer_after
from service.edge.desks import Lobby
from service.edge.errors import responses
from service.edge.routes.play import Encoded, MinVersion
from service.commands.pipeline import Outcome
from service.commands.players import Viewer
from service.commands.views import GameOut
from service.edge.schemas import GameCreate, JoinRequest, NO_NUL, no_body, StrictBody
from service.commands.views import game_out
from service.commands.visibility import look

_encode = msgspec.json.Encoder()

REPLAYED = {"Idempotent-Replayed": "true"}


def replayed(done: Outcome) -> dict[str, str] | None:
    """The response headers that mark `done` as the first result of a resent Idempotency-Key."""
    return REPLAYED if done.replayed else None


GameId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="game id")]
Key = Annotated[str | None, HeaderParameter(name="Idempotency-Key", max_length=128, required=False,
                                            description="resending a key returns the first result")]


class GameController(Controller):
    path = "/v1/games"
    tags = ["games"]
    dependencies = viewer_after("lobby")  # the reads take the viewer after their `queries` (viewer_after)

    @post("/", dto=StrictBody[GameCreate], return_dto=None,
          operation_id="createGame", summary="Create a game", status_code=201,
          description="Creates a game of `kind` with `seats` seats and `options` (see the kind's "
                      "`options_schema`). The creator takes the first seat unless `join` is false; `bots` "
                      "fill the next seats with bots. The response carries `Location`.",
          responses=responses(400, 401, 404, 409, 422), security=[{"bearer": []}])
    async def create(self, viewer: NamedDependency[Viewer], lobby: NamedDependency[Lobby],
                     data: JSONBody[GameCreate], idempotency_key: Key = None) -> Response[GameOut]:
        lobby.bots.fits(data.bots, data.seats - data.join)
        done = await lobby.pipeline.create(viewer, data.kind, data.options, data.seats, data.join,
                                           data.time_control, idempotency_key)
        game_id = done.game_id
        if data.bots and not done.replayed:
            done = await lobby.bots.seat(game_id, data.bots) or done
        out = game_out(game_id, done.table, done.state, viewer)
        return Response(out, status_code=201, headers={"Location": f"/v1/games/{game_id}", **(replayed(done) or {})})

    @get("/", operation_id="listGames", summary="List games (lobby, filters, cursor pagination)",
         description="Backed by the game-list read model, which follows the event log within moments.",
         responses=responses(400, 422))
    async def list_games(
        self, listings: NamedDependency[Listings],
        kind: Annotated[str | None, QueryParameter(max_length=32, pattern=NO_NUL)] = None,
        status: Annotated[Literal["open", "active", "finished", "aborted"] | None, QueryParameter()] = None,
        player: Annotated[str | None, QueryParameter(max_length=64, pattern=NO_NUL)] = None,
        open_seats: Annotated[bool | None, QueryParameter(description="only games with a free seat")] = None,
        cursor: Annotated[str | None, QueryParameter(max_length=200, pattern=NO_NUL)] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    ) -> GameList:
        return await games_page(listings, kind, status, player, open_seats, cursor, limit)

    @get("/{game_id:str}", operation_id="getGame", summary="A game as the caller sees it",
         description="Seated players get their seat's view, everyone else the spectator view. "
                     "`to_act` lists the seats that must act now. A game of a duplicate deal still being "
                     "played at another table is shown only to its own seats (403 `deal_sealed`). Answered "
                     "from this replica's cache when it knows the game is current there; `min_version` asks "
                     "for a state at least that new.",
         responses=responses(400, 401, 403, 404), dependencies=viewer_after("queries"))
    async def get_game(self, viewer: NamedDependency[Viewer], queries: NamedDependency[GameQueries], game_id: GameId,
                       min_version: MinVersion = None) -> Response[GameOut]:
        loaded = await current(queries, game_id, min_version)
        seat = (await look(queries.seals, game_id, loaded.table, loaded.state, viewer)).seat
        shown = queries.answers.get(game_id, loaded.state.version, ("game", seat),
                                    lambda: _encode.encode(game_out(game_id, loaded.table, loaded.state, viewer)))
        return Encoded(shown, [])

    @post("/{game_id:str}/join", dto=StrictBody[JoinRequest], return_dto=None,
          operation_id="joinGame", summary="Take a seat", status_code=200,
          responses=responses(400, 401, 404, 409, 422), security=[{"bearer": []}])
    async def join(self, viewer: NamedDependency[Viewer], lobby: NamedDependency[Lobby], game_id: GameId,
                   data: JSONBody[JoinRequest], idempotency_key: Key = None) -> Response[GameOut]:
        done = await lobby.pipeline.join(viewer, game_id, data.seat, idempotency_key)
        return Response(game_out(game_id, done.table, done.state, viewer), headers=replayed(done))

    @post("/{game_id:str}/leave", operation_id="leaveGame", summary="Give up one's seat before the start",
          status_code=200, description="Only before the start (409 `table.not_open` after it); 403 "
          "`not_seated` without a seat. A running game is left with the `table.Resign` command.",
          responses=responses(400, 401, 403, 404, 409, 422), security=[{"bearer": []}])
    async def leave(self, request: Request, viewer: NamedDependency[Viewer], lobby: NamedDependency[Lobby],
                    game_id: GameId, idempotency_key: Key = None) -> Response[GameOut]:
        await no_body(request)
        done = await lobby.pipeline.leave(viewer, game_id, idempotency_key)
        return Response(game_out(game_id, done.table, done.state, viewer), headers=replayed(done))

    @post("/{game_id:str}/start", operation_id="startGame", summary="Start a full game", status_code=200,
          description="By a seated player or the creator; anyone else gets 403 `not_seated`.",
          responses=responses(400, 401, 403, 404, 409, 422), security=[{"bearer": []}])
    async def start(self, request: Request, viewer: NamedDependency[Viewer], lobby: NamedDependency[Lobby],
                    game_id: GameId, idempotency_key: Key = None) -> Response[GameOut]:
        await no_body(request)
        done = await lobby.pipeline.start(viewer, game_id, idempotency_key)
        return Response(game_out(game_id, done.table, done.state, viewer), headers=replayed(done))

    @get("/{game_id:str}/versions/{version:int}", operation_id="getGameAtVersion",
         summary="The game at a past version",
         description="While the game runs, the caller's own view; after the end anyone may pass `seat` "
                     "to see exactly what that seat saw.",
         responses=responses(400, 401, 403, 404), dependencies=viewer_after("queries"))
    async def at_version(self, viewer: NamedDependency[Viewer], queries: NamedDependency[GameQueries], game_id: GameId,
                         version: Annotated[int, PathParameter(ge=1, le=10_000_000)],
                         seat: Annotated[int | None, QueryParameter(description="replay as this seat")] = None) -> GameOut:
        return await past_game(queries, viewer, game_id, version, seat)
