"""What the competition routes (`service.edge.routes.tournaments`) publish besides their handlers, for every
format of the one competition model (Swiss, round robin, single elimination, duplicate, and the arena): the
request bodies, the shapes of the events and the report, and the descriptions and examples the OpenAPI
document shows. Kept apart from the handlers so the one route module stays a list of short controllers.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from msgspec import Meta

import domain.tournament as T
import domain.tournament.arena as A
from domain.clock import TimeControl
from domain.kernel import RuleViolation
from domain.tournament.report import Report
from projections.tournaments import TournamentItem, TournamentPage
from service.commands.exceptions import BadCursor, Forbidden
from service.commands.players import InvalidName
from service.commands.competition_queries import TournamentEventOut
from service.edge.errors import PROBLEM, ProblemDetail, example, responses
from service.edge.schemas import NO_NUL
from service.live.arena_stream import TOP

# ---------------------------------------------------------------------------------- the formats of rounds

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
    "one frame per event, `event: <type>`, `id: <stream version>`, data the event as getTournamentEvents "
    "shows it (seeds hidden until the end, the chain hashes shown from then on). Comment lines (`: heartbeat`) keep the "
    "connection alive; the stream closes after `tournament.TournamentEnded`. Reconnect with `Last-Event-ID` "
    "to receive exactly the events after that version (no snapshot).")


REGISTER_DOC = (
    "Register the caller (or, for the organiser or an admin, `player_id`). Before the start, or in a Swiss "
    "with `late_join_until` until that round is paired (the rounds missed score nothing). A player registering "
    "themselves must meet the entry conditions: each unmet one is a 409 with its own code.")
WITHDRAW_DOC = (
    "Withdraw the caller (or, for the organiser or an admin, `player_id`): before the start the entry is removed; "
    "after it the player is paired no more and stays in the standings.")
ENTRY_DOC = (
    "The answer is the player's entry, not the whole tournament: its size does not grow with the field. Read "
    "the tournament with getTournament, or follow its stream from the entry's `version` (`Last-Event-ID`).")
_ENTERED = T.EntrantView(
    tournament_id="0f6f2c38-5b1e-4c6a-9a37-1d2f4c5e6a7b", player_id="a1f0c9e8-0000-4000-8000-000000000001",
    name="Ada", rating=1500, registered=True, status="registration", round=0, players=12, version=13)


def entry_answer(summary: str, entry: T.EntrantView | A.ArenaEntrantView,
                 description: str = "the player's entry after the command") -> dict[int, ResponseSpec]:
    """The 200 of a move answered with one player's part of a competition (a tournament's registration or
    withdrawal: `T.EntrantView`; a player's own move in an arena: `A.ArenaEntrantView`), `entry` its example."""
    return {200: ResponseSpec(data_container=type(entry), generate_examples=False, description=description,
                              examples=[Example(summary=summary, value=msgspec.to_builtins(entry))])}


REGISTERED = entry_answer("registered", _ENTERED)
WITHDRAWN = entry_answer("withdrawn before the start (the entry is gone; the answer still names the player)",
                         msgspec.structs.replace(_ENTERED, registered=False, players=11, version=14))
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


class TournamentReport(Report, frozen=True, kw_only=True):
    """The report as getTournamentReport gives it: `log` is the whole public log once the tournament has ended."""

    log: list[TournamentEventOut] | None = None


STREAM_RESPONSES = {200: ResponseSpec(generate_examples=False, data_container=str, media_type="text/event-stream",
                                     description="an event stream"), **responses(400, 404)}
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
             "at": "2026-11-26T06:00:00+00:00", "stream_id": "tournament-0f6f2c38-5b1e-4c6a-9a37-1d2f4c5e6a7b",
             "prev_hash": "0" * 64, "hash": "5c1e…"}]}


# ------------------------------------------------------------------------------------------------ the arena

_ARENA_ID = "3b9d6f1e-8c2a-4e7b-a1d0-5f6e7a8b9c0d"
_GAME_ID = "0c4e8f3a-1b2d-5c6e-8f90-a1b2c3d4e5f6"  # the game Ada is playing in the examples
ARENA_EXAMPLE = A.ArenaView(
    arena_id=_ARENA_ID, organiser="5d0c1b7e-2a34-4f8e-9b61-0c3d2e1f4a5b", name="Hourly coatl arena", kind="coatl",
    seats=2, options={}, time_control={"total_seconds": 180, "increment_seconds": 2}, berserk=True,
    starts_at_ms=1795760400000, ends_at_ms=1795764000000, status="open", players=2, games=3, running=1,
    standings=[A.ArenaStanding(rank=1, player_id="a1f0c9e8-0000-4000-8000-000000000001", name="Ada", rating=1620,
                          points=8, games=3, wins=3, streak=3, fire=True, berserks=1, presence="active",
                          playing=_GAME_ID, sheet=[2, 2, 4]),
               A.ArenaStanding(rank=2, player_id="a1f0c9e8-0000-4000-8000-000000000002", name="Bo", rating=1500,
                          points=1, games=2, wins=0, streak=0, fire=False, berserks=0, presence="paused",
                          playing=None, sheet=[1, 0])],
    seed_commitment="9f2c" + "0" * 60, version=14)
ARENA_DOC = ("The arena as anyone sees it: settings, start and end (milliseconds since the epoch), `status` "
             "(`open`: players join and are paired; `closing`: the time is up, running games finish and count; "
             "`finished`), and the live standings, best first. Points: 2 a win, 1 a draw at two seats (N seats: "
             "2 per seat ranked below, 1 per seat tied), doubled while on a streak of two wins (`fire`), +1 for a "
             "berserk win. The seed shows once the arena has finished.")
ARENA_RESPONSES = {200: ResponseSpec(data_container=A.ArenaView, generate_examples=False, description="the arena",
                                     examples=[Example(summary="a running arena",
                                                       value=msgspec.to_builtins(ARENA_EXAMPLE))])}
# an entrant's name breaking the player-name rules (service.commands.competition.named)
NAME_REFUSED = {422: ResponseSpec(data_container=ProblemDetail, generate_examples=False, media_type=PROBLEM,
                                  description="Unprocessable content", examples=[Example(
                                      summary="invalid_name", value=example(InvalidName(
                                          "a name may not contain U+202E (RIGHT-TO-LEFT OVERRIDE)")))])}
ARENA_MOVE_DOC = (
    "The answer is the caller's own part of the arena, not the arena: their points, games, wins, streak (`fire`: "
    "on fire), berserks, presence, the game they are in and their sheet, with the arena's status, players and "
    "version; its size follows the player's own games, never the field. Read the arena (every standing, with "
    "ranks) with getArena, or follow its stream from the answer's `version` (`Last-Event-ID`).")
_PLAYING = A.ArenaEntrantView(
    arena_id=_ARENA_ID, player_id="a1f0c9e8-0000-4000-8000-000000000001", name="Ada", rating=1620, points=8,
    games=3, wins=3, streak=3, fire=True, berserks=1, presence="active", playing=_GAME_ID, sheet=[2, 2, 4],
    status="open", players=12, version=40)


def arena_move(summary: str, entrant: A.ArenaEntrantView, *refusals: int) -> dict[int, ResponseSpec]:
    """The 200 of a player's own move in an arena (their part of it, `entrant` its example) and its refusals."""
    return {**entry_answer(summary, entrant, "the player's part of the arena after the command"),
            **responses(*refusals)}


ARENA_JOINED = {**arena_move("joined (a first join: nothing scored yet)", msgspec.structs.replace(
    _PLAYING, points=0, games=0, wins=0, streak=0, fire=False, berserks=0, playing=None, sheet=[], version=13),
    400, 401, 404, 409), **NAME_REFUSED}  # joining gives a name
ARENA_PAUSED = arena_move("paused during a game (it is played out)", msgspec.structs.replace(
    _PLAYING, presence="paused", version=41), 400, 401, 404, 409)
ARENA_LEFT = arena_move("left for good after losing the game (the points stay)", msgspec.structs.replace(
    _PLAYING, presence="left", playing=None, games=4, streak=0, fire=False, sheet=[2, 2, 4, 0], version=44),
    400, 401, 404, 409)
ARENA_BERSERKED = arena_move("berserked in the game being played", msgspec.structs.replace(
    _PLAYING, berserks=2, version=41), 400, 401, 403, 404, 409)
ARENA_STREAM_DOC = (
    "`text/event-stream`. First the arena as in getArena (`event: snapshot`, id: its version), then one frame per "
    "event, `event: <type>`, `id: <stream version>`, data the event as getArenaEvents shows it "
    f"(seeds hidden until the end, the chain hashes shown from then on), and after each batch an `event: standings` frame: the arena's view after it, "
    f"its standings cut to the first {TOP}. Comment lines (`: heartbeat`) keep the connection alive; the stream "
    "closes after `tournament.TournamentEnded` (the final order, a fact every format shares: a pause, a leave, the "
    "end and the seed's reveal are `tournament.PlayerPaused`, `tournament.PlayerWithdrew`, "
    "`tournament.TournamentEnded` and `tournament.SeedRevealed` in an arena too, older arenas' `arena.*` names "
    "included). Reconnect with `Last-Event-ID` to receive exactly the events after that "
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

    def command(self) -> A.CreateArena:
        """The domain's command this body asks for: the clock without its unset fields, and berserk on by
        default when the games have a chess clock (it halves `total_seconds`)."""
        clock = {k: v for k, v in msgspec.to_builtins(self.time_control).items() if v is not None} \
            if self.time_control is not None else {}
        berserk = self.berserk if self.berserk is not None else bool(clock.get("total_seconds"))
        return A.CreateArena(kind=self.kind, name=self.name, options=self.options, time_control=clock,
                             seats=self.seats, minutes=self.minutes, berserk=berserk, berserk_moves=self.berserk_moves)


class ArenaJoin(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, Meta(max_length=64, pattern=NO_NUL, description="display name; default the player's")] | None = None
    rating: Annotated[int, Meta(ge=0, le=10_000)] = 1500


class ArenaList(msgspec.Struct, kw_only=True):
    items: list[A.ArenaView]
