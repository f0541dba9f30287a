"""Live streams: a game's SSE stream, the personal stream, the multiplexed stream (several games and the
personal notices on one connection; its protocol is docs/streams.md), and the tickets a browser opens them with.

A browser's `EventSource` cannot send `Authorization`, so a player first asks (with its bearer
token) for a short-lived, read-only ticket scoped to one stream and passes it as `?ticket=`;
bearer tokens never go into URLs. A bad, expired or foreign ticket is a 401 before the stream
starts, and so is a ticket whose token was revoked or rotated since; a stream a player opened
(with a ticket or a bearer token) ends within a second of that token's revocation or rotation,
on any replica (`service.live.revocation`).
"""

from __future__ import annotations

import asyncio
import functools
from datetime import UTC, datetime
from typing import Annotated, Literal

import msgspec
from litestar import Controller, Request, get, post
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, PathParameter, QueryParameter
from litestar.response import Stream

from service.edge.dependencies import viewer_after
from service.edge.desks import Live
from service.edge.errors import responses
from service.commands.exceptions import BadLastEventId, InvalidRequest, PlayerNotFound
from service.commands.players import Viewer, bearer
from service.live.revocation import StreamEnd
from service.store.protocol import token_hash
from service.edge.schemas import NO_NUL, no_body
from service.live.sse import LiveStream, game_stream
from service.commands.visibility import look
from service.live.multiplex import Multiplexed, Request as MultiplexRequest, with_commands
from service.live.multiplex_frames import ID_MAX, parse_after, parse_games, parse_id
from service.live.tickets import MULTIPLEXED, InvalidTicket

GameId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="game id")]
LastEventId = Annotated[str | None, HeaderParameter(name="Last-Event-ID", max_length=20, required=False,
                                                    description="resume after this id")]
Ticket = Annotated[str | None, QueryParameter(max_length=512, pattern=NO_NUL, required=False,
                                              description="a stream ticket (for EventSource, which cannot send "
                                                          "Authorization); never a bearer token")]
FramesParam = Annotated[Literal["named", "message"], QueryParameter(
    description="`named` (default): each frame has an `event:` line; `message`: every frame is a default "
                "`message` event whose data carries its `type`")]
GamesParam = Annotated[str | None, QueryParameter(
    max_length=8192, pattern=NO_NUL, required=False,
    description="the games to follow, comma-separated ids (at most STELA_STREAM_MAX_GAMES, default 32); their order "
                "is the order of the positions in the SSE id")]
AfterParam = Annotated[str | None, QueryParameter(
    max_length=8192, pattern=NO_NUL, required=False,
    description="explicit resume positions `<game id>:<version>,...` (ignored when Last-Event-ID is sent)")]
PersonalAfter = Annotated[int | None, QueryParameter(
    ge=0, required=False, description="explicit resume cursor of the personal notices (ignored when "
                                      "Last-Event-ID is sent)")]
PersonalParam = Annotated[bool, QueryParameter(
    description="also send the caller's personal notices (game.state, game.started, game.your_turn, game.ended)")]
LegalParam = Annotated[bool, QueryParameter(
    description="`turn` frames, and personal notices, that say it is the viewer's turn carry its legal commands; "
                "on the multiplexed stream every `turn` frame also carries `view`, the viewer's view at its version")]
PositionsId = Annotated[str | None, HeaderParameter(
    name="Last-Event-ID", max_length=ID_MAX, required=False,
    description="resume every game and the personal notices after these positions (an id this stream sent)")]
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
SSE_RESPONSE = ResponseSpec(generate_examples=False, data_container=str, media_type="text/event-stream",
                            description="an event stream")
GAME_SSE_DOC = (
    "`text/event-stream`. First the game as in getGame (id: its version), then one frame per event the "
    "viewer may see, `id: <stream version>`, data `{version, type, data, at}`. Default frames are named "
    "(`event: snapshot`, `event: <event type>`); with `frames=message` every frame is a default `message` "
    "event and the snapshot's data is `{\"type\": \"snapshot\", \"game\": <the game>}`. Comment lines "
    "(`: heartbeat`) keep the connection alive. Reconnect with `Last-Event-ID` to receive exactly the events "
    "after that version. The viewer is the `?ticket=` holder (see createGameStreamTicket), else the bearer "
    "token's player, else a spectator.")
PERSONAL_SSE_DOC = (
    "`text/event-stream` of the caller's games (bearer token, or `?ticket=` from createPersonalStreamTicket). "
    "Every frame is a default `message` event with data `{type, game_id, kind, status, version, to_act, "
    "your_turn, outcome?}`, `type` one of `game.state` (on connect: each open or active game; and a game "
    "joined later), `game.started`, `game.your_turn` (the caller's seat must act now), `game.ended`. The "
    "`id` is a cursor (milliseconds of the newest event reflected); reconnecting with `Last-Event-ID` "
    "re-announces the state of every open or active game and of every game that ended since then. With "
    "`legal=true` a notice with `your_turn: true` also carries `commands`, the seat's legal commands at its "
    "`version`.")

MULTIPLEXED_SSE_DOC = (
    "`text/event-stream` of several games (`games`, at most 32) and, with `personal=true`, the caller's personal "
    "notices, on one connection: the protocol is docs/streams.md. Every frame is a default `message` event whose "
    "data has a `type`: `snapshot` `{game_id, game}`, `event` `{game_id, event}`, `turn` `{game_id, version, status, "
    "to_act, your_seat, your_turn, commands?, view?}` (after each game's catch-up and each batch of its events; "
    "`commands`, the seat's legal commands, with `legal=true` when it is its turn; `view`, the viewer's view "
    "then, with `legal=true`), the personal notices "
    "(`game.*`), `ready` once everything has caught up, and `end` `{reason}` before the server closes it. The "
    "`id` holds every position: one per game in the order of `games` (a version, or `_` before its snapshot), "
    "then `p<cursor>` with `personal=true`, joined by `.`; `Last-Event-ID` resumes each game exactly, `after` "
    "and `personal_after` do the same for a new connection. The viewer is the `?ticket=` holder (see "
    "createStreamTicket), else the bearer token's player, else a spectator; each game is shown exactly as its "
    "own stream shows it to that viewer.")


class TicketOut(msgspec.Struct, kw_only=True):
    ticket: str
    expires_at: str  # RFC 3339


class StreamController(Controller):
    path = "/v1"
    dependencies = viewer_after("live")

    @post("/games/{game_id:str}/stream-tickets", operation_id="createGameStreamTicket", status_code=201,
          summary="A ticket to follow a game with EventSource", tags=["play"], security=[{"bearer": []}],
          description="A short-lived, read-only ticket for `GET /v1/games/{id}/stream?ticket=…`, scoped to the "
                      "caller and this game: the stream shows the caller's seat view if seated, else the "
                      "spectator view. Valid for reconnects until `expires_at`. A game of a sealed duplicate "
                      "deal gets a ticket only for its own seats (403 `deal_sealed`).",
          responses=responses(400, 401, 403, 404))
    async def game_ticket(self, request: Request, viewer: NamedDependency[Viewer],
                          live: NamedDependency[Live], game_id: GameId) -> TicketOut:
        await no_body(request)
        player = viewer.require_player()
        await _may_follow(live, game_id, viewer, None, BadLastEventId)  # 404 unknown, 403 a sealed deal's
        return await _issue(live, player.id, game_id, request)

    @post("/players/me/stream-tickets", operation_id="createPersonalStreamTicket", status_code=201,
          summary="A ticket to follow the personal stream with EventSource", tags=["players"],
          security=[{"bearer": []}], description="A short-lived, read-only ticket for "
                                                 "`GET /v1/players/me/stream?ticket=…`.",
          responses=responses(400, 401))
    async def personal_ticket(self, request: Request, viewer: NamedDependency[Viewer],
                              live: NamedDependency[Live]) -> TicketOut:
        return await _players_ticket(live, viewer, None, request)

    @post("/stream-tickets", operation_id="createStreamTicket", status_code=201,
          summary="A ticket to follow the multiplexed stream with EventSource", tags=["play"],
          security=[{"bearer": []}], description="A short-lived, read-only ticket for `GET /v1/stream?ticket=…` "
                                                 "(any set of games, seen as the caller sees them).",
          responses=responses(400, 401))
    async def multiplexed_ticket(self, request: Request, viewer: NamedDependency[Viewer],
                                 live: NamedDependency[Live]) -> TicketOut:
        return await _players_ticket(live, viewer, MULTIPLEXED, request)

    @get("/stream", operation_id="streamMany", summary="Several games and the personal notices on one connection "
                                                       "(Server-Sent Events)",
         description=MULTIPLEXED_SSE_DOC, tags=["play"],
         responses={200: SSE_RESPONSE, **responses(400, 401, 403, 404)})
    async def multiplexed(self, request: Request, viewer: NamedDependency[Viewer],
                          live: NamedDependency[Live], games: GamesParam = None, personal: PersonalParam = False,
                          legal: LegalParam = False, ticket: Ticket = None, after: AfterParam = None,
                          personal_after: PersonalAfter = None, last_event_id: PositionsId = None) -> Stream:
        viewer, end = await _opener(live, request, viewer, ticket, MULTIPLEXED)
        names = parse_games(games, live.stream_max_games, personal)
        if personal:
            viewer.require_player()
        if last_event_id:
            positions, cursor = parse_id(last_event_id, len(names), personal)
        else:
            positions, cursor = parse_after(after, names), personal_after
        for game_id, position in zip(names, positions, strict=True):
            await _may_follow(live, game_id, viewer, position, BadLastEventId if last_event_id else InvalidRequest)
        wanted = MultiplexRequest(games=names, after=positions, personal=personal, personal_after=cursor, legal=legal)
        body = Multiplexed(live, live.personal, viewer, wanted, live.heartbeat_seconds, end)
        return Stream(body, media_type="text/event-stream", headers=SSE_HEADERS)

    @get("/games/{game_id:str}/stream", operation_id="streamGame", summary="Live events (Server-Sent Events)",
         description=GAME_SSE_DOC, tags=["play"], responses={200: SSE_RESPONSE, **responses(400, 401, 403, 404)})
    async def game(self, request: Request, viewer: NamedDependency[Viewer], live: NamedDependency[Live],
                   game_id: GameId, last_event_id: LastEventId = None, ticket: Ticket = None,
                   frames: FramesParam = "named") -> Stream:
        viewer, end = await _opener(live, request, viewer, ticket, game_id)
        # 404 before the stream starts; the stream reads the game itself (after joining its follower), so the
        # cached state will do here unless the Last-Event-ID is newer than it
        resume = _int(last_event_id, "a stream version")
        await _may_follow(live, game_id, viewer, resume, BadLastEventId, "Last-Event-ID")
        body = game_stream(live, game_id, viewer, resume, live.heartbeat_seconds,
                           closing=end, frames=frames)
        return LiveStream(body, media_type="text/event-stream", headers=SSE_HEADERS)

    @get("/players/me/stream", operation_id="streamMyGames", summary="The caller's games, live (Server-Sent Events)",
         description=PERSONAL_SSE_DOC, tags=["players"], security=[{"bearer": []}],
         responses={200: SSE_RESPONSE, **responses(400, 401)})
    async def personal(self, request: Request, viewer: NamedDependency[Viewer], live: NamedDependency[Live],
                       last_event_id: LastEventId = None, ticket: Ticket = None, legal: LegalParam = False) -> Stream:
        viewer, end = await _opener(live, request, viewer, ticket, None)
        player = viewer.require_player()
        resume = _int(last_event_id, "a cursor from this stream")
        decorate = functools.partial(with_commands, live.repository, player.id) if legal else None
        body = live.personal.stream(player.id, resume, live.heartbeat_seconds, end, decorate)
        return Stream(body, media_type="text/event-stream", headers=SSE_HEADERS)


async def _issue(live: Live, player_id: str, game_id: str | None, request: Request) -> TicketOut:
    tickets = await live.tickets.tickets()
    ticket, expires = tickets.issue(player_id, game_id, _digest(request) or "")
    return TicketOut(ticket=ticket, expires_at=datetime.fromtimestamp(expires, UTC).isoformat())


async def _players_ticket(live: Live, viewer: Viewer, scope: str | None, request: Request) -> TicketOut:
    """A ticket for a stream that is not one game's (the personal stream: None; the multiplexed one)."""
    await no_body(request)
    return await _issue(live, viewer.require_player().id, scope, request)


def _digest(request: Request) -> str | None:
    token = bearer(request.headers.get("authorization"))
    return token_hash(token) if token else None


async def _opener(live: Live, request: Request, viewer: Viewer, ticket: str | None,
                  game_id: str | None) -> tuple[Viewer, StreamEnd | asyncio.Event]:
    """Who opens a stream (the ticket's holder, else the caller) and the event that ends it: with the
    process, and for a player also with the token the stream was opened with."""
    digest = _digest(request) if viewer.player is not None else None
    if ticket is not None:
        player_id, digest = await live.tickets.holder(ticket, game_id)
        try:
            viewer = Viewer(player=await live.players.get(player_id))
        except PlayerNotFound as exc:
            raise InvalidTicket("the ticket's player does not exist") from exc
    if viewer.player is None or digest is None:
        return viewer, live.closing
    return viewer, live.revocations.watch(viewer.player.id, digest)


async def _may_follow(live: Live, game_id: str, viewer: Viewer, position: int | None,
                      ahead: type[InvalidRequest], what: str | None = None) -> None:
    """404 for an unknown game, 403 for a sealed deal, then 400 (`ahead`) for a position past the game's
    version: the seal is asked before the position is looked at, so a non-seat of a sealed deal learns
    nothing of its version. `what` names the position in the message (default: the game's position)."""
    loaded = await live.repository.cached(game_id)
    await look(live.seals, game_id, loaded.table, loaded.state, viewer)
    if position is not None and position > loaded.state.version:
        loaded = await live.repository.load(game_id)
        if position > loaded.state.version:
            raise ahead(f"{what or f'the position of game {game_id}'} must be a version in 0..{loaded.state.version}")


def _int(value: str | None, what: str) -> int | None:
    """Last-Event-ID as a non-negative integer (None when absent); BadLastEventId otherwise."""
    if not value:
        return None
    try:
        number = int(value)
    except ValueError as exc:
        raise BadLastEventId(f"Last-Event-ID must be {what}") from exc
    if number < 0:
        raise BadLastEventId(f"Last-Event-ID must be {what}")
    return number
