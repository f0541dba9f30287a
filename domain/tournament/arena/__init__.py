"""Arenas as deciders: a tournament of fixed duration with continuous pairing, all pure.

An arena (lichess's arena, beside Swiss) runs from a start time for a fixed number of minutes.
Players join at any time, pause and come back, or leave; whoever is free is paired at once by score
(`pairing`), never against the same opponents twice in a row. Points follow lichess (2 a win, 1 a
draw, doubled on a streak of two wins or more, +1 for a berserk win) with an N-seat form
(`scoring`). No game starts after the end; games running at the end finish and count, and the
arena ends when the last one has scored.

How the service drives it
-------------------------
- Create: ``events = create(arena_id, organiser, CreateArena(...), seed)`` with a fresh secret seed
  and ``starts_at_ms`` set by the service (its clock); check kind, seats, options and time control
  against the catalogue first (the arena never reads a game's rules).
- Every later command: fold the stream, ``events = decide(state, actor, command, admin=...)`` and
  append them at ``state.version``. ``Pair(at_ms)``, ``Close(at_ms)`` and ``RecordResult`` come from
  the platform (``actor=None``), with the time as input. Every ``PlayersPaired`` lists the games
  (``ArenaGame(number, game_id, players, seed)``): create each with that id and seed, the arena's
  kind, options and time control, seating ``players[i]`` in seat ``i``, in the pairing's append.
- ``Berserked`` is the arena's record; the service halves the player's clock in the game.
- Reading: ``view(state)`` (live standings), ``entrant_view(state, player)`` (one player's part, what
  their join, pause, leave or berserk answers), ``actions(state, player)``; events through
  ``redact(event, public)`` with ``public = state.finished``. Codec: ``event_type``, ``event_data``,
  ``decode_event``.
- Audit: ``verify(events)`` re-decides every decision from the revealed seed.
"""

from domain.tournament.arena.commands import ArenaCommand, Berserk, Close, CreateArena, Join, Leave, Pair, Pause, RecordResult
from domain.tournament.arena.events import (RENAMED, ArenaClosed, ArenaCreated, ArenaEvent, ArenaGame, Berserked, GameScored,
                                            PlayerJoined, PlayerPaused, PlayersPaired, PlayerWithdrew, SeedRevealed,
                                            TournamentEnded)
from domain.tournament.arena.evolve import evolve
from domain.tournament.arena.pairing import game_id, game_seed
from domain.tournament.arena.rules import CODES, create, decide, final_order, pair
from domain.tournament.arena.scoring import BERSERK_MOVES, berserk_moves, game_points, is_win, place_points
from domain.tournament.arena.state import ArenaState, GameRecord, Player
from domain.tournament.arena.verify import VerifyReport, verify
from domain.tournament.arena.view import (ArenaEntrantView, ArenaView, ArenaStanding, actions, decode_event,
                                         entrant_view, event_data, event_type, redact, standings, view)
from domain.kernel import fold as kernel_fold


def fold(events: list[ArenaEvent], state: ArenaState | None = None) -> ArenaState:
    """The state after `events` (from `state`, default the empty stream)."""
    return kernel_fold(evolve, state, events)


__all__ = [
    "BERSERK_MOVES", "CODES", "RENAMED", "ArenaClosed", "ArenaCommand", "ArenaCreated", "ArenaEntrantView", "ArenaEvent", "ArenaGame", "ArenaState",
    "ArenaView", "Berserk", "Berserked", "Close", "CreateArena", "GameRecord", "GameScored", "Join", "Leave", "Pair",
    "Pause", "Player", "PlayerJoined", "PlayerPaused", "PlayerWithdrew", "PlayersPaired", "RecordResult", "SeedRevealed",
    "ArenaStanding", "TournamentEnded", "VerifyReport", "actions", "berserk_moves", "create", "decide", "decode_event", "entrant_view", "event_data", "event_type", "evolve",
    "final_order", "fold", "game_id", "game_points", "game_seed", "is_win", "pair", "place_points", "redact",
    "standings", "verify", "view",
]
