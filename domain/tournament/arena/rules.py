"""Deciding arena commands: `create` opens an arena, `decide` handles everything after.

`decide` raises `RuleViolation` with one of the codes of `CODES` and never returns an empty list to
mean "refused". Nothing here is random: game seeds and ids are hashes of the arena's seed (see
`pairing`), pairings a pure function of the state, and the time comes in with the platform's
commands, so the whole arena can be re-derived once the seed is revealed (`verify`).
"""

from __future__ import annotations

from typing import Any, Optional, assert_never

from domain.tournament.arena.commands import ArenaCommand, Berserk, Close, CreateArena, Join, Leave, Pair, Pause, RecordResult
from domain.tournament.arena.evolve import evolve
from domain.tournament.arena.events import (ArenaClosed, ArenaCreated, ArenaGame, Berserked, GameScored, PlayerJoined,
                                            PlayerPaused, PlayersPaired, PlayerWithdrew, SeedRevealed, TournamentEnded)
from domain.tournament.arena.pairing import game_id, game_seed, order_key, tables
from domain.tournament.arena.scoring import berserk_counts, berserk_moves, game_points, is_win
from domain.tournament.arena.state import ArenaState
from domain.tournament.arrange import is_uuid
from domain.kernel import Emitter, RuleViolation, seed_commitment

CODES: dict[str, str] = {
    "arena.bad_options": "the settings do not describe an arena that can be run",
    "arena.not_created": "there is no such arena yet",
    "arena.closed": "the arena's time is up: nobody joins or is paired any more",
    "arena.finished": "the arena is over",
    "arena.already_playing": "this player is already taking part",
    "arena.not_joined": "this player has not joined the arena",
    "arena.already_paused": "this player is paused already",
    "arena.left": "this player has left the arena for good",
    "arena.not_platform": "only the platform (or an admin) pairs, closes and records results",
    "arena.not_started": "the arena has not started yet",
    "arena.not_over_yet": "the arena's end time has not come yet",
    "arena.nobody_to_pair": "too few free players can be paired now",
    "arena.unknown_game": "this game is not a game of the arena",
    "arena.result_already_recorded": "this game's result is already recorded",
    "arena.bad_outcome": "the outcome does not fit the game (one rank per seat)",
    "arena.no_berserk": "berserk is off in this arena",
    "arena.not_your_game": "only a player of the game may berserk in it",
    "arena.already_berserk": "this player has already berserked in this game",
    "arena.game_over": "the game has ended",
    "arena.berserk_too_late": "berserk only before one's own first move in the game",
    "arena.not_yourself": "in an arena players pause and leave only for themselves",
    "arena.not_organiser": "only the arena's organiser enters another player (a bot)",
}
MAX_BERSERK_MOVES = 1000
MAX_MINUTES = 24 * 60


def _refuse(code: str, message: str) -> RuleViolation:
    assert code in CODES, code
    return RuleViolation(code, message)


def create(arena_id: str, organiser: str, command: CreateArena, seed: bytes) -> list[Any]:
    """The events opening an arena; `seed` is its fresh secret seed (the service draws it)."""
    if not is_uuid(arena_id):
        raise _refuse("arena.bad_options", "the arena id must be a UUID")
    if not command.kind:
        raise _refuse("arena.bad_options", "an arena needs a game kind")
    if not 2 <= command.seats <= 6:
        raise _refuse("arena.bad_options", "games seat 2 to 6 players")
    if not 1 <= command.minutes <= MAX_MINUTES:
        raise _refuse("arena.bad_options", f"an arena lasts 1 to {MAX_MINUTES} minutes")
    if command.starts_at_ms < 0:
        raise _refuse("arena.bad_options", "the start time cannot be negative")
    moves = berserk_moves(command.kind) if command.berserk_moves is None else command.berserk_moves
    if not 0 <= moves <= MAX_BERSERK_MOVES:
        raise _refuse("arena.bad_options", f"a berserk needs 0 to {MAX_BERSERK_MOVES} own moves")
    return [ArenaCreated(
        arena_id=arena_id, organiser=organiser, kind=command.kind, name=command.name, options=command.options,
        time_control=command.time_control, seats=command.seats, starts_at_ms=command.starts_at_ms,
        ends_at_ms=command.starts_at_ms + 60_000 * command.minutes, berserk=command.berserk,
        seed_commitment=seed_commitment(seed), seed=seed.hex(), berserk_moves=moves)]


def decide(state: Optional[ArenaState], actor: Optional[str], command: ArenaCommand, *,
           admin: bool = False) -> list[Any]:
    """The events `command` from `actor` (a player id; None = the platform) causes, or RuleViolation."""
    if state is None:
        raise _refuse("arena.not_created", "create the arena first")
    if state.finished:
        raise _refuse("arena.finished", "the arena is over")
    match command:
        case Join():
            return _join(state, _player(actor), command)  # the organiser's entry: `_join` checks it
        case Pause():
            return _pause(state, _oneself(actor, command.player_id))
        case Leave():
            return _leave(state, _oneself(actor, command.player_id))
        case Berserk():
            return _berserk(state, _player(actor), command)
        case Pair():
            _platform(actor, admin)
            return pair(state, command.at_ms)
        case Close():
            _platform(actor, admin)
            return _close(state, command.at_ms)
        case RecordResult():
            _platform(actor, admin)
            return _record(state, command)
        case _:
            assert_never(command)


def _player(actor: Optional[str]) -> str:
    if actor is None:
        raise _refuse("arena.not_joined", "players act for themselves")
    return actor


def _oneself(actor: Optional[str], player_id: Optional[str]) -> str:
    if player_id is not None and player_id != actor:
        raise _refuse("arena.not_yourself", "in an arena players pause and leave only for themselves")
    return _player(actor)


def _platform(actor: Optional[str], admin: bool) -> None:
    if actor is not None and not admin:
        raise _refuse("arena.not_platform", "the platform pairs, closes and records results")


def _join(state: ArenaState, actor: str, command: Join) -> list[Any]:
    by = None
    if command.player_id is not None and command.player_id != actor:
        if actor != state.organiser:
            raise _refuse("arena.not_organiser", "only the organiser enters another player")
        actor, by = command.player_id, actor
    if state.closed:
        raise _refuse("arena.closed", "the arena's time is up")
    known = state.players.get(actor)
    if known is not None and known.presence == "active":
        raise _refuse("arena.already_playing", f"{actor} is taking part already")
    if known is not None and known.presence == "left":
        raise _refuse("arena.left", f"{actor} has left the arena")
    return [PlayerJoined(player_id=actor, name=command.name, rating=command.rating, by=by)]


def _pause(state: ArenaState, actor: str) -> list[Any]:
    known = _known(state, actor)
    if known.presence == "paused":
        raise _refuse("arena.already_paused", f"{actor} is paused already")
    return [PlayerPaused(player_id=actor)]


def _leave(state: ArenaState, actor: str) -> list[Any]:
    _known(state, actor)
    return [PlayerWithdrew(player_id=actor)]


def _known(state: ArenaState, actor: str) -> Any:
    known = state.players.get(actor)
    if known is None:
        raise _refuse("arena.not_joined", f"{actor} has not joined the arena")
    if known.presence == "left":
        raise _refuse("arena.left", f"{actor} has left the arena")
    return known


def _berserk(state: ArenaState, actor: str, command: Berserk) -> list[Any]:
    if not state.settings.berserk:
        raise _refuse("arena.no_berserk", "berserk is off in this arena")
    game = state.games.get(command.game_id)
    if game is None:
        raise _refuse("arena.unknown_game", f"{command.game_id} is not a game of this arena")
    if actor not in game.players:
        raise _refuse("arena.not_your_game", "only a player of the game may berserk in it")
    if game.over:
        raise _refuse("arena.game_over", "the game has ended")
    if actor in game.berserked:
        raise _refuse("arena.already_berserk", "berserk once per game")
    return [Berserked(game_id=command.game_id, player_id=actor)]


def pair(state: ArenaState, at_ms: int) -> list[Any]:
    """The games for the players free at `at_ms` (the rule of `pairing`), or a refusal."""
    s = state.settings
    if state.closed or at_ms >= s.ends_at_ms:
        raise _refuse("arena.closed", "no game starts after the arena's end")
    if at_ms < s.starts_at_ms:
        raise _refuse("arena.not_started", f"the arena starts at {s.starts_at_ms}")
    found = tables(state.free(), s.seats)
    if not found:
        raise _refuse("arena.nobody_to_pair", "too few free players can be paired now")
    first = len(state.games) + 1
    games = [ArenaGame(number=n, game_id=game_id(s.arena_id, n), players=[p.player_id for p in table],
                       seed=game_seed(state.seed, n)) for n, table in enumerate(found, start=first)]
    return [PlayersPaired(at_ms=at_ms, games=games)]


def _close(state: ArenaState, at_ms: int) -> list[Any]:
    if state.closed:
        raise _refuse("arena.closed", "the arena is closed already")
    if at_ms < state.settings.ends_at_ms:
        raise _refuse("arena.not_over_yet", f"the arena ends at {state.settings.ends_at_ms}")
    emit = Emitter(evolve, state)
    emit(ArenaClosed(at_ms=at_ms))
    return emit.events + _ending(emit.state)


def _record(state: ArenaState, command: RecordResult) -> list[Any]:
    game = state.games.get(command.game_id)
    if game is None:
        raise _refuse("arena.unknown_game", f"{command.game_id} is not a game of this arena")
    if game.over:
        raise _refuse("arena.result_already_recorded", f"{command.game_id} already has its result")
    size = len(game.players)
    if command.outcome is None:
        scored = GameScored(game_id=game.game_id, players=list(game.players), ranks=[1] * size, points=[0] * size,
                            wins=[False] * size, aborted=True)
    else:
        ranks, moves = list(command.outcome.ranks), command.moves
        if len(ranks) != size or not all(1 <= r <= size for r in ranks):
            raise _refuse("arena.bad_outcome", f"expected {size} ranks from 1 to {size}")
        if moves is not None and (len(moves) != size or min(moves) < 0):
            raise _refuse("arena.bad_outcome", f"expected {size} counts of own moves")
        players = [state.players[pid] for pid in game.players]
        needed = state.settings.berserk_moves
        scored = GameScored(game_id=game.game_id, players=list(game.players), ranks=ranks,
                            points=[game_points(ranks, seat, p.fire,
                                                berserk_counts(p.player_id in game.berserked, moves, seat, needed))
                                    for seat, p in enumerate(players)],
                            wins=[is_win(ranks, seat) for seat in range(size)], moves=moves)
    emit = Emitter(evolve, state)
    emit(scored)
    return emit.events + _ending(emit.state)


def _ending(state: ArenaState) -> list[Any]:
    """The end once the arena is closed and its last game scored: final order, then the seed."""
    if not state.closed or state.running:
        return []
    return [TournamentEnded(standings=final_order(state)), SeedRevealed(seed=state.seed)]


def final_order(state: ArenaState) -> list[str]:
    """Best first: points, then wins, then fewer games, then rating, then who joined first."""
    return [p.player_id for p in sorted(state.players.values(),
                                        key=lambda p: (-p.points, -p.wins, p.games, *order_key(p)[1:]))]
