"""Playing and reading a game: legal commands, commands, events, SSE stream, export, board picture."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, JSONBody, PathParameter, QueryParameter
from litestar.response import Stream

from service.auth import provide_viewer
from service.errors import Problem, responses
from service.handling import GameService, Viewer, require_admin_or_over
from service.schemas import CommandRequest, CommandResult, EventPage, LegalOut, strictly
from service.sse import game_stream

GameId = Annotated[str, PathParameter(max_length=64, description="game id")]
IdempotencyKey = Annotated[str | None, HeaderParameter(name="Idempotency-Key", max_length=128, required=False,
                                                 description="resending a key returns the first result")]
LastEventId = Annotated[str | None, HeaderParameter(name="Last-Event-ID", max_length=20, required=False,
                                              description="resume after this stream version")]
SSE_DOC = ("`text/event-stream`. First `event: snapshot` (data: the game as in getGame, id: its version), "
           "then one message per event the caller may see: `event: <type>`, `id: <stream version>`, "
           "data: `{version, type, data, at}`. Comment lines (`: heartbeat`) keep the connection alive. "
           "Reconnect with `Last-Event-ID` to receive exactly the events after that version.")


class PlayController(Controller):
    path = "/v1/games/{game_id:str}"
    tags = ["play"]
    dependencies = {"viewer": Provide(provide_viewer)}

    @get("/legal", operation_id="getLegalCommands", summary="The caller's legal commands now",
         description="Every command the caller's seat may send now; each can be posted back unchanged.",
         responses=responses(400, 401, 404))
    async def legal(self, request: Request, viewer: NamedDependency[Viewer], game_id: GameId) -> LegalOut:
        service: GameService = request.app.state.service
        loaded = await service.load(game_id)
        seat = service.seat_for(loaded.table, loaded.state, viewer)
        commands = loaded.table.legal(loaded.state, seat) if seat is not None else []
        return LegalOut(seat=seat, version=loaded.state.version, commands=msgspec.to_builtins(commands))

    @post("/commands", operation_id="sendCommand", summary="Send a game command", status_code=200,
          description="Decides the command for the caller's seat and appends its events. With "
                      "`expected_version` a stale client gets 409 `version_conflict`; without it the "
                      "server retries on concurrent changes. `?dry_run=true` only validates.",
          responses=responses(400, 401, 403, 404, 409, 422), security=[{"bearer": []}])
    async def command(self, request: Request, viewer: NamedDependency[Viewer], game_id: GameId, data: JSONBody[CommandRequest],
                      idempotency_key: IdempotencyKey = None, dry_run: Annotated[bool, QueryParameter(description="validate only, append nothing")] = False) -> CommandResult:
        service: GameService = request.app.state.service
        data = await strictly(request, CommandRequest)
        counter = request.app.state.metrics.commands
        try:
            state, events = await service.command(viewer, game_id, data.command, data.expected_version,
                                                  idempotency_key, dry_run)
        except Exception as exc:
            counter.labels(service.kind_of(game_id), type(exc).__name__).inc()
            raise
        table = service.tables[state.kind]
        counter.labels(state.kind, "dry_run" if dry_run else "accepted").inc()
        return CommandResult(version=state.version, events=events, status=state.status,
                             to_act=table.to_act(state), dry_run=dry_run)

    @get("/events", operation_id="getEvents", summary="The game's events as the caller may see them",
         description="Redacted for the caller while the game runs; the full log after the end. With "
                     "`as_seat=K` after the end: the events exactly as seat K received them during play.",
         responses=responses(400, 401, 403, 404))
    async def events(self, request: Request, viewer: NamedDependency[Viewer], game_id: GameId,
                     after: Annotated[int, QueryParameter(ge=0, le=10_000_000)] = 0,
                     limit: Annotated[int, QueryParameter(ge=1, le=5000)] = 1000,
                     as_seat: Annotated[int | None, QueryParameter(description="replay as this seat")] = None,
                     ) -> EventPage:
        service: GameService = request.app.state.service
        loaded = await service.load(game_id)
        stored = await service.store.read_stream(game_id, after=after, upto=after + limit)
        if as_seat is None:
            return EventPage(version=loaded.state.version,
                             events=service.visible(loaded.table, loaded.state, stored, viewer))
        own = service.seat_for(loaded.table, loaded.state, viewer)
        if own != as_seat and not service.is_public(loaded.state, viewer):
            raise Problem(403, "game_running", "another seat's stream is public only after the end")
        if not 0 <= as_seat < loaded.state.seat_count:
            raise Problem(404, "no_such_seat", f"the game has seats 0..{loaded.state.seat_count - 1}")
        shown = [service.wire(loaded.table, e, as_seat, False) for e in stored]
        return EventPage(version=loaded.state.version, events=[e for e in shown if e is not None])

    @get("/stream", operation_id="streamGame", summary="Live events (Server-Sent Events)", description=SSE_DOC,
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="text/event-stream",
                                      description="an event stream"), **responses(400, 401, 404)})
    async def stream(self, request: Request, viewer: NamedDependency[Viewer], game_id: GameId,
                     last_event_id: LastEventId = None) -> Stream:
        service: GameService = request.app.state.service
        loaded = await service.load(game_id)  # 404 before the stream starts
        try:
            resume = int(last_event_id) if last_event_id else None
        except ValueError as exc:
            raise Problem(400, "bad_last_event_id", "Last-Event-ID must be a stream version") from exc
        if resume is not None and not 0 <= resume <= loaded.state.version:
            raise Problem(400, "bad_last_event_id", f"Last-Event-ID must be a version in 0..{loaded.state.version}")
        settings = request.app.state.settings
        body = game_stream(service, game_id, viewer, resume, settings.heartbeat_seconds,
                           closing=request.app.state.closing)
        return Stream(body, media_type="text/event-stream",
                      headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @get("/export", operation_id="exportGame", summary="The full log as NDJSON (after the end)",
         description="One JSON object per line with every stored field, including the hash chain and "
                     "metadata; verifiable offline with `stela verify`.",
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="application/x-ndjson",
                                      description="the log"), **responses(400, 401, 403, 404)})
    async def export(self, request: Request, viewer: NamedDependency[Viewer], game_id: GameId) -> Response[bytes]:
        service: GameService = request.app.state.service
        loaded = await service.load(game_id)
        require_admin_or_over(loaded.state, viewer)
        stored = await service.store.read_stream(game_id)
        body = b"".join(msgspec.json.encode(e) + b"\n" for e in stored)
        return Response(body, media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{game_id}.ndjson"'})

    @get("/board.svg", operation_id="getBoardPicture", summary="A picture of the board (kinds that draw one)",
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="image/svg+xml", description="SVG"),
                    **responses(400, 401, 404)})
    async def board(self, request: Request, viewer: NamedDependency[Viewer], game_id: GameId) -> Response[str]:
        service: GameService = request.app.state.service
        loaded = await service.load(game_id)
        draw = getattr(loaded.table.game, "board_svg", None)
        if draw is None or loaded.state.game is None:
            raise Problem(404, "no_picture", "this game has no board picture (yet)")
        seat = service.seat_for(loaded.table, loaded.state, viewer)
        return Response(draw(loaded.state.game, seat), media_type="image/svg+xml")
