"""What leaves the tournament domain: its public view, one entrant's view, redacted events and the wire codec.

Everything about a tournament is public except its secrets: the tournament
seed (`TournamentCreated.seed`) and the game seeds (`PairedTable.seed`), both
stripped by `redact` until the tournament has ended, and the results of a
sealed duplicate deal (`deals`): its tables show no ranks or points, its
`ResultRecorded` events no ranks, scores or points, and the standings do not
count it, until every table of the deal has a result.
"""

from __future__ import annotations

from typing import Annotated, Optional

import msgspec
from msgspec import Meta

from domain.tournament.codec import Codec, Settings, event_data, event_type, without_seeds
from domain.tournament.commands import Entry, TournamentCommand
from domain.tournament.deals import sealed_round, unsealed
from domain.tournament.events import (PairingRule, PlayerRegistered, ResultRecorded,
                                      TournamentEvent)
from domain.tournament.standings import Standing, places_of, standings, tiebreak_order
from domain.tournament.state import RoundRecord, Status, TableRecord, TournamentState
from domain.windows import Window


class TableView(msgspec.Struct, frozen=True, kw_only=True):
    table: int
    game_id: str
    players: list[str]
    ranks: Optional[list[int]] = None
    points: Optional[list[float]] = None
    status: str = "playing"  # playing, played, annulled or adjudicated


class RoundView(msgspec.Struct, frozen=True, kw_only=True):
    round: int
    tables: list[TableView]
    byes: list[str]


class TournamentView(Settings, frozen=True, kw_only=True):
    """The public picture of a tournament: settings, entrants' standings, every round's tables."""

    tournament_id: str
    format: str
    rounds_planned: int
    duplicate: bool
    status: Status
    round: int
    players: int
    standings: list[Standing]
    rounds: list[RoundView]
    pairing_rule: PairingRule = 1
    tiebreaks: list[str] = []
    bye_points: float = 0.0
    points_per_place: list[float] = []  # what each place of a full table earns, best first
    min_players: int = 0  # the start is refused below it (`tournament.too_few_players`)
    late_join_until: int = 0  # Swiss: registration stays open until this round is paired
    invitation: bool = False  # by invitation: a list of players or a code
    entry: Optional[Entry] = None
    # slow formats: each player's playing windows (UTC, minutes from Monday 00:00), for players who set any
    windows: dict[str, list[Window]] = {}


class EntrantView(msgspec.Struct, frozen=True, kw_only=True):
    """One player's entry, as a registration or a withdrawal answers it: that player and the tournament's
    counters, never the field, so the answer is the same size however many have entered (the whole
    tournament is getTournament's, or its stream's from `version`)."""

    tournament_id: Annotated[str, Meta(description="the tournament")]
    player_id: Annotated[str, Meta(description=(
        "whose entry this is: the player registered or withdrawn (the one the organiser named, if they did)"))]
    name: Annotated[str, Meta(description="the display name the player entered under")]
    rating: Annotated[int, Meta(description="the seeding rating the player entered with")]
    registered: Annotated[bool, Meta(description=(
        "whether the player takes part now: false after a withdrawal"))]
    status: Annotated[Status, Meta(description="the tournament's status")]
    round: Annotated[int, Meta(description="the tournament's current round, 0 before the start")]
    players: Annotated[int, Meta(description=(
        "how many entrants the tournament has now, as getTournament counts them (after the start, withdrawn "
        "players still count)"))]
    version: Annotated[int, Meta(description=(
        "the tournament's version after this command: its stream from here is `Last-Event-ID: <version>`"))]


def _round_view(record: RoundRecord, sealed: bool) -> RoundView:
    return RoundView(round=record.round, byes=list(record.byes), tables=[
        TableView(table=t.table, game_id=t.game_id, players=list(t.players),
                  ranks=list(t.ranks) if t.ranks is not None and not sealed else None,
                  points=list(t.points) if t.points is not None and not sealed else None,
                  status=table_status(t, sealed)) for t in record.tables])


def table_status(table: TableRecord, sealed: bool = False) -> str:
    """How far a table is: playing (a sealed deal's tables too), played, annulled or adjudicated."""
    if table.annulled:
        return "annulled"
    if table.ranks is None or sealed:
        return "playing"
    return "adjudicated" if table.adjudicated else "played"


def standings_shown(state: TournamentState) -> list[Standing]:
    """The standings anyone may see: a sealed deal's results not yet counted."""
    return standings(unsealed(state))


def view(state: TournamentState) -> TournamentView:
    """The tournament as anyone may see it (the seed only once revealed, a sealed deal's results once open)."""
    s = state.settings
    return TournamentView(
        tournament_id=s.tournament_id, organiser=s.organiser, name=s.name, kind=s.kind, format=s.format,
        seats=s.seats, options=s.options, time_control=s.time_control, rounds_planned=s.rounds, duplicate=s.duplicate, status=state.status, round=state.round,
        players=len(state.entrants), standings=standings_shown(state),
        rounds=[_round_view(r, sealed_round(state, r.round)) for r in state.rounds],
        seed_commitment=s.seed_commitment, seed=state.seed if state.revealed else None, pairing_rule=s.pairing,
        tiebreaks=list(tiebreak_order(s)), bye_points=s.bye_points if s.bye_points is not None else (s.seats - 1) / 2,
        points_per_place=places_of(s), min_players=s.min_players, late_join_until=s.late_join_until, entry=s.entry,
        invitation=s.code_hash is not None or bool(s.entry is not None and s.entry.invited),
        windows={pid: list(e.windows) for pid, e in state.entrants.items() if e.windows})


def entrant_view(state: TournamentState, player_id: str, before: TournamentState) -> EntrantView:
    """`player_id`'s entry in `state`, the tournament after a registration or a withdrawal decided on `before`:
    their name and rating from `state`, or from `before` when a withdrawal before the start deleted the entry."""
    now = state.entrants.get(player_id)
    entrant = now or before.entrants[player_id]
    return EntrantView(
        tournament_id=state.settings.tournament_id, player_id=player_id, name=entrant.name, rating=entrant.rating,
        registered=now is not None and now.active, status=state.status, round=state.round,
        players=len(state.entrants), version=state.version)


def shown(state: TournamentState, event: TournamentEvent) -> TournamentEvent:
    """`event` as readers may see it in `state`: secrets until the end, a sealed deal's results until it opens."""
    if isinstance(event, ResultRecorded) and sealed_round(state, event.round):
        return msgspec.structs.replace(event, ranks=[], scores=[], points=[], advancing=[])
    return redact(event, state.status == "finished")


def redact(event: TournamentEvent, public: bool) -> TournamentEvent:
    """`event` as readers may see it; `public` (the tournament has ended) shows everything."""
    if public:
        return event
    if isinstance(event, PlayerRegistered) and event.code is not None:
        return msgspec.structs.replace(event, code=None)  # the invitation code, secret like the seeds
    return without_seeds(event)  # type: ignore[return-value]


decode_event = Codec(TournamentEvent).decode_event
_COMMANDS = msgspec.json.Decoder(TournamentCommand)


def decode_command(raw: bytes | str) -> TournamentCommand:
    """A command from its JSON text (with "type"); raises msgspec.ValidationError / DecodeError."""
    return _COMMANDS.decode(raw)

