"""Tournaments as deciders: pairings, results, standings and their audit, all pure.

A tournament is an event-sourced aggregate with its own stream (stream id =
the tournament id, a UUID). It sees only game outcomes, never a game's rules.

How the service drives it
-------------------------
- Create: ``events = create(tournament_id, organiser, CreateTournament(...), seed)``
  with ``seed = os.urandom(32)``; append them as the stream's first events.
  Check ``kind`` and ``options`` against the catalogue first (the tournament
  never reads a game's rules), and pass ``min_seats = min(seats, the kind's
  min_players)`` to allow tables one seat short when the kind accepts them.
- Every later command: fold the stream (``fold(events)`` or ``evolve`` one by
  one), then ``events = decide(state, actor, command, rng_for(state), admin=...)``
  and append them at ``state.version``. ``actor`` is the caller's player id;
  ``RecordResult`` comes from the platform (``actor=None``) — the process that
  follows the global log and turns each finished tournament game into
  ``RecordResult(game_id, outcome)`` (``domain.kernel.Outcome`` in the game's
  seat order), exactly once; a repeat is refused with
  ``tournament.result_already_recorded``. Refusals raise
  ``domain.kernel.RuleViolation`` with a code of ``CODES``.
- Games: every ``RoundPaired`` event lists ``tables``: ``PairedTable(table,
  game_id, players, seed)`` with players in seat order and the game's secret
  seed (hex). Create each game with that id, seed (``bytes.fromhex``), the
  tournament's ``kind``, ``options`` and ``time_control`` (from
  ``state.settings``), seating ``players[i]`` in seat ``i`` — all games of a
  round in one transaction. Ids and seeds are pure (``game_id``,
  ``game_seed``), so a retry derives the same ones. In a duplicate tournament
  every table of a round shares one seed, one *deal* (``deals``): the
  service shows a deal's games only as their own seats see them until every
  table of it has ended (``unrecorded`` names the games to look at), or a
  finished table's revealed seed shows the others their deal.
- A result that completes a round carries the next ``RoundPaired`` (or
  ``TournamentEnded`` + ``SeedRevealed``) in the same batch of events.
- Reading: ``view(state)`` (standings, rounds, tables with game ids), ``entrant_view(state,
  player_id, before)`` (one player's entry, what a registration or a withdrawal answers),
  ``standings(state)``; readers get events through ``redact(event, public)``
  with ``public = state.status == "finished"`` (the tournament seed and the
  game seeds stay secret until then), or through ``shown(state, event)``,
  which also hides a sealed deal's results. Codec: ``event_type``, ``event_data``,
  ``decode_event``, ``decode_command``. A fold costs about 0.1 s for a
  1,000-player, 5-round stream: keep the state (or a snapshot) between commands.
- A game that ends without an outcome (aborted) must still be reported, or the
  round never ends: send an ``Outcome`` that ranks its seats as the service's
  rule says (for example everyone level, or the abandoning seat last).
- Audit: ``verify(events)`` re-decides every registration, withdrawal, start
  and result from the revealed seed and reports any pairing, draw, seed,
  point or standing that differs (``VerifyReport``).

Commands: CreateTournament, Register, Withdraw, Start, RecordResult; the organiser's tools
(``organiser``): Pause, Resume, RemovePlayer, ForbidPairing, SetPairings, Annul, Adjudicate; a player's
playing windows in a slow tournament: SetWindows.
Events: TournamentCreated, PlayerRegistered, PlayerWithdrew, TournamentStarted,
RoundPaired, ResultRecorded, TournamentEnded, SeedRevealed; PlayerPaused, PlayerResumed,
PlayerRemoved, PairingForbidden, PairingsSet, ResultAnnulled, ResultAdjudicated, WindowsSet. PlayerWithdrew,
PlayerPaused, TournamentEnded and SeedRevealed are the facts every format shares, the arena's too (``facts``).
Rules of pairing and scoring: see ``pairing`` (formats, byes, seat order),
``arrange`` (table sizes, game ids and seeds) and ``standings`` (rank points,
tie-breaks).
"""

from domain.kernel import fold as kernel_fold
from domain.tournament.arrange import game_id, game_seed, table_sizes
from domain.tournament.deals import deal_round, sealed_round, unrecorded, unsealed
from domain.tournament.commands import (Adjudicate, Annul, CreateTournament, Entry, ForbidPairing, Format, Pause,
                                        RecordResult, Register, RemovePlayer, Resume, SetPairings, SetWindows, Start,
                                        TieBreak, TournamentCommand, Withdraw)
from domain.tournament.events import (PairedTable, PlayerPaused, PlayerRegistered, PlayerWithdrew, ResultRecorded,
                                      RoundPaired, SeedRevealed, TournamentCreated, TournamentEnded, TournamentEvent,
                                      TournamentStarted, WindowsSet)
from domain.tournament.evolve import evolve
from domain.tournament.pairing import next_round
from domain.tournament.rules import CODES, create, decide
from domain.tournament.standings import Standing, bye_points, rank_points, standings
from domain.tournament.state import Entrant, TournamentState, rng_for
from domain.tournament.verify import VerifyReport, verify
from domain.windows import PlayingWindows
from domain.tournament.view import (EntrantView, TournamentView, decode_command, decode_event, entrant_view,
                                    event_data, event_type, redact, shown, view)


def fold(events: list[TournamentEvent], state: TournamentState | None = None) -> TournamentState:
    """The state after `events` (from `state`, default the empty stream)."""
    return kernel_fold(evolve, state, events)


__all__ = [
    "Adjudicate", "Annul", "EntrantView", "Entry", "ForbidPairing", "PlayingWindows", "SetPairings", "SetWindows", "WindowsSet", "Pause", "RemovePlayer", "Resume", "CODES", "CreateTournament", "Entrant", "Format", "PairedTable", "PlayerPaused", "PlayerRegistered", "PlayerWithdrew",
    "RecordResult", "Register", "ResultRecorded", "RoundPaired", "SeedRevealed", "Standing", "Start",
    "TieBreak", "TournamentCommand", "TournamentCreated", "TournamentEnded", "TournamentEvent", "TournamentStarted",
    "TournamentState", "TournamentView", "VerifyReport", "Withdraw", "bye_points", "create", "decide",
    "deal_round", "decode_command", "decode_event", "entrant_view", "event_data", "event_type", "evolve", "fold",
    "game_id", "game_seed",
    "next_round", "rank_points", "redact", "rng_for", "sealed_round", "shown", "standings", "table_sizes", "unrecorded",
    "unsealed", "verify", "view",
]
