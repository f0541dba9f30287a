"""Arenas: create, list, read (live standings), join, pause, leave, berserk in a game, events, stream."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import HeaderParameter, PathParameter, QueryParameter
from litestar.response import Stream
from msgspec import Meta

import domain.tournament.arena as A
from domain.clock import TimeControl
from service.commands.arenas import Arenas
from service.commands.competition import redacted
from service.commands.exceptions import BadLastEventId, Unavailable
from service.commands.players import Viewer
from service.container import Services
from service.edge.errors import responses
from service.edge.schemas import NO_NUL, StrictBody, no_body
from service.edge.routes.tournaments import TournamentEventOut, TournamentEvents
from service.live.arena_stream import TOP, arena_stream

ArenaId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="arena id (a UUID)")]
GameId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="one of the arena's games")]
LastEventId = Annotated[int | None, HeaderParameter(name="Last-Event-ID", ge=0, le=2**31 - 1, required=False,
                                                    description="resume after this version")]
_ID = "3b9d6f1e-8c2a-4e7b-a1d0-5f6e7a8b9c0d"
_EXAMPLE = A.ArenaView(
    arena_id=_ID, organiser="5d0c1b7e-2a34-4f8e-9b61-0c3d2e1f4a5b", name="Hourly coatl arena", kind="coatl",
    seats=2, options={}, time_control={"total_seconds": 180, "increment_seconds": 2}, berserk=True,
    starts_at_ms=1795760400000, ends_at_ms=1795764000000, status="open", players=2, games=3, running=1,
    standings=[A.ArenaStanding(rank=1, player_id="a1f0c9e8-0000-4000-8000-000000000001", name="Ada", rating=1620,
                          points=8, games=3, wins=3, streak=3, fire=True, berserks=1, presence="active",
                          playing="0c4e8f3a-1b2d-5c6e-8f90-a1b2c3d4e5f6", sheet=[2, 2, 4]),
               A.ArenaStanding(rank=2, player_id="a1f0c9e8-0000-4000-8000-000000000002", name="Bo", rating=1500,
                          points=1, games=2, wins=0, streak=0, fire=False, berserks=0, presence="paused",
                          playing=None, sheet=[1, 0])],
    seed_commitment="9f2c" + "0" * 60, version=14)
VIEW_DOC = ("The arena as anyone sees it: settings, start and end (milliseconds since the epoch), `status` "
            "(`open`: players join and are paired; `closing`: the time is up, running games finish and count; "
            "`finished`), and the live standings, best first. Points: 2 a win, 1 a draw at two seats (N seats: "
            "2 per seat ranked below, 1 per seat tied), doubled while on a streak of two wins (`fire`), +1 for a "
            "berserk win. The seed shows once the arena has finished.")
VIEW_RESPONSES = {200: ResponseSpec(data_container=A.ArenaView, generate_examples=False, description="the arena",
                                    examples=[Example(summary="a running arena",
                                                      value=msgspec.to_builtins(_EXAMPLE))])}
STREAM_DOC = (
    "`text/event-stream`. First the arena as in getArena (`event: snapshot`, id: its version), then one frame per "
    "event, `event: <type>`, `id: <stream version>`, data `{version, type, data, at}` as getArenaEvents shows it "
    f"(seeds hidden until the end), and after each batch an `event: standings` frame: the arena's view after it, "
    f"its standings cut to the first {TOP}. Comment lines (`: heartbeat`) keep the connection alive; the stream "
    "closes after `arena.ArenaEnded`. Reconnect with `Last-Event-ID` to receive exactly the events after that "
    "version (no snapshot).")


class ArenaCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    kind: Annotated[str, Meta(min_length=1, max_length=32, examples=["coatl"])]
    name: Annotated[str, Meta(max_length=200, pattern=NO_NUL, examples=["Hourly coatl arena"])] = ""
    options: Annotated[dict[str, Any], Meta(description="the kind's options, passed on to every game")] = {}
    time_control: Annotated[TimeControl | None, Meta(description=(
        "a game `time_control`, put on every game; berserk needs `total_seconds`"))] = None
    seats: Annotated[int, Meta(ge=2, le=6, description="players per game (within the kind's range)")] = 2
    minutes: Annotated[int, Meta(ge=1, le=1440, description="how long the arena runs")] = 60
    starts_in_seconds: Annotated[int, Meta(ge=0, le=86_400, description="the start, from now")] = 0
    berserk: Annotated[bool, Meta(description=(
        "players may halve their clock for a bonus point on a win; default: on with a chess clock"))] | None = None
    berserk_moves: Annotated[int, Meta(ge=0, le=1000, description=(
        "own moves a berserker must make in a game before the berserk bonus counts; default: the kind's "
        "(lichess's 7 plies, scaled per kind: docs/arena.md)"))] | None = None


class ArenaJoin(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, Meta(max_length=64, pattern=NO_NUL, description="display name; default the player's")] | None = None
    rating: Annotated[int, Meta(ge=0, le=10_000)] = 1500


class ArenaList(msgspec.Struct, kw_only=True):
    items: list[A.ArenaView]


def provide_arenas(services: NamedDependency[Services]) -> Arenas:
    """The process's arena service (built by the composition root on PostgreSQL only)."""
    if services.arenas is None:
        raise Unavailable("arenas need the PostgreSQL store")
    return services.arenas


def _summary(state: A.ArenaState) -> A.ArenaView:
    view = A.view(state)
    return msgspec.structs.replace(view, standings=view.standings[:3])


class ArenaController(Controller):
    path = "/v1/arenas"
    tags = ["arenas"]
    dependencies = {"arenas": Provide(provide_arenas, sync_to_thread=False)}

    @post("/", dto=StrictBody[ArenaCreate], return_dto=None,
          operation_id="createArena", summary="Create an arena (the caller organises it)", status_code=201,
          description=VIEW_DOC, responses={201: ResponseSpec(
              data_container=A.ArenaView, generate_examples=False, description="the new arena",
              examples=[Example(summary="created", value=msgspec.to_builtins(msgspec.structs.replace(
                  _EXAMPLE, players=0, games=0, running=0, standings=[], version=1)))]),
              **responses(400, 401, 404, 409, 422)}, security=[{"bearer": []}])
    async def create(self, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                     data: ArenaCreate) -> A.ArenaView:
        clock = {k: v for k, v in msgspec.to_builtins(data.time_control).items() if v is not None} \
            if data.time_control is not None else {}
        berserk = data.berserk if data.berserk is not None else bool(clock.get("total_seconds"))
        command = A.CreateArena(kind=data.kind, name=data.name, options=data.options, time_control=clock,
                                seats=data.seats, minutes=data.minutes, berserk=berserk,
                                berserk_moves=data.berserk_moves)
        return A.view(await arenas.create(viewer, command, data.starts_in_seconds))

    @get("/", operation_id="listArenas", summary="The newest arenas, newest first (top three of each standings)",
         responses=responses(400))
    async def list_all(self, arenas: NamedDependency[Arenas],
                       limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20) -> ArenaList:
        return ArenaList(items=[_summary(s) for s in await arenas.recent(limit)])

    @get("/{arena_id:str}", operation_id="getArena", summary="Settings, times and live standings",
         description=VIEW_DOC, responses={**VIEW_RESPONSES, **responses(400, 404)})
    async def get_one(self, arenas: NamedDependency[Arenas], arena_id: ArenaId) -> A.ArenaView:
        return A.view((await arenas.load(arena_id)).state)

    @post("/{arena_id:str}/join", dto=StrictBody[ArenaJoin], return_dto=None,
          operation_id="joinArena", status_code=200,
          summary="Join, or come back after a pause (paired as soon as enough players are free)",
          responses={**VIEW_RESPONSES, **responses(400, 401, 404, 409)}, security=[{"bearer": []}])
    async def join(self, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                   arena_id: ArenaId, data: ArenaJoin) -> A.ArenaView:
        player = viewer.require_player()
        return A.view(await arenas.act(viewer, arena_id, A.Join(name=data.name or player.name, rating=data.rating)))

    @post("/{arena_id:str}/pause", operation_id="pauseArena", status_code=200,
          summary="Stop being paired (a running game is played out; join again to resume)",
          responses={**VIEW_RESPONSES, **responses(400, 401, 404, 409)}, security=[{"bearer": []}])
    async def pause(self, request: Request, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                    arena_id: ArenaId) -> A.ArenaView:
        await no_body(request)
        return A.view(await arenas.act(viewer, arena_id, A.Pause()))

    @post("/{arena_id:str}/leave", operation_id="leaveArena", status_code=200,
          summary="Leave for good (the points scored stay in the standings)",
          responses={**VIEW_RESPONSES, **responses(400, 401, 404, 409)}, security=[{"bearer": []}])
    async def leave(self, request: Request, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                    arena_id: ArenaId) -> A.ArenaView:
        await no_body(request)
        return A.view(await arenas.act(viewer, arena_id, A.Leave()))

    @post("/{arena_id:str}/games/{game_id:str}/berserk", operation_id="berserkInArena", status_code=200,
          summary="Halve your clock in one of your arena games, before your first move there, for +1 on a win",
          responses={**VIEW_RESPONSES, **responses(400, 401, 403, 404, 409)}, security=[{"bearer": []}])
    async def berserk(self, request: Request, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                      arena_id: ArenaId, game_id: GameId) -> A.ArenaView:
        await no_body(request)
        return A.view(await arenas.berserk(viewer, arena_id, game_id))

    @get("/{arena_id:str}/events", operation_id="getArenaEvents",
         summary="The arena's events (seeds hidden until the end); `stela verify` reads them", responses=responses(400, 404))
    async def events(self, arenas: NamedDependency[Arenas], arena_id: ArenaId,
                     after: Annotated[int, QueryParameter(ge=0, le=10_000_000)] = 0) -> TournamentEvents:
        state, stored = await arenas.events(arena_id, after)
        return TournamentEvents(version=state.version, events=[TournamentEventOut(**redacted(state, e)) for e in stored])

    @get("/{arena_id:str}/stream", operation_id="streamArena",
         summary="Live arena (Server-Sent Events): a snapshot, then each event and the standings after it",
         description=STREAM_DOC,
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="text/event-stream",
                                      description="an event stream"), **responses(400, 404)})
    async def stream(self, services: NamedDependency[Services], arenas: NamedDependency[Arenas], arena_id: ArenaId,
                     last_event_id: LastEventId = None) -> Stream:
        held = await arenas.load(arena_id)  # 404 before the stream starts
        if last_event_id is not None and last_event_id > held.state.version:
            raise BadLastEventId(f"Last-Event-ID must be a version in 0..{held.state.version}")
        body = arena_stream(services, arenas, arena_id, last_event_id, services.settings.heartbeat_seconds,
                            services.closing)
        return Stream(body, media_type="text/event-stream",
                      headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
