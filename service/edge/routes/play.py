"""Playing and reading a game: legal commands, commands, events, export, board picture."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.handlers import HTTPRouteHandler
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, JSONBody, PathParameter, QueryParameter
from litestar.types import ASGIApp, Receive, Scope, Send

from service.commands.game_queries import EventPage, GameQueries, board_picture, current, event_page, export
from service.commands.pipeline import Outcome
from service.edge.dependencies import VIEWER, authorization, caller, viewer_after, viewer_of
from service.edge.desks import Play
from service.edge.errors import responses
from service.commands.players import Viewer
from service.edge.schemas import CommandBody, CommandEnvelope, CommandResult, LegalOut, NO_NUL
from service.commands.views import legal_list
from service.commands.visibility import look, seat_of

GameId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="game id")]
MinVersion = Annotated[int | None, QueryParameter(ge=1, le=10_000_000, required=False, description=(
    "answer from a state at least this new (read from the database when the cache is older)"))]
IdempotencyKey = Annotated[str | None, HeaderParameter(name="Idempotency-Key", max_length=128, required=False,
                                                 description="resending a key returns the first result")]


class PlayController(Controller):
    path = "/v1/games/{game_id:str}"
    tags = ["play"]
    dependencies = viewer_after("queries")

    @get("/events", operation_id="getEvents", summary="The game's events as the caller may see them",
         description="Redacted for the caller while the game runs; the full log after the end. With "
                     "`as_seat=K` after the end: the events exactly as seat K received them during play. "
                     "A duplicate deal stays sealed until its last table ends: until then only the game's own "
                     "seats read it, as their seat and without the revealed seed; others get 403 `deal_sealed`.",
         responses=responses(400, 401, 403, 404))
    async def events(self, viewer: NamedDependency[Viewer], queries: NamedDependency[GameQueries], game_id: GameId,
                     after: Annotated[int, QueryParameter(ge=0, le=10_000_000)] = 0,
                     limit: Annotated[int, QueryParameter(ge=1, le=5000)] = 1000,
                     as_seat: Annotated[int | None, QueryParameter(description="replay as this seat")] = None,
                     ) -> EventPage:
        return await event_page(queries, viewer, game_id, after, limit, as_seat)

    @get("/export", operation_id="exportGame", summary="The full log as NDJSON (after the end)",
         description="One JSON object per line with every stored field, including the hash chain and "
                     "metadata; verifiable offline with `stela verify`.",
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="application/x-ndjson",
                                      description="the log"), **responses(400, 401, 403, 404)})
    async def export(self, viewer: NamedDependency[Viewer], queries: NamedDependency[GameQueries],
                     game_id: GameId) -> Response[bytes]:
        return Response(await export(queries, viewer, game_id), media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{game_id}.ndjson"'})

    @get("/board.svg", operation_id="getBoardPicture", summary="A picture of the board (kinds that draw one)",
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="image/svg+xml", description="SVG"),
                    **responses(400, 401, 403, 404)})
    async def board(self, viewer: NamedDependency[Viewer], queries: NamedDependency[GameQueries],
                    game_id: GameId) -> Response[str]:
        return Response(await board_picture(queries, viewer, game_id), media_type="image/svg+xml")


_encode = msgspec.json.Encoder()


class Encoded(Response[bytes]):
    """A JSON body encoded already, sent as two ASGI messages.

    `Response.to_asgi_response` builds a mutable header set, merges the route's layered headers
    and cookies and encodes them again for every request; the command route has none of those, so
    it answers with the bytes, the length and, for a replay, the one header that marks it.
    """

    def __init__(self, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:  # (no Response.__init__: nothing to merge)
        self.body, self.extra = body, headers

    def to_asgi_response(self, app: Any, request: Any, **_: Any) -> ASGIApp:  # type: ignore[override]
        return self.send

    async def send(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [
            _JSON, (b"content-length", str(len(self.body)).encode()), *self.extra]})
        await send({"type": "http.response.body", "body": self.body})


_JSON = (b"content-type", b"application/json")
_REPLAYED = [(b"idempotent-replayed", b"true")]


def legal_route(play: Callable[[], Play]) -> HTTPRouteHandler:
    """`GET /v1/games/{game_id}/legal`, answered with the process's `play()`: like the command
    route (see `command_route`) it takes no dependencies, for it is half of every client's step."""

    @get("/v1/games/{game_id:str}/legal", operation_id="getLegalCommands", summary="The caller's legal commands now",
         tags=["play"],
         description="Every command the caller's seat may send now; each can be posted back unchanged. "
                     "Answered from this replica's cache when it knows the game is current there (no query); "
                     "`min_version` asks for a state at least that new (say, the version a stream frame "
                     "announced), read from the database if the cache is older.",
         responses=responses(400, 401, 403, 404))
    async def legal(request: Request, game_id: GameId, min_version: MinVersion = None) -> Response[LegalOut]:
        scope = request.scope
        return Encoded(await legal_body(play(), scope, authorization(scope), game_id, min_version), [])

    return legal


async def legal_body(play: Play, scope: Any, token: str | None, game_id: str, min_version: int | None) -> bytes:
    """The legal route's answer, encoded (once per seat and version: the queries' `answers`)."""
    viewer = await caller(play.players, token, scope)
    queries = play.queries
    loaded = await current(queries, game_id, min_version)
    seat = (await look(queries.seals, game_id, loaded.table, loaded.state, viewer)).seat
    version = loaded.state.version

    def listed() -> bytes:
        commands = legal_list(queries.answers, game_id, loaded.table, loaded.state, seat)
        return _encode.encode(LegalOut(seat=seat, version=version, commands=commands))

    return queries.answers.get(game_id, version, ("legal", seat), listed)


def command_route(play: Callable[[], Play]) -> HTTPRouteHandler:
    """`POST /v1/games/{game_id}/commands`, answered with the process's `play()`.

    The busiest route takes no dependencies: Litestar resolves each one through its dependency
    machinery on every request (a sync `services` alone cost a command ~35 µs, bench.entrance), so
    what it uses is bound here by the app and the caller is the one the app's before-request hook found from
    the raw `Authorization` header before the body was decoded (`dependencies.authenticator`, the players'
    token cache). The body goes through `CommandBody` (decoded once, documented as `CommandRequest`) and the
    answer is encoded once (`Encoded`).
    """

    @post("/v1/games/{game_id:str}/commands", operation_id="sendCommand", summary="Send a game command",
          status_code=200, tags=["play"],
          description="Decides the command for the caller's seat and appends its events. With "
                      "`expected_version` a stale client gets 409 `version_conflict`; without it the "
                      "server retries on concurrent changes. `?dry_run=true` only validates.",
          responses=responses(400, 401, 403, 404, 409, 422), security=[{"bearer": []}],
          dto=CommandBody, return_dto=None, opt={VIEWER: True})
    async def command(request: Request, game_id: GameId, data: JSONBody[CommandEnvelope],
                      idempotency_key: IdempotencyKey = None,
                      dry_run: Annotated[bool, QueryParameter(description=(
                          "validate only: append nothing and reveal nothing (no events; with include=view the "
                          "current view), so a dry run can never peek at a draw or a roll"))] = False,
                      include: Annotated[str | None, QueryParameter(
                          pattern=r"^(view|legal)(,(view|legal))*$", description=(
                              "`view`, `legal` or `view,legal`: also answer with the caller's view and legal "
                              "commands after the command, so a client's step is one request"))] = None,
                      ) -> Response[CommandResult]:
        scope = request.scope
        body, replayed = await command_body(play(), viewer_of(scope), game_id, data, idempotency_key, dry_run, include)
        return Encoded(body, _REPLAYED if replayed else [])

    return command


async def command_body(play: Play, viewer: Viewer, game_id: str, body: CommandEnvelope,
                       idempotency_key: str | None, dry_run: bool, include: str | None) -> tuple[bytes, bool]:
    """The command route's answer, encoded, and whether it is a resent key's first result (the caller was
    resolved by the app's before-request hook, before the body was decoded)."""
    done, result = await send_command(play, viewer, game_id, body, idempotency_key, dry_run, include)
    return _encode.encode(result), done.replayed


async def send_command(play: Play, viewer: Viewer, game_id: str, body: CommandEnvelope,
                       idempotency_key: str | None, dry_run: bool, include: str | None
                       ) -> tuple[Outcome, CommandResult]:
    """One command through the pipeline: its outcome and the answer, `CommandResult`."""
    try:
        done = await play.pipeline.command(viewer, game_id, body.command, body.expected_version, idempotency_key,
                                           dry_run)
    except Exception as exc:
        play.metrics.command(play.pipeline.repository.kind_of(game_id), type(exc).__name__)
        raise
    state = done.state
    play.metrics.command(state.kind, "dry_run" if dry_run else "accepted")
    wanted = set(include.split(",")) if include else set()
    seat = seat_of(done.table, state, viewer) if wanted else None
    return done, CommandResult(
        version=state.version, events=done.shown_to(viewer), status=state.status, to_act=done.table.to_act(state),
        dry_run=dry_run, view=done.table.view(state, seat) if "view" in wanted else None,
        legal=legal_list(play.queries.answers, game_id, done.table, state, seat) if "legal" in wanted else None)
