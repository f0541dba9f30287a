"""Tournaments: create, register, withdraw, start, read (standings, rounds, tables), list, events, stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta
from litestar import Controller, Request, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import JSONBody, PathParameter, QueryParameter
from litestar.response import Stream

import domain.tournament as T
from service.errors import responses
from service.exceptions import Unavailable
from service.players import Viewer
from service.schemas import strictly
from service.tournaments import Tournaments, list_tournaments, redacted

TournamentId = Annotated[str, PathParameter(max_length=64, description="tournament id (a UUID)")]
POLL_SECONDS = 1.0


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


class RegisterRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, Meta(max_length=64, description="display name; default the player's")] | None = None
    rating: Annotated[int, Meta(ge=0, le=10_000)] = 1500
    player_id: Annotated[str, Meta(max_length=64, description=(
        "register someone else (the organiser or an admin only)"))] | None = None


class WithdrawRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    player_id: Annotated[str, Meta(max_length=64)] | None = None


class TournamentItem(msgspec.Struct, kw_only=True):
    tournament_id: str
    name: str
    kind: str
    format: str
    organiser: str
    status: str


class TournamentList(msgspec.Struct, kw_only=True):
    items: list[TournamentItem]


class TournamentEventOut(msgspec.Struct, kw_only=True):
    version: int
    type: str
    data: dict[str, Any]
    at: str


class TournamentEvents(msgspec.Struct, kw_only=True):
    version: int
    events: list[TournamentEventOut]


def provide_tournaments(state: State) -> Tournaments:
    """The process's tournament service (built here on first use when no start-up hook made it)."""
    tournaments = state.get("tournaments")
    if tournaments is None:
        services = state.services
        if getattr(services.store, "pool", None) is None:
            raise Unavailable("tournaments need the PostgreSQL store")
        tournaments = state.tournaments = Tournaments(services.store, services.repository, services.broker)
    return tournaments


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

    @get("/", operation_id="listTournaments", summary="List tournaments, newest first",
         responses=responses(400, 422))
    async def list_all(self, tournaments: NamedDependency[Tournaments],
                       status: Annotated[Literal["registration", "running", "finished"] | None, QueryParameter()] = None,
                       kind: Annotated[str | None, QueryParameter(max_length=32)] = None,
                       limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50) -> TournamentList:
        rows = await list_tournaments(tournaments.pool, status, kind, limit)
        return TournamentList(items=[TournamentItem(**r) for r in rows])

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
    async def start(self, viewer: NamedDependency[Viewer], tournaments: NamedDependency[Tournaments],
                    tournament_id: TournamentId) -> T.TournamentView:
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
         responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="text/event-stream",
                                      description="an event stream"), **responses(400, 404)})
    async def stream(self, tournaments: NamedDependency[Tournaments], tournament_id: TournamentId) -> Stream:
        held = await tournaments.load(tournament_id)  # 404 before the stream starts
        return Stream(_follow(tournaments, tournament_id, held.state), media_type="text/event-stream",
                      headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _message(kind: str, version: int, data: Any) -> bytes:
    return b"event: " + kind.encode() + b"\nid: " + str(version).encode() + b"\ndata: " + \
        msgspec.json.encode(data) + b"\n\n"


async def _follow(tournaments: Tournaments, tournament_id: str, state: T.TournamentState) -> AsyncIterator[bytes]:
    """The snapshot, then new events polled from the store every second, until the tournament has ended."""
    yield _message("snapshot", state.version, T.view(state))
    seen = state.version
    while state.status != "finished":
        await asyncio.sleep(POLL_SECONDS)
        state, stored = await tournaments.events(tournament_id, seen)
        for event in stored:
            out = redacted(state, event)
            yield _message(out["type"], out["version"], out)
        seen = stored[-1].version if stored else seen
        if not stored:
            yield b": heartbeat\n\n"
