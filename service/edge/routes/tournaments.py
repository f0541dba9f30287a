"""Competitions, every format of the one competition model in one route module: the tournaments
(`/v1/tournaments`: Swiss, round robin, single elimination, duplicate: create, register, withdraw, start, the
organiser's tools, read, list, report, events, stream) and the arena (`/v1/arenas`: create, list, read with its
live standings, join, pause, leave, berserk, events, stream). Both read their events and stream them live
through the same helpers; what they publish besides the handlers is in `service.edge.competition_schemas`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta
from litestar import Controller, Request, get, post, put
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import HeaderParameter, JSONBody, PathParameter, QueryParameter
from litestar.response import Response, Stream

import domain.tournament as T
import domain.tournament.arena as A
from projections.tournaments import TournamentPage
from service.edge.competition_schemas import (
    ARENA_BERSERKED, ARENA_DOC, ARENA_EXAMPLE, ARENA_JOINED, ARENA_LEFT, ARENA_MOVE_DOC, ARENA_PAUSED,
    ARENA_RESPONSES, ARENA_STREAM_DOC, CSV_EXAMPLE, ENTRY_DOC, LIST_DOC, LIST_RESPONSES, NAME_REFUSED, ORGANISER_DOC,
    REGISTER_DOC, REGISTERED, REPORT_DOC, REPORT_EXAMPLE, STREAM_DOC, STREAM_RESPONSES, WITHDRAW_DOC, WITHDRAWN,
    ArenaCreate, ArenaJoin, ArenaList, TournamentCreate, TournamentReport, tournament_responses)
from service.edge.dependencies import viewer_after
from service.edge.desks import Live
from service.edge.errors import responses
from service.commands.arenas import Arenas
from service.commands.competition import Competition
from service.commands.listings import Listings
from service.commands.competition_queries import TournamentEvents, event_page, report_table
from service.commands.exceptions import BadLastEventId
from service.commands.players import Viewer
from service.edge.schemas import NO_NUL, StrictBody, no_body
from service.live.arena_stream import arena_stream
from service.live.tournament_stream import tournament_stream
from service.commands.tournaments import Tournaments

GameId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="a game of the tournament")]
TournamentId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="tournament id (a UUID)")]
LastEventId = Annotated[int | None, HeaderParameter(name="Last-Event-ID", ge=0, le=2**31 - 1, required=False,
                                                    description="resume after this version")]
After = Annotated[int, QueryParameter(ge=0, le=10_000_000)]  # the events after this version
ArenaId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="arena id (a UUID)")]
ArenaGameId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="one of the arena's games")]


class RegisterRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, Meta(max_length=64, pattern=NO_NUL, description="display name; default the player's")] | None = None
    rating: Annotated[int, Meta(ge=0, le=10_000, description=(
        "the seeding rating; with a rating entry condition the platform's rating is used instead"))] = 1500
    player_id: Annotated[str, Meta(max_length=64, description=(
        "register someone else (the organiser or an admin only)"))] | None = None
    code: Annotated[str, Meta(max_length=64, pattern=NO_NUL, description=(
        "the tournament's invitation code, when it is by invitation"))] | None = None


class WithdrawRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    player_id: Annotated[str, Meta(max_length=64)] | None = None


class PauseRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    player_id: Annotated[str, Meta(max_length=64, description=(
        "pause or resume someone else (the organiser or an admin only); default the caller"))] | None = None


class RemoveRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    player_id: Annotated[str, Meta(max_length=64)]
    reason: Annotated[str, Meta(max_length=200, examples=["did not show up"])] = ""


class ForbidRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    players: Annotated[list[Annotated[str, Meta(max_length=64)]], Meta(
        min_length=2, max_length=50, description="registered players, no two of whom are to meet (teammates)")]


PlayerId = Annotated[str, Meta(max_length=64)]


class PairingsRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    round: Annotated[int, Meta(ge=1, description="the next round (the one after the current): 1 before the start")]
    tables: Annotated[list[Annotated[list[PlayerId], Meta(min_length=1, max_length=6)]], Meta(
        min_length=1, max_length=50_000, description="the round's tables, each its players in seat order (seat 0 "
        "first); every player to pair (active, not paused) exactly once, across tables and byes",
        examples=[[["ana", "ben"], ["cy", "dee"]]])]
    byes: Annotated[list[PlayerId], Meta(max_length=50_000, description="players given a bye this round")] = []


class AdjudicateRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    ranks: Annotated[list[Annotated[int, Meta(ge=1, le=6)]], Meta(
        min_length=2, max_length=6, description="per seat in the game's seat order, 1 = best; ties share a rank",
        examples=[[2, 1]])]


async def event_stream(live: Live, competitions: Competition[Any], competition_id: str,
                       last_event_id: int | None, follow: Callable[..., AsyncIterator[bytes]]) -> Stream:
    """A competition's Server-Sent Events written by `follow` (its format's stream in `service.live`); an unknown
    id (404) and a `Last-Event-ID` past its version (400) are answered before the stream starts."""
    held = await competitions.load(competition_id)
    if last_event_id is not None and last_event_id > held.state.version:
        raise BadLastEventId(f"Last-Event-ID must be a version in 0..{held.state.version}")
    body = follow(live, competitions, competition_id, last_event_id, live.heartbeat_seconds, live.closing)
    return Stream(body, media_type="text/event-stream",
                  headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


class TournamentController(Controller):
    path = "/v1/tournaments"
    tags = ["tournaments"]
    dependencies = viewer_after("tournaments")

    @post("/", dto=StrictBody[TournamentCreate], return_dto=None,
          operation_id="createTournament", summary="Create a tournament (the caller organises it)",
          status_code=201, responses=responses(400, 401, 404, 409, 422), security=[{"bearer": []}])
    async def create(self, viewer: NamedDependency[Viewer],
                     tournaments: NamedDependency[Tournaments], data: JSONBody[TournamentCreate]) -> T.TournamentView:
        command = msgspec.convert(msgspec.to_builtins(data), T.CreateTournament)
        return T.view(await tournaments.create(viewer, command))

    @get("/", operation_id="listTournaments", summary="List tournaments, newest first (a read model)",
         description=LIST_DOC, responses=LIST_RESPONSES)
    async def list_all(self, listings: NamedDependency[Listings],
                       status: Annotated[Literal["registration", "running", "finished"] | None, QueryParameter()] = None,
                       kind: Annotated[str | None, QueryParameter(max_length=32, pattern=NO_NUL)] = None,
                       cursor: Annotated[str | None, QueryParameter(
                           max_length=200, pattern=NO_NUL, description="`next_cursor` of the previous page")] = None,
                       limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50) -> TournamentPage:
        return await listings.read_models.list_tournaments(status, kind, cursor, limit)

    @get("/{tournament_id:str}", operation_id="getTournament", summary="Standings, rounds and tables (game ids)",
         responses=responses(400, 404))
    async def get_one(self, tournaments: NamedDependency[Tournaments], tournament_id: TournamentId) -> T.TournamentView:
        return T.view((await tournaments.load(tournament_id)).state)

    @post("/{tournament_id:str}/register", dto=StrictBody[RegisterRequest], return_dto=None,
          operation_id="registerForTournament", summary="Register",
          description=f"{REGISTER_DOC} {ENTRY_DOC}", status_code=200, security=[{"bearer": []}],
          responses={**REGISTERED, **tournament_responses(400, 401, 403, 404, conflicts=(
              "tournament.registration_closed", "tournament.not_invited", "tournament.rating_out_of_range",
              "tournament.too_few_rated_games", "tournament.already_registered", "tournament.full")), **NAME_REFUSED})
    async def register(self, viewer: NamedDependency[Viewer],
                       tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                       data: JSONBody[RegisterRequest]) -> T.EntrantView:
        name = data.name or (viewer.player.name if viewer.player is not None else "")
        command = T.Register(name=name, rating=data.rating, player_id=data.player_id, code=data.code)
        return await tournaments.register(viewer, tournament_id, command)

    @post("/{tournament_id:str}/withdraw", dto=StrictBody[WithdrawRequest], return_dto=None,
          operation_id="withdrawFromTournament", summary="Withdraw",
          description=f"{WITHDRAW_DOC} {ENTRY_DOC}", status_code=200,
          responses={**WITHDRAWN, **responses(400, 401, 403, 404, 409)}, security=[{"bearer": []}])
    async def withdraw(self, viewer: NamedDependency[Viewer],
                       tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                       data: JSONBody[WithdrawRequest]) -> T.EntrantView:
        return await tournaments.withdraw(viewer, tournament_id, T.Withdraw(player_id=data.player_id))

    @post("/{tournament_id:str}/start", operation_id="startTournament",
          summary="Close registration and pair round 1 (organiser or admin)", status_code=200,
          responses=tournament_responses(400, 401, 403, 404, conflicts=(
              "tournament.too_few_players", "tournament.already_started")), security=[{"bearer": []}])
    async def start(self, request: Request, viewer: NamedDependency[Viewer], tournaments: NamedDependency[Tournaments],
                    tournament_id: TournamentId) -> T.TournamentView:
        await no_body(request)
        return T.view(await tournaments.act(viewer, tournament_id, T.Start()))

    @post("/{tournament_id:str}/pause", dto=StrictBody[PauseRequest], return_dto=None,
          operation_id="pauseTournamentPlayer",
          summary="Swiss: leave a player out of the pairings from the next round (the player, or the organiser)",
          status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.already_paused", "tournament.not_in_format")))
    async def pause(self, viewer: NamedDependency[Viewer], tournaments: NamedDependency[Tournaments],
                    tournament_id: TournamentId, data: JSONBody[PauseRequest]) -> T.TournamentView:
        return T.view(await tournaments.act(viewer, tournament_id, T.Pause(player_id=data.player_id)))

    @post("/{tournament_id:str}/resume", dto=StrictBody[PauseRequest], return_dto=None,
          operation_id="resumeTournamentPlayer",
          summary="Pair a paused player again from the next round (the player, or the organiser)",
          status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.not_paused", "tournament.already_withdrawn")))
    async def resume(self, viewer: NamedDependency[Viewer],
                     tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                     data: JSONBody[PauseRequest]) -> T.TournamentView:
        return T.view(await tournaments.act(viewer, tournament_id, T.Resume(player_id=data.player_id)))

    @put("/{tournament_id:str}/windows", dto=StrictBody[T.PlayingWindows], return_dto=None, status_code=200,
         operation_id="setTournamentWindows", security=[{"bearer": []}], responses=tournament_responses(
             400, 401, 404, conflicts=tuple(c for c in T.CODES if c.startswith("tournament.windows_"))),
         summary="Slow formats: the caller's weekly playing windows (UTC); per-move time counts only inside them")
    async def set_windows(self, viewer: NamedDependency[Viewer], tournaments: NamedDependency[Tournaments],
                          tournament_id: TournamentId, data: JSONBody[T.PlayingWindows]) -> T.TournamentView:
        return T.view(await tournaments.act(viewer, tournament_id, T.SetWindows(windows=data.windows)))

    @post("/{tournament_id:str}/remove", dto=StrictBody[RemoveRequest], return_dto=None,
          operation_id="removeTournamentPlayer",
          summary="Remove a player: no more pairings, ranked below everyone still in", description=ORGANISER_DOC,
          status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.not_registered", "tournament.already_withdrawn")))
    async def remove(self, viewer: NamedDependency[Viewer],
                     tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                     data: JSONBody[RemoveRequest]) -> T.TournamentView:
        command = T.RemovePlayer(player_id=data.player_id, reason=data.reason)
        return T.view(await tournaments.act(viewer, tournament_id, command))

    @post("/{tournament_id:str}/forbidden-pairings", dto=StrictBody[ForbidRequest], return_dto=None,
          operation_id="forbidTournamentPairing",
          summary="Swiss: these players (teammates) are not to meet whenever the pairing allows it",
          description=ORGANISER_DOC, status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.not_registered", "tournament.not_in_format")))
    async def forbid(self, viewer: NamedDependency[Viewer],
                     tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                     data: JSONBody[ForbidRequest]) -> T.TournamentView:
        return T.view(await tournaments.act(viewer, tournament_id, T.ForbidPairing(players=data.players)))

    @post("/{tournament_id:str}/pairings", dto=StrictBody[PairingsRequest], return_dto=None,
          operation_id="setTournamentPairings",
          summary="Swiss: set the next round's tables by hand (used when the round comes, if its players are still "
                  "exactly those)",
          description=ORGANISER_DOC + " Logged as a `tournament.PairingsSet` event; `stela verify` re-derives that "
                      "the round's games are those tables. Setting them again replaces them.",
          status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.round_already_paired", "tournament.pairing_unknown_player",
                                             "tournament.pairing_player_twice", "tournament.pairing_table_size",
                                             "tournament.pairing_incomplete", "tournament.not_in_format",
                                             "tournament.bad_request", "tournament.finished")))
    async def set_pairings(self, viewer: NamedDependency[Viewer],
                           tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                           data: JSONBody[PairingsRequest]) -> T.TournamentView:
        command = T.SetPairings(round=data.round, tables=data.tables, byes=data.byes)
        return T.view(await tournaments.act(viewer, tournament_id, command))

    @post("/{tournament_id:str}/games/{game_id:str}/annul", operation_id="annulTournamentGame",
          summary="Annul a game: its table scores nothing (its own result, if it comes later, is ignored)",
          description=ORGANISER_DOC, status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.unknown_game", "tournament.already_annulled",
                                             "tournament.deal_sealed", "tournament.not_running")))
    async def annul(self, request: Request, viewer: NamedDependency[Viewer], tournaments: NamedDependency[Tournaments],
                    tournament_id: TournamentId, game_id: GameId) -> T.TournamentView:
        await no_body(request)
        return T.view(await tournaments.act(viewer, tournament_id, T.Annul(game_id=game_id)))

    @post("/{tournament_id:str}/games/{game_id:str}/adjudicate", dto=StrictBody[AdjudicateRequest], return_dto=None,
          operation_id="adjudicateTournamentGame",
          summary="Set a game's ranks, replacing any result (a running game's own result is then ignored)",
          description=ORGANISER_DOC, status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.unknown_game", "tournament.bad_outcome",
                                             "tournament.deal_sealed", "tournament.not_running")))
    async def adjudicate(self, viewer: NamedDependency[Viewer],
                         tournaments: NamedDependency[Tournaments], tournament_id: TournamentId, game_id: GameId,
                         data: JSONBody[AdjudicateRequest]) -> T.TournamentView:
        return T.view(await tournaments.act(viewer, tournament_id, T.Adjudicate(game_id=game_id, ranks=data.ranks)))

    @get("/{tournament_id:str}/report", operation_id="getTournamentReport",
         summary="The tournament report: pairings, results, standings with tie-breaks (JSON)",
         description=REPORT_DOC, responses={200: ResponseSpec(
             data_container=TournamentReport, generate_examples=False, description="the report",
             examples=[Example(summary="a finished two-player Swiss (log shortened)", value=REPORT_EXAMPLE)]),
             **responses(400, 404)})
    async def report(self, tournaments: NamedDependency[Tournaments], tournament_id: TournamentId) -> Response:
        return Response(msgspec.json.encode(await tournaments.report(tournament_id)), media_type="application/json")

    @get("/{tournament_id:str}/report/csv", operation_id="getTournamentReportCsv",
         summary="A part of the tournament report as CSV: the standings or the pairings", description=REPORT_DOC,
         responses={200: ResponseSpec(data_container=str, generate_examples=False, media_type="text/csv",
                                      description="RFC 4180 CSV, a header line first", examples=[Example(
                                          summary="standings", value=CSV_EXAMPLE)]), **responses(400, 404)})
    async def report_csv(self, tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                         part: Annotated[Literal["standings", "pairings"], QueryParameter(
                             description="which table")] = "standings") -> Response:
        return Response(await report_table(tournaments, tournament_id, part), media_type="text/csv", headers={
            "Content-Disposition": f'attachment; filename="tournament-{tournament_id}-{part}.csv"'})

    @get("/{tournament_id:str}/events", operation_id="getTournamentEvents",
         summary="The tournament's events (seeds hidden until the end)", responses=responses(400, 404))
    async def events(self, tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                     after: After = 0) -> TournamentEvents:
        return await event_page(tournaments, tournament_id, after)

    @get("/{tournament_id:str}/stream", operation_id="streamTournament",
         summary="Live tournament (Server-Sent Events): a snapshot, then each event; ends after the end",
         description=STREAM_DOC, responses=STREAM_RESPONSES)
    async def stream(self, live: NamedDependency[Live], tournament_id: TournamentId,
                     last_event_id: LastEventId = None) -> Stream:
        return await event_stream(live, live.tournaments, tournament_id, last_event_id, tournament_stream)


def _summary(state: A.ArenaState) -> A.ArenaView:
    view = A.view(state)
    return msgspec.structs.replace(view, standings=view.standings[:3])


class ArenaController(Controller):
    path = "/v1/arenas"
    tags = ["arenas"]
    dependencies = viewer_after("arenas")

    @post("/", dto=StrictBody[ArenaCreate], return_dto=None,
          operation_id="createArena", summary="Create an arena (the caller organises it)", status_code=201,
          description=ARENA_DOC, responses={201: ResponseSpec(
              data_container=A.ArenaView, generate_examples=False, description="the new arena",
              examples=[Example(summary="created", value=msgspec.to_builtins(msgspec.structs.replace(
                  ARENA_EXAMPLE, players=0, games=0, running=0, standings=[], version=1)))]),
              **responses(400, 401, 404, 409, 422)}, security=[{"bearer": []}])
    async def create(self, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                     data: JSONBody[ArenaCreate]) -> A.ArenaView:
        return A.view(await arenas.create(viewer, data.command(), data.starts_in_seconds))

    @get("/", operation_id="listArenas", summary="The newest arenas, newest first (top three of each standings)",
         responses=responses(400))
    async def list_all(self, arenas: NamedDependency[Arenas],
                       limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20) -> ArenaList:
        return ArenaList(items=[_summary(s) for s in await arenas.recent(limit)])

    @get("/{arena_id:str}", operation_id="getArena", summary="Settings, times and live standings",
         description=ARENA_DOC, responses={**ARENA_RESPONSES, **responses(400, 404)})
    async def get_one(self, arenas: NamedDependency[Arenas], arena_id: ArenaId) -> A.ArenaView:
        return A.view((await arenas.load(arena_id)).state)

    @post("/{arena_id:str}/join", dto=StrictBody[ArenaJoin], return_dto=None,
          operation_id="joinArena", status_code=200,
          summary="Join, or come back after a pause (paired as soon as enough players are free)",
          description=ARENA_MOVE_DOC, responses=ARENA_JOINED, security=[{"bearer": []}])
    async def join(self, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                   arena_id: ArenaId, data: JSONBody[ArenaJoin]) -> A.ArenaEntrantView:
        player = viewer.require_player()
        return await arenas.move(viewer, arena_id, A.Join(name=data.name or player.name, rating=data.rating))

    @post("/{arena_id:str}/pause", operation_id="pauseArena", status_code=200, security=[{"bearer": []}],
          summary="Stop being paired (a running game is played out; join again to resume)",
          description=ARENA_MOVE_DOC, responses=ARENA_PAUSED)
    async def pause(self, request: Request, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                    arena_id: ArenaId) -> A.ArenaEntrantView:
        await no_body(request)
        return await arenas.move(viewer, arena_id, A.Pause())

    @post("/{arena_id:str}/leave", operation_id="leaveArena", status_code=200, security=[{"bearer": []}],
          summary="Leave for good (the points scored stay in the standings)",
          description=ARENA_MOVE_DOC, responses=ARENA_LEFT)
    async def leave(self, request: Request, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                    arena_id: ArenaId) -> A.ArenaEntrantView:
        await no_body(request)
        return await arenas.move(viewer, arena_id, A.Leave())

    @post("/{arena_id:str}/games/{game_id:str}/berserk", operation_id="berserkInArena", status_code=200,
          summary="Halve your clock in one of your arena games, before your first move there, for +1 on a win",
          description=ARENA_MOVE_DOC, responses=ARENA_BERSERKED, security=[{"bearer": []}])
    async def berserk(self, request: Request, viewer: NamedDependency[Viewer], arenas: NamedDependency[Arenas],
                      arena_id: ArenaId, game_id: ArenaGameId) -> A.ArenaEntrantView:
        await no_body(request)
        return await arenas.berserk(viewer, arena_id, game_id)

    @get("/{arena_id:str}/events", operation_id="getArenaEvents",
         summary="The arena's events (seeds hidden until the end); `stela verify` reads them", responses=responses(400, 404))
    async def events(self, arenas: NamedDependency[Arenas], arena_id: ArenaId,
                     after: After = 0) -> TournamentEvents:
        return await event_page(arenas, arena_id, after)

    @get("/{arena_id:str}/stream", operation_id="streamArena",
         summary="Live arena (Server-Sent Events): a snapshot, then each event and the standings after it",
         description=ARENA_STREAM_DOC, responses=STREAM_RESPONSES)
    async def stream(self, live: NamedDependency[Live], arena_id: ArenaId, last_event_id: LastEventId = None) -> Stream:
        return await event_stream(live, live.arenas, arena_id, last_event_id, arena_stream)
