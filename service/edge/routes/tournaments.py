"""Tournaments: create, register, withdraw, start, read (standings, rounds, tables), list, events, stream."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta
from litestar import Controller, Request, get, post
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import HeaderParameter, JSONBody, PathParameter, QueryParameter
from litestar.response import Stream

import domain.tournament as T
from projections.tournaments import TournamentItem, TournamentPage
from service.container import Services
from service.edge.errors import PROBLEM, ProblemDetail, example, responses
from service.commands.exceptions import BadCursor, BadLastEventId, Unavailable
from service.commands.players import Viewer
from service.edge.schemas import NO_NUL, no_body, strictly
from service.live.tournament_stream import tournament_stream
from service.commands.tournaments import Tournaments, redacted

TournamentId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="tournament id (a UUID)")]
LastEventId = Annotated[int | None, HeaderParameter(name="Last-Event-ID", ge=0, le=2**31 - 1, required=False,
                                                    description="resume after this version")]
LIST_DOC = (
    "Tournaments newest first, from the tournament read model (it follows the event log, so a change shows "
    "within about a second). Filter by `status` and `kind` (each filter walks an index); page with "
    "`?cursor=<next_cursor>` until `next_cursor` is null. A page never repeats or skips a tournament when new "
    "ones are created meanwhile. A cursor this list did not issue is a 422 `bad_cursor`.")
_LISTED = TournamentPage(items=[TournamentItem(
    tournament_id="0f6f2c38-5b1e-4c6a-9a37-1d2f4c5e6a7b", name="Sunday Swiss", kind="coatl", format="swiss",
    organiser="5d0c1b7e-2a34-4f8e-9b61-0c3d2e1f4a5b", status="running", players=1000, round=2,
    created_at=datetime(2026, 11, 26, 6, 0, tzinfo=UTC), updated_at=datetime(2026, 11, 26, 6, 12, 31, tzinfo=UTC))],
    next_cursor="WzQyMTdd")
LIST_RESPONSES = {
    200: ResponseSpec(data_container=TournamentPage, generate_examples=False, description="one page",
                      examples=[Example(summary="a page with more after it", value=msgspec.to_builtins(_LISTED))]),
    **responses(400),
    422: ResponseSpec(data_container=ProblemDetail, generate_examples=False, media_type=PROBLEM,
                      description="Unprocessable content",
                      examples=[Example(summary="bad_cursor", value=example(BadCursor("")))])}
STREAM_DOC = (
    "`text/event-stream`. First the tournament as in getTournament (`event: snapshot`, id: its version), then "
    "one frame per event, `event: <type>`, `id: <stream version>`, data `{version, type, data, at}` as "
    "getTournamentEvents shows it (seeds hidden until the end). Comment lines (`: heartbeat`) keep the "
    "connection alive; the stream closes after `tournament.TournamentEnded`. Reconnect with `Last-Event-ID` "
    "to receive exactly the events after that version (no snapshot).")


class TournamentCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    kind: Annotated[str, Meta(min_length=1, max_length=32, examples=["coatl"])]
    name: Annotated[str, Meta(max_length=200)] = ""
    options: Annotated[dict[str, Any], Meta(description="the kind's options, passed on to every game")] = {}
    time_control: Annotated[dict[str, Any], Meta(description="a game `time_control`, put on every game")] = {}
    seats: Annotated[int, Meta(ge=2, le=6, description="players per table")] = 4
    format: T.Format = "swiss"
    rounds: Annotated[int, Meta(ge=0, le=100, description="Swiss rounds (round robin: 0 = every pair once)")] = 3
    advance: Annotated[int, Meta(ge=1, le=5, description="single elimination: how many of a table go through")] = 1
    duplicate: bool = False
    min_players: Annotated[int, Meta(ge=0, le=100_000)] = 0
    max_players: Annotated[int, Meta(ge=0, le=100_000)] = 0
    bye_points: Annotated[float, Meta(ge=0, le=5, description=(
        "what a bye is worth, a multiple of 1/2 up to a win (`seats - 1`); default a win"))] | None = None
    tiebreaks: Annotated[list[T.TieBreak], Meta(max_length=6, description=(
        "tie-breaks after rank points, in order: buchholz, median_buchholz, sonneborn_berger (N-seat form), "
        "head_to_head, rating, draw (the seeded draw, always last); default buchholz, rating"),
        examples=[["sonneborn_berger", "buchholz", "head_to_head"]])] | None = None


class RegisterRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, Meta(max_length=64, description="display name; default the player's")] | None = None
    rating: Annotated[int, Meta(ge=0, le=10_000)] = 1500
    player_id: Annotated[str, Meta(max_length=64, description=(
        "register someone else (the organiser or an admin only)"))] | None = None


class WithdrawRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    player_id: Annotated[str, Meta(max_length=64)] | None = None


class TournamentEventOut(msgspec.Struct, kw_only=True):
    version: int
    type: str
    data: dict[str, Any]
    at: str


class TournamentEvents(msgspec.Struct, kw_only=True):
    version: int
    events: list[TournamentEventOut]


def provide_tournaments(services: NamedDependency[Services]) -> Tournaments:
    """The process's tournament service (built by the composition root on PostgreSQL only)."""
    if services.tournaments is None:
        raise Unavailable("tournaments need the PostgreSQL store")
    return services.tournaments


class TournamentController(Controller):
    path = "/v1/tournaments"
    tags = ["tournaments"]
    dependencies = {"tournaments": Provide(provide_tournaments, sync_to_thread=False)}

    @post("/", operation_id="createTournament", summary="Create a tournament (the caller organises it)",
          status_code=201, responses=responses(400, 401, 404, 409, 422), security=[{"bearer": []}])
    async def create(self, request: Request, viewer: NamedDependency[Viewer],
                     tournaments: NamedDependency[Tournaments], data: JSONBody[TournamentCreate]) -> T.TournamentView:
        data = await strictly(request, TournamentCreate)
        command = msgspec.convert(msgspec.to_builtins(data), T.CreateTournament)
        return T.view(await tournaments.create(viewer, command))

    @get("/", operation_id="listTournaments", summary="List tournaments, newest first (a read model)",
         description=LIST_DOC, responses=LIST_RESPONSES)
    async def list_all(self, services: NamedDependency[Services],
                       status: Annotated[Literal["registration", "running", "finished"] | None, QueryParameter()] = None,
                       kind: Annotated[str | None, QueryParameter(max_length=32, pattern=NO_NUL)] = None,
                       cursor: Annotated[str | None, QueryParameter(
                           max_length=200, pattern=NO_NUL, description="`next_cursor` of the previous page")] = None,
                       limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50) -> TournamentPage:
        return await services.read_models.list_tournaments(status, kind, cursor, limit)

    @get("/{tournament_id:str}", operation_id="getTournament", summary="Standings, rounds and tables (game ids)",
         responses=responses(400, 404))
    async def get_one(self, tournaments: NamedDependency[Tournaments], tournament_id: TournamentId) -> T.TournamentView:
        return T.view((await tournaments.load(tournament_id)).state)

    @post("/{tournament_id:str}/register", operation_id="registerForTournament", summary="Register",
          status_code=200, responses=responses(400, 401, 403, 404, 409), security=[{"bearer": []}])
    async def register(self, request: Request, viewer: NamedDependency[Viewer],
                       tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                       data: JSONBody[RegisterRequest]) -> T.TournamentView:
        data = await strictly(request, RegisterRequest)
        name = data.name or (viewer.player.name if viewer.player is not None else "")
        command = T.Register(name=name, rating=data.rating, player_id=data.player_id)
        return T.view(await tournaments.act(viewer, tournament_id, command))

    @post("/{tournament_id:str}/withdraw", operation_id="withdrawFromTournament", summary="Withdraw",
          status_code=200, responses=responses(400, 401, 403, 404, 409), security=[{"bearer": []}])
    async def withdraw(self, request: Request, viewer: NamedDependency[Viewer],
                       tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                       data: JSONBody[WithdrawRequest]) -> T.TournamentView:
        data = await strictly(request, WithdrawRequest)
        return T.view(await tournaments.act(viewer, tournament_id, T.Withdraw(player_id=data.player_id)))

    @post("/{tournament_id:str}/start", operation_id="startTournament",
          summary="Close registration and pair round 1 (organiser or admin)", status_code=200,
          responses=responses(400, 401, 403, 404, 409), security=[{"bearer": []}])
    async def start(self, request: Request, viewer: NamedDependency[Viewer], tournaments: NamedDependency[Tournaments],
                    tournament_id: TournamentId) -> T.TournamentView:
        await no_body(request)
        return T.view(await tournaments.act(viewer, tournament_id, T.Start()))

    @get("/{tournament_id:str}/events", operation_id="getTournamentEvents",
         summary="The tournament's events (seeds hidden until the end)", responses=responses(400, 404))
    async def events(self, tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                     after: Annotated[int, QueryParameter(ge=0, le=10_000_000)] = 0) -> TournamentEvents:
        state, stored = await tournaments.events(tournament_id, after)
        return TournamentEvents(version=state.version,
                                events=[TournamentEventOut(**redacted(state, e)) for e in stored])

    @get("/{tournament_id:str}/stream", operation_id="streamTournament",
         summary="Live tournament (Server-Sent Events): a snapshot, then each event; ends after the end",
         description=STREAM_DOC,
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="text/event-stream",
                                      description="an event stream"), **responses(400, 404)})
    async def stream(self, services: NamedDependency[Services], tournaments: NamedDependency[Tournaments],
                     tournament_id: TournamentId, last_event_id: LastEventId = None) -> Stream:
        held = await tournaments.load(tournament_id)  # 404 before the stream starts
        if last_event_id is not None and last_event_id > held.state.version:
            raise BadLastEventId(f"Last-Event-ID must be a version in 0..{held.state.version}")
        body = tournament_stream(services, tournaments, tournament_id, last_event_id,
                                 services.settings.heartbeat_seconds, services.closing)
        return Stream(body, media_type="text/event-stream",
                      headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
