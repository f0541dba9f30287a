"""Tournaments: create, register, withdraw, start, read (standings, rounds, tables), list, events, stream."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta
from litestar import Controller, Request, get, post, put
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import HeaderParameter, PathParameter, QueryParameter
from litestar.response import Response, Stream

import domain.tournament as T
from domain.tournament.report import Report
from projections.tournaments import TournamentItem, TournamentPage
from service.container import Services
from service.edge.errors import PROBLEM, ProblemDetail, example, responses
from domain.kernel import RuleViolation
from service.commands.exceptions import BadCursor, BadLastEventId, Forbidden, Unavailable
from service.commands.players import Viewer
from service.edge.schemas import NO_NUL, StrictBody, no_body
from service.live.tournament_stream import tournament_stream
from service.commands.tournaments import Tournaments, redacted, report_csv

GameId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="a game of the tournament")]
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


REGISTER_DOC = (
    "Register the caller (or, for the organiser or an admin, `player_id`). Before the start, or in a Swiss "
    "with `late_join_until` until that round is paired (the rounds missed score nothing). A player registering "
    "themselves must meet the entry conditions: each unmet one is a 409 with its own code.")
ORGANISER_DOC = "Organiser (or admin) only: anyone else is refused with 403 `forbidden`."
REPORT_DOC = (
    "Pairings with results and the standings with their tie-breaks. As JSON (`/report`): the report, and "
    "once the tournament has ended its whole public log in `log`, so the file can be audited on its own "
    "(`service.commands.tournaments.verify_report`: the log must verify and the report must be what it gives). "
    "As CSV (`/report/csv`): `part=standings` (one line per player, the tie-breaks in the tournament's order) "
    "or `part=pairings` (one line per seat of every table and per bye). A sealed duplicate deal shows no "
    "results.")
CSV_EXAMPLE = ("place,player_id,name,points,buchholz,rating,draw,games,byes,status\r\n"
               "1,ana,Ana,2,1,1500,3,2,0,\r\n2,ben,Ben,1,2,1500,1,2,0,\r\n")


def tournament_responses(*statuses: int, conflicts: tuple[str, ...] = ()) -> dict[int, Any]:
    """`responses(...)` with a tournament's own examples: its 403 and each 409 code in `conflicts`."""
    out = responses(*statuses, *((409,) if conflicts else ()))
    if 403 in statuses:
        out[403] = ResponseSpec(data_container=ProblemDetail, generate_examples=False, media_type=PROBLEM,
                                description="Forbidden", examples=[Example(
                                    summary="not the organiser",
                                    value=example(Forbidden("only the organiser may do this")))])
    if conflicts:
        out[409] = ResponseSpec(data_container=ProblemDetail, generate_examples=False, media_type=PROBLEM,
                                description="Refused by the tournament's rules", examples=[
                                    Example(summary=code, value=example(RuleViolation(code, T.CODES[code])))
                                    for code in conflicts])
    return out


class TournamentCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    kind: Annotated[str, Meta(min_length=1, max_length=32, examples=["coatl"])]
    name: Annotated[str, Meta(max_length=200, pattern=NO_NUL)] = ""
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
    points_per_place: Annotated[list[Annotated[float, Meta(ge=0, le=1000)]], Meta(
        min_length=2, max_length=6, description=(
            "what each place of a table earns, best first: one value per seat, multiples of 1/2, never rising "
            "(Board Game Arena's points per place); a short table offers the last places; default rank points "
            "(`seats - 1` down to 0). A bye's default is then the first place's points"),
        examples=[[3, 1, 0]])] | None = None
    tiebreaks: Annotated[list[T.TieBreak], Meta(max_length=6, description=(
        "tie-breaks after rank points, in order: buchholz, median_buchholz, sonneborn_berger (N-seat form), "
        "head_to_head, rating, draw (the seeded draw, always last); default buchholz, rating"),
        examples=[["sonneborn_berger", "buchholz", "head_to_head"]])] | None = None
    late_join_until: Annotated[int, Meta(ge=0, le=100, description=(
        "Swiss: players may still register after the start until this round is paired (0: no late join); "
        "the rounds they missed score nothing"))] = 0
    entry: Annotated[T.Entry, Meta(description=(
        "entry conditions for players registering themselves (the organiser may register anyone): "
        "`min_rated_games` and `rating_min`/`rating_max` against the player's leaderboard rating of the kind "
        "(its ordinal, rounded down), `invited` player ids"),
        examples=[{"min_rated_games": 5, "rating_min": 10, "rating_max": 30, "invited": []}])] | None = None
    invitation_code: Annotated[str, Meta(min_length=4, max_length=64, pattern=NO_NUL, description=(
        "a code that admits whoever gives it when registering (only its salted hash is recorded)"))] | None = None


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


class TournamentEventOut(msgspec.Struct, kw_only=True):
    """One stored event of a competition of any format (a tournament's, an arena's), as readers see it now."""

    version: int
    type: str
    data: dict[str, Any]
    at: str


class TournamentEvents(msgspec.Struct, kw_only=True):
    version: int
    events: list[TournamentEventOut]


class TournamentReport(Report, frozen=True, kw_only=True):
    """The report as getTournamentReport gives it: `log` is the whole public log once the tournament has ended."""

    log: list[TournamentEventOut] | None = None


REPORT_EXAMPLE = {
    "tournament_id": "0f6f2c38-5b1e-4c6a-9a37-1d2f4c5e6a7b", "name": "Sunday Swiss", "kind": "goldmine",
    "format": "swiss", "status": "finished", "version": 9, "seed_commitment": "9f2c…", "seed": "51ab…",
    "tiebreaks": ["buchholz", "rating", "draw"],
    "standings": [{"place": 1, "player_id": "ana", "name": "Ana", "points": 1.0, "buchholz": 0.0, "rating": 1500,
                   "games": 1, "byes": 0, "active": True, "reached": 1, "out": False, "tiebreaks": [0.0, 1500, 1],
                   "paused": False, "removed": False}],
    "rounds": [{"round": 1, "byes": [], "bye_points": 0.0, "tables": [
        {"round": 1, "table": 1, "game_id": "5b0c…", "players": ["ana", "ben"], "status": "played",
         "ranks": [1, 2], "scores": [7, 3], "points": [1.0, 0.0]}]}],
    "log": [{"version": 1, "type": "tournament.TournamentCreated", "data": {"…": "…"},
             "at": "2026-11-26T06:00:00+00:00"}]}


def provide_tournaments(services: NamedDependency[Services]) -> Tournaments:
    """The process's tournament service (built by the composition root on PostgreSQL only)."""
    if services.tournaments is None:
        raise Unavailable("tournaments need the PostgreSQL store")
    return services.tournaments


class TournamentController(Controller):
    path = "/v1/tournaments"
    tags = ["tournaments"]
    dependencies = {"tournaments": Provide(provide_tournaments, sync_to_thread=False)}

    @post("/", dto=StrictBody[TournamentCreate], return_dto=None,
          operation_id="createTournament", summary="Create a tournament (the caller organises it)",
          status_code=201, responses=responses(400, 401, 404, 409, 422), security=[{"bearer": []}])
    async def create(self, viewer: NamedDependency[Viewer],
                     tournaments: NamedDependency[Tournaments], data: TournamentCreate) -> T.TournamentView:
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

    @post("/{tournament_id:str}/register", dto=StrictBody[RegisterRequest], return_dto=None,
          operation_id="registerForTournament", summary="Register",
          description=REGISTER_DOC, status_code=200, security=[{"bearer": []}],
          responses=tournament_responses(400, 401, 403, 404, conflicts=(
              "tournament.registration_closed", "tournament.not_invited", "tournament.rating_out_of_range",
              "tournament.too_few_rated_games", "tournament.already_registered", "tournament.full")))
    async def register(self, viewer: NamedDependency[Viewer],
                       tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                       data: RegisterRequest) -> T.TournamentView:
        name = data.name or (viewer.player.name if viewer.player is not None else "")
        command = T.Register(name=name, rating=data.rating, player_id=data.player_id, code=data.code)
        return T.view(await tournaments.register(viewer, tournament_id, command))

    @post("/{tournament_id:str}/withdraw", dto=StrictBody[WithdrawRequest], return_dto=None,
          operation_id="withdrawFromTournament", summary="Withdraw",
          status_code=200, responses=responses(400, 401, 403, 404, 409), security=[{"bearer": []}])
    async def withdraw(self, viewer: NamedDependency[Viewer],
                       tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                       data: WithdrawRequest) -> T.TournamentView:
        return T.view(await tournaments.act(viewer, tournament_id, T.Withdraw(player_id=data.player_id)))

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
                    tournament_id: TournamentId, data: PauseRequest) -> T.TournamentView:
        return T.view(await tournaments.act(viewer, tournament_id, T.Pause(player_id=data.player_id)))

    @post("/{tournament_id:str}/resume", dto=StrictBody[PauseRequest], return_dto=None,
          operation_id="resumeTournamentPlayer",
          summary="Pair a paused player again from the next round (the player, or the organiser)",
          status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.not_paused", "tournament.already_withdrawn")))
    async def resume(self, viewer: NamedDependency[Viewer],
                     tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                     data: PauseRequest) -> T.TournamentView:
        return T.view(await tournaments.act(viewer, tournament_id, T.Resume(player_id=data.player_id)))

    @put("/{tournament_id:str}/windows", dto=StrictBody[T.PlayingWindows], return_dto=None, status_code=200,
         operation_id="setTournamentWindows", security=[{"bearer": []}], responses=tournament_responses(
             400, 401, 404, conflicts=tuple(c for c in T.CODES if c.startswith("tournament.windows_"))),
         summary="Slow formats: the caller's weekly playing windows (UTC); per-move time counts only inside them")
    async def set_windows(self, viewer: NamedDependency[Viewer], tournaments: NamedDependency[Tournaments],
                          tournament_id: TournamentId, data: T.PlayingWindows) -> T.TournamentView:
        return T.view(await tournaments.act(viewer, tournament_id, T.SetWindows(windows=data.windows)))

    @post("/{tournament_id:str}/remove", dto=StrictBody[RemoveRequest], return_dto=None,
          operation_id="removeTournamentPlayer",
          summary="Remove a player: no more pairings, ranked below everyone still in", description=ORGANISER_DOC,
          status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.not_registered", "tournament.already_withdrawn")))
    async def remove(self, viewer: NamedDependency[Viewer],
                     tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                     data: RemoveRequest) -> T.TournamentView:
        command = T.RemovePlayer(player_id=data.player_id, reason=data.reason)
        return T.view(await tournaments.act(viewer, tournament_id, command))

    @post("/{tournament_id:str}/forbidden-pairings", dto=StrictBody[ForbidRequest], return_dto=None,
          operation_id="forbidTournamentPairing",
          summary="Swiss: these players (teammates) are not to meet whenever the pairing allows it",
          description=ORGANISER_DOC, status_code=200, security=[{"bearer": []}], responses=tournament_responses(
              400, 401, 403, 404, conflicts=("tournament.not_registered", "tournament.not_in_format")))
    async def forbid(self, viewer: NamedDependency[Viewer],
                     tournaments: NamedDependency[Tournaments], tournament_id: TournamentId,
                     data: ForbidRequest) -> T.TournamentView:
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
                           data: PairingsRequest) -> T.TournamentView:
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
                         data: AdjudicateRequest) -> T.TournamentView:
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
        state = (await tournaments.load(tournament_id)).state
        return Response(report_csv(state, part), media_type="text/csv", headers={
            "Content-Disposition": f'attachment; filename="tournament-{tournament_id}-{part}.csv"'})

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
