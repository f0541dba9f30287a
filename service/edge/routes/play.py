"""Playing and reading a game: legal commands, commands, events, export, board picture."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from litestar import Controller, Litestar, Request, Response, get, post
from litestar._asgi.utils import is_valid_host
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, JSONBody, PathParameter, QueryParameter
from litestar.types import ASGIApp, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState

from service.container import Services
from service.edge.dependencies import caller
from service.edge.errors import responses
from service.commands.exceptions import NoPicture
from service.commands.players import Viewer
from service.edge.schemas import CommandEnvelope, CommandRequest, CommandResult, EventPage, LegalOut, NO_NUL, command_body
from service.commands.visibility import look, require_public, require_seat, seat_of, visible, wire

GameId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="game id")]
IdempotencyKey = Annotated[str | None, HeaderParameter(name="Idempotency-Key", max_length=128, required=False,
                                                 description="resending a key returns the first result")]


class PlayController(Controller):
    path = "/v1/games/{game_id:str}"
    tags = ["play"]

    @get("/legal", operation_id="getLegalCommands", summary="The caller's legal commands now",
         description="Every command the caller's seat may send now; each can be posted back unchanged.",
         responses=responses(400, 401, 403, 404))
    async def legal(self, viewer: NamedDependency[Viewer], services: NamedDependency[Services], game_id: GameId) -> LegalOut:
        loaded = await services.repository.load(game_id)
        seat = (await look(services.seals, game_id, loaded.table, loaded.state, viewer)).seat
        commands = loaded.table.legal(loaded.state, seat) if seat is not None else []
        return LegalOut(seat=seat, version=loaded.state.version, commands=msgspec.to_builtins(commands))

    @post("/commands", operation_id="sendCommand", summary="Send a game command", status_code=200,
          description="Decides the command for the caller's seat and appends its events. With "
                      "`expected_version` a stale client gets 409 `version_conflict`; without it the "
                      "server retries on concurrent changes. `?dry_run=true` only validates.",
          responses=responses(400, 401, 403, 404, 409, 422), security=[{"bearer": []}])
    async def command(self, request: Request, viewer: NamedDependency[Viewer], services: NamedDependency[Services],
                      game_id: GameId, data: JSONBody[CommandRequest], idempotency_key: IdempotencyKey = None,
                      dry_run: Annotated[bool, QueryParameter(description=(
                          "validate only: append nothing and reveal nothing (no events; with include=view the "
                          "current view), so a dry run can never peek at a draw or a roll"))] = False,
                      include: Annotated[str | None, QueryParameter(
                          pattern=r"^(view|legal)(,(view|legal))*$", description=(
                              "`view`, `legal` or `view,legal`: also answer with the caller's view and legal "
                              "commands after the command, so a client's step is one request"))] = None,
                      ) -> CommandResult:
        return await send_command(services, viewer, game_id, await command_body(request), idempotency_key, dry_run,
                                  include)

    @get("/events", operation_id="getEvents", summary="The game's events as the caller may see them",
         description="Redacted for the caller while the game runs; the full log after the end. With "
                     "`as_seat=K` after the end: the events exactly as seat K received them during play. "
                     "A duplicate deal stays sealed until its last table ends: until then only the game's own "
                     "seats read it, as their seat and without the revealed seed; others get 403 `deal_sealed`.",
         responses=responses(400, 401, 403, 404))
    async def events(self, viewer: NamedDependency[Viewer], services: NamedDependency[Services], game_id: GameId,
                     after: Annotated[int, QueryParameter(ge=0, le=10_000_000)] = 0,
                     limit: Annotated[int, QueryParameter(ge=1, le=5000)] = 1000,
                     as_seat: Annotated[int | None, QueryParameter(description="replay as this seat")] = None,
                     ) -> EventPage:
        loaded = await services.repository.load(game_id)
        seen = await look(services.seals, game_id, loaded.table, loaded.state, viewer)
        stored = await services.store.read_stream(game_id, after=after, upto=after + limit)
        if as_seat is None:
            return EventPage(version=loaded.state.version, events=visible(loaded.table, stored, seen))
        require_seat(seen, loaded.state, as_seat)
        shown = [wire(loaded.table, e, as_seat, False, seen.sealed) for e in stored]
        return EventPage(version=loaded.state.version, events=[e for e in shown if e is not None])

    @get("/export", operation_id="exportGame", summary="The full log as NDJSON (after the end)",
         description="One JSON object per line with every stored field, including the hash chain and "
                     "metadata; verifiable offline with `stela verify`.",
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="application/x-ndjson",
                                      description="the log"), **responses(400, 401, 403, 404)})
    async def export(self, viewer: NamedDependency[Viewer], services: NamedDependency[Services],
                     game_id: GameId) -> Response[bytes]:
        loaded = await services.repository.load(game_id)
        require_public(await look(services.seals, game_id, loaded.table, loaded.state, viewer))
        stored = await services.store.read_stream(game_id)
        body = b"".join(msgspec.json.encode(e) + b"\n" for e in stored)
        return Response(body, media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{game_id}.ndjson"'})

    @get("/board.svg", operation_id="getBoardPicture", summary="A picture of the board (kinds that draw one)",
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="image/svg+xml", description="SVG"),
                    **responses(400, 401, 403, 404)})
    async def board(self, viewer: NamedDependency[Viewer], services: NamedDependency[Services], game_id: GameId) -> Response[str]:
        loaded = await services.repository.load(game_id)
        seat = (await look(services.seals, game_id, loaded.table, loaded.state, viewer)).seat
        draw = loaded.table.game.board_svg
        if draw is None or loaded.state.game is None:
            raise NoPicture("this game has no board picture (yet)")
        return Response(draw(loaded.state.game, seat), media_type="image/svg+xml")


async def send_command(services: Services, viewer: Viewer, game_id: str, body: CommandEnvelope,
                       idempotency_key: str | None, dry_run: bool, include: str | None) -> CommandResult:
    """One command through the pipeline, answered as `CommandResult` (the route and `CommandFastPath` share it)."""
    try:
        done = await services.pipeline.command(viewer, game_id, body.command, body.expected_version, idempotency_key,
                                               dry_run)
    except Exception as exc:
        services.metrics.command(services.pipeline.repository.kind_of(game_id), type(exc).__name__)
        raise
    state = done.state
    services.metrics.command(state.kind, "dry_run" if dry_run else "accepted")
    wanted = set(include.split(",")) if include else set()
    seat = seat_of(done.table, state, viewer) if wanted else None
    return CommandResult(version=state.version, events=done.shown_to(viewer), status=state.status,
                         to_act=done.table.to_act(state), dry_run=dry_run,
                         view=msgspec.to_builtins(done.table.view(state, seat)) if "view" in wanted else None,
                         legal=[msgspec.to_builtins(c) for c in done.table.legal(state, seat)]
                         if "legal" in wanted and seat is not None else ([] if "legal" in wanted else None))


_envelope = msgspec.json.Decoder(CommandEnvelope)
_encode = msgspec.json.Encoder()
_COMMAND_PATH = re.compile(r"/v1/games/([^/]{1,64})/commands")
_INCLUDE = re.compile(rb"(view|legal)(,(view|legal))*")
_JSON_HEADERS = (b"content-type", b"application/json")


def _query(query: bytes) -> tuple[bool, str | None] | None:
    """`dry_run` and `include` from a query string in their plain spelling; None for anything else."""
    dry_run, include, seen = False, None, set()
    for pair in query.split(b"&") if query else ():
        name, _, value = pair.partition(b"=")
        if name in seen:
            return None
        seen.add(name)
        if name == b"dry_run" and value in (b"true", b"false"):
            dry_run = value == b"true"
        elif name == b"include" and _INCLUDE.fullmatch(value):
            include = value.decode()
        else:
            return None
    return dry_run, include


class CommandFastPath:
    """`POST /v1/games/{id}/commands` answered without the framework's per-request machinery.

    The busiest route is served here from the raw ASGI scope: the body read once and decoded by a
    prebuilt msgspec decoder, the caller and `send_command` as the route would, the result encoded
    once and sent as bytes. Only requests the route would certainly accept as they are take this
    path (the plain path, a declared body length within the limit, at most one of each header, a
    valid envelope, query parameters in their plain spelling); anything else, and every request
    while the services are not up, goes to the router unchanged, with whatever body was already
    read handed on. Exceptions leave through the app's exception handlers as the route's do, and
    the scope carries the route handler and path template the router would have set, so logs,
    metrics and problem details cannot tell the two paths apart (tests/service/test_fast_path.py).
    """

    def __init__(self, app: Litestar, router: ASGIApp, services: Callable[[], Services | None]) -> None:
        self.services = services  # the process's services once started (injected: routes never read app state)
        self.router = router
        _, self.handler, _, _, self.template = app.asgi_router.handle_routing(
            path="/v1/games/id/commands", method="POST")
        self.exception_handlers = self.handler.resolve_exception_handlers()
        self.max_body = self.handler.resolve_request_max_body_size() or math.inf

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = _COMMAND_PATH.fullmatch(scope["path"]) if scope["type"] == "http" else None
        if match is None or scope["method"] != "POST" or scope.get("root_path"):
            await self.router(scope, receive, send)
            return
        services = self.services()
        query = _query(scope.get("query_string", b""))
        headers: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:
            if name in headers and name in _COUNTED:
                query = None  # a repeated header: the framework decides what it means
            headers[name] = value
        length = headers.get(b"content-length", b"")
        key = headers.get(b"idempotency-key")
        if (services is None or query is None or not length.isdigit() or int(length) > self.max_body
                or b"transfer-encoding" in headers or (key is not None and not 0 < len(key) <= 128)
                or not is_valid_host(headers.get(b"host", b""))):
            await self.router(scope, receive, send)
            return
        received = []
        while True:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(m.get("body", b"") for m in received)
        envelope = None
        if message["type"] == "http.request" and len(body) <= self.max_body:
            try:
                envelope = _envelope.decode(body)
            except (msgspec.ValidationError, msgspec.DecodeError):
                pass
        if envelope is None or bytes(memoryview(envelope.command)[:1]) != b"{":
            await self.router(scope, _replay(received, receive), send)
            return
        scope["route_handler"] = self.handler
        scope["path_template"] = self.template
        scope["path_params"] = {"game_id": match[1]}
        ScopeState.from_scope(scope).exception_handlers = self.exception_handlers
        authorization = headers.get(b"authorization")
        viewer = await caller(services, authorization.decode("latin-1") if authorization is not None else None,
                              scope)
        result = await send_command(services, viewer, match[1], envelope,
                                    key.decode("latin-1") if key is not None else None, *query)
        content = _encode.encode(result)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [_JSON_HEADERS, (b"content-length", str(len(content)).encode())]})
        await send({"type": "http.response.body", "body": content, "more_body": False})


_COUNTED = frozenset({b"authorization", b"idempotency-key", b"content-length", b"host", b"transfer-encoding"})


def _replay(received: list[Any], receive: Receive) -> Receive:
    """`receive`, first giving back the messages already taken from it."""
    pending = list(received)

    async def again() -> Any:
        return pending.pop(0) if pending else await receive()

    return again
