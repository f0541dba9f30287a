"""Deciding tournament commands: `create` opens a tournament, `decide` handles everything after.

`decide` raises `RuleViolation` with one of the codes of `CODES` and never
returns an empty list to mean "refused". The only random draw is the seeded
draw at the start (`rng.shuffle` of the entrants sorted by id); game seeds
and ids are hashes of the seed and the tournament id (see `arrange`), and
pairings are a pure function of the state, so the whole tournament can be
re-derived once the seed is revealed (`verify`).
"""

from __future__ import annotations

from typing import Any, Optional, assert_never

import hashlib

import msgspec

from domain.kernel import Emitter, Outcome, Rng, RuleViolation, seed_commitment
from domain.tournament.arrange import is_uuid
from domain.tournament import organiser
from domain.tournament.commands import (Adjudicate, Annul, CreateTournament, ForbidPairing, Pause, RecordResult, Register,
                                        RemovePlayer, Resume, SetPairings, SetWindows, Start, TournamentCommand,
                                        Withdraw)
from domain.tournament.evolve import evolve
from domain.tournament.events import (PlayerRegistered, PlayerWithdrew, ResultRecorded, SeedRevealed,
                                      TournamentCreated, TournamentEnded, TournamentStarted)
from domain.tournament.pairing import next_round, smallest_table
from domain.tournament.standings import order, rank_points, seeding
from domain.tournament.state import TableRecord, TournamentState

CODES: dict[str, str] = {
    "tournament.bad_options": "the settings do not describe a tournament that can be run",
    "tournament.not_created": "there is no such tournament yet",
    "tournament.registration_closed": "registration is only possible before the start",
    "tournament.already_registered": "this player is already registered",
    "tournament.not_registered": "this player is not registered",
    "tournament.already_withdrawn": "this player has already withdrawn",
    "tournament.full": "the tournament has reached its maximum number of players",
    "tournament.not_organiser": "only the organiser (or an admin) may do this",
    "tournament.already_started": "the tournament has already started",
    "tournament.too_few_players": "fewer players are registered than the tournament needs",
    "tournament.not_running": "the tournament is not running",
    "tournament.finished": "the tournament is over",
    "tournament.not_platform": "results come only from the platform (or an admin)",
    "tournament.unknown_game": "this game is not a game of the tournament's current round",
    "tournament.result_already_recorded": "this game's result is already recorded",
    "tournament.bad_outcome": "the outcome does not fit the table (one rank and score per seat)",
    "tournament.not_invited": "the tournament is by invitation: the player is not invited and gave no valid code",
    "tournament.rating_out_of_range": "the player's rating is outside the tournament's rating range",
    "tournament.too_few_rated_games": "the player has fewer rated games of the kind than the tournament asks",
    "tournament.not_in_format": "the tournament's format has no such thing",
    "tournament.already_paused": "this player is paused already",
    "tournament.not_paused": "this player is not paused",
    "tournament.already_annulled": "this game is annulled already",
    "tournament.bad_request": "the command does not name what it needs",
    "tournament.deal_sealed": "a duplicate deal is corrected only once every table of it has ended",
    "tournament.round_already_paired": "that round is paired already: pairings are set for the next round",
    "tournament.pairing_unknown_player": "a player of the pairings is not registered",
    "tournament.pairing_player_twice": "a player appears more than once in the pairings",
    "tournament.pairing_table_size": "a table of the pairings does not seat as many players as the tournament's",
    "tournament.pairing_incomplete": "the pairings do not hold every player to pair exactly once (and nobody else)",
    "tournament.windows_not_slow": "playing windows are for slow time controls (a per-move time of 12 hours or more)",
    "tournament.windows_malformed": "a playing window runs from a minute of the week to a later one (0 to 10080, "
                                    "from Monday 00:00 UTC), at most 64 windows",
    "tournament.windows_overlap": "playing windows may not overlap",
    "tournament.windows_too_short": "playing windows add up to less than 28 hours a week",
}


PAIRING = 5  # the pairing rule new tournaments are created with (`matching`, `conflicts`, `reseat`); old ones keep theirs
ROUND_ROBIN_MAX = 64  # every pair meets: the number of rounds grows with the field
FIELD_MAX = 100_000


def _refuse(code: str, message: str) -> RuleViolation:
    assert code in CODES, code
    return RuleViolation(code, message)


def create(tournament_id: str, organiser: str, command: CreateTournament, seed: bytes) -> list[Any]:
    """The events opening a tournament; `seed` is its fresh secret seed (the service draws it)."""
    _check_settings(tournament_id, command)
    smallest = smallest_table(command.seats, command.min_seats)
    min_seats = command.min_seats or command.seats
    return [TournamentCreated(
        tournament_id=tournament_id, organiser=organiser, kind=command.kind, name=command.name,
        options=command.options, time_control=command.time_control, seats=command.seats, min_seats=min_seats,
        format=command.format, rounds=command.rounds, advance=command.advance, duplicate=command.duplicate,
        min_players=command.min_players or smallest, max_players=command.max_players or _field_max(command),
        seed_commitment=seed_commitment(seed), seed=seed.hex(), pairing=PAIRING,
        bye_points=command.bye_points if command.bye_points is not None else _win(command),
        points_per_place=([float(v) for v in command.points_per_place] if command.points_per_place is not None
                          else msgspec.UNSET),
        tiebreaks=command.tiebreaks, late_join_until=command.late_join_until, entry=command.entry,
        code_hash=code_hash(seed.hex(), command.invitation_code) if command.invitation_code else None)]


def code_hash(seed: str, code: str) -> str:
    """SHA-256 (hex) of b"stela-invitation\\x00" || the tournament seed || the code (UTF-8): salted with the
    secret seed, so the public record does not let anyone guess a short code before the end."""
    return hashlib.sha256(b"stela-invitation\x00" + bytes.fromhex(seed) + code.encode()).hexdigest()


def _check_settings(tournament_id: str, c: CreateTournament) -> None:
    def bad(message: str) -> RuleViolation:
        return _refuse("tournament.bad_options", message)

    if not is_uuid(tournament_id):
        raise bad("the tournament id must be a UUID")
    if not c.kind:
        raise bad("a tournament needs a game kind")
    if not 2 <= c.seats <= 6:
        raise bad("tables seat 2 to 6 players")
    if c.min_seats and not 2 <= c.min_seats <= c.seats:
        raise bad("min_seats must lie between 2 and seats")
    if c.format == "swiss" and c.rounds < 1:
        raise bad("a Swiss tournament needs at least one round")
    if c.rounds < 0:
        raise bad("rounds cannot be negative")
    if "windows" in c.time_control:
        raise bad("a game's windows come from its players' playing windows (SetWindows), not from the settings")
    if c.late_join_until and (c.format != "swiss" or not 1 <= c.late_join_until <= c.rounds):
        raise bad("late_join_until is a Swiss round, from 1 to rounds")
    if c.entry is not None and c.entry.rating_min is not None and c.entry.rating_max is not None \
            and c.entry.rating_min > c.entry.rating_max:
        raise bad("rating_min is above rating_max")
    if c.invitation_code is not None and not 4 <= len(c.invitation_code) <= 64:
        raise bad("an invitation code has 4 to 64 characters")
    if c.tiebreaks is not None and len(set(c.tiebreaks)) != len(c.tiebreaks):
        raise bad("each tie-break may be named once")
    per_place = c.points_per_place
    if per_place is not None and (len(per_place) != c.seats or any(
            not (0 <= v <= 1000 and float(2 * v).is_integer()) for v in per_place)
            or any(a < b for a, b in zip(per_place, per_place[1:]))):
        raise bad(f"points_per_place is {c.seats} multiples of 1/2 from 0 to 1000, best place first, never rising")
    if c.bye_points is not None and not (0 <= c.bye_points <= _win(c) and (2 * c.bye_points).is_integer()):
        raise bad(f"bye_points is a multiple of 1/2 from 0 to a win ({_win(c):g})")
    if c.format == "single_elimination" and not 1 <= c.advance < c.seats:
        raise bad("single elimination advances at least one and fewer than a whole table")
    smallest = smallest_table(c.seats, c.min_seats)
    if c.min_players and c.min_players < smallest:
        raise bad(f"min_players must be at least the smallest table ({smallest})")
    if c.max_players and c.max_players < max(c.min_players, smallest):
        raise bad("max_players is below min_players")
    if c.max_players > _field_max(c):
        raise bad(f"a {c.format} tournament takes at most {_field_max(c)} players")


def _win(c: CreateTournament) -> float:
    """What winning a full table earns: the first place's points."""
    return float(c.points_per_place[0]) if c.points_per_place else float(c.seats - 1)


def _field_max(c: CreateTournament) -> int:
    return ROUND_ROBIN_MAX if c.format == "round_robin" else FIELD_MAX


def decide(state: Optional[TournamentState], actor: Optional[str], command: TournamentCommand, rng: Rng,
           *, admin: bool = False) -> list[Any]:
    """The events `command` from `actor` (a player id; None = the platform) causes, or RuleViolation.

    `rng` must be `rng_for(state)`; `admin` lets an administrator act as the organiser.
    """
    if state is None:
        raise _refuse("tournament.not_created", "create the tournament first")
    match command:
        case Register():
            return _register(state, actor, command, admin)
        case Withdraw():
            return _withdraw(state, actor, command, admin)
        case Start():
            return _start(state, actor, rng, admin)
        case RecordResult():
            return _record(state, actor, command, admin)
        case Pause() | Resume():
            return organiser.pause(state, _target(state, actor, command.player_id, admin), command, _refuse)
        case RemovePlayer():
            return organiser.remove(state, actor, command, admin, _refuse)
        case ForbidPairing():
            return organiser.forbid(state, actor, command, admin, _refuse)
        case SetPairings():
            return organiser.set_pairings(state, actor, command, admin, _refuse)
        case SetWindows():
            return organiser.set_windows(state, actor, command, _refuse)
        case Annul() | Adjudicate():
            return _completing(state, organiser.correct(state, actor, command, admin, _refuse))
        case _:
            assert_never(command)


def _target(state: TournamentState, actor: Optional[str], player_id: Optional[str], admin: bool) -> str:
    """Whom a register/withdraw is for: oneself, or anyone when the organiser or an admin asks."""
    target = player_id or actor
    if target is None:
        raise _refuse("tournament.not_registered", "name the player")
    if target != actor and not admin and actor != state.organiser:
        raise _refuse("tournament.not_organiser", "only the organiser may register or withdraw someone else")
    return target


def _register(state: TournamentState, actor: Optional[str], command: Register, admin: bool) -> list[Any]:
    target = _target(state, actor, command.player_id, admin)
    late = state.status == "running" and state.round < state.settings.late_join_until
    if state.status != "registration" and not late:
        raise _refuse("tournament.registration_closed", "the tournament has started")
    if target in state.entrants:
        raise _refuse("tournament.already_registered", f"{target} is already registered")
    if len(state.entrants) >= state.settings.max_players:
        raise _refuse("tournament.full", f"the tournament takes at most {state.settings.max_players} players")
    by_organiser = admin or (actor is not None and actor == state.organiser and target != actor)
    if not by_organiser:
        _admitted(state, target, command)
    return [PlayerRegistered(player_id=target, name=command.name, rating=command.rating,
                             rated_games=command.rated_games, code=command.code,
                             invited_by=state.organiser if by_organiser else None)]


def _admitted(state: TournamentState, target: str, command: Register) -> None:
    """The entry conditions for a player registering themselves (the organiser may register anyone)."""
    s = state.settings
    entry = s.entry
    if entry is not None:
        if entry.min_rated_games and (command.rated_games or 0) < entry.min_rated_games:
            raise _refuse("tournament.too_few_rated_games",
                          f"{command.rated_games or 0} rated games, {entry.min_rated_games} needed")
        low, high = entry.rating_min, entry.rating_max
        if (low is not None and command.rating < low) or (high is not None and command.rating > high):
            raise _refuse("tournament.rating_out_of_range",
                          f"rating {command.rating} is outside {low if low is not None else '-'}.."
                          f"{high if high is not None else '-'}")
    invited = entry.invited if entry is not None else []
    if invited or s.code_hash:
        by_code = s.code_hash is not None and command.code is not None and code_hash(state.seed, command.code) == s.code_hash
        if target not in invited and not by_code:
            raise _refuse("tournament.not_invited", "the tournament is by invitation (a wrong or missing code)")


def _withdraw(state: TournamentState, actor: Optional[str], command: Withdraw, admin: bool) -> list[Any]:
    target = _target(state, actor, command.player_id, admin)
    if state.status == "finished":
        raise _refuse("tournament.finished", "the tournament is over")
    entrant = state.entrants.get(target)
    if entrant is None:
        raise _refuse("tournament.not_registered", f"{target} is not registered")
    if not entrant.active:
        raise _refuse("tournament.already_withdrawn", f"{target} has already withdrawn")
    return [PlayerWithdrew(player_id=target)]


def _start(state: TournamentState, actor: Optional[str], rng: Rng, admin: bool) -> list[Any]:
    if not admin and actor != state.organiser:
        raise _refuse("tournament.not_organiser", "only the organiser may start the tournament")
    if state.status != "registration":
        raise _refuse("tournament.already_started", "the tournament has already started")
    if len(state.entrants) < state.settings.min_players:
        raise _refuse("tournament.too_few_players",
                      f"{len(state.entrants)} registered, {state.settings.min_players} needed")
    emit = Emitter(evolve, state)
    emit(TournamentStarted(draw=rng.shuffle(sorted(state.entrants))))
    return emit.events + _next(emit.state)


def _record(state: TournamentState, actor: Optional[str], command: RecordResult, admin: bool) -> list[Any]:
    if actor is not None and not admin:
        raise _refuse("tournament.not_platform", "results are recorded by the platform from the games")
    if state.status != "running":
        raise _refuse("tournament.not_running", f"the tournament is in {state.status}")
    table = state.table_of(command.game_id)
    if table is None:
        raise _refuse("tournament.unknown_game", f"{command.game_id} is not a game of this tournament")
    if state.done(table):
        raise _refuse("tournament.result_already_recorded", f"{command.game_id} already has its result")
    outcome = command.outcome
    size = len(table.players)
    if len(outcome.ranks) != size or len(outcome.scores) != size or not all(1 <= r <= size for r in outcome.ranks):
        raise _refuse("tournament.bad_outcome", f"expected {size} ranks from 1 to {size} and {size} scores")
    return _completing(state, [ResultRecorded(
        round=state.round, table=table.table, game_id=table.game_id, players=list(table.players),
        ranks=list(outcome.ranks), scores=list(outcome.scores),
        points=rank_points(outcome.ranks, state.settings.points_per_place),
        advancing=_advancing(state, table, outcome))])


def _completing(state: TournamentState, events: list[Any]) -> list[Any]:
    """`events`, and the next round (or the end) when they complete the current round."""
    emit = Emitter(evolve, state)
    for event in events:
        emit(event)
    if not state.pending or emit.state.pending:
        return emit.events
    return emit.events + _next(emit.state)


def _advancing(state: TournamentState, table: TableRecord, outcome: Outcome) -> list[str]:
    """Single elimination: the top `advance` of the table, ties at the cut going to the better seed."""
    if state.settings.format != "single_elimination":
        return []
    seed_rank = {pid: i for i, pid in enumerate(seeding(state, list(table.players)))}
    ranked = sorted(range(len(table.players)), key=lambda s: (outcome.ranks[s], seed_rank[table.players[s]]))
    return [table.players[s] for s in ranked[:state.settings.advance]]


def _next(state: TournamentState) -> list[Any]:
    """The next round's pairing, or the end: final standings and the seed revealed."""
    paired = next_round(state)
    if paired is not None:
        return [paired]
    return [TournamentEnded(standings=order(state)), SeedRevealed(seed=state.seed)]

