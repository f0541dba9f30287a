"""The organiser's tools and the players' own pauses: decided here, dispatched by `rules.decide`.

- `Pause` / `Resume` (Swiss; the player or the organiser): a paused player is left out of the
  pairings from the next round (no bye, no points) until resumed.
- `RemovePlayer` (organiser): like a withdrawal, and the player ranks below everyone still in.
- `ForbidPairing` (organiser, Swiss): no two of the named registered players are to meet; the
  pairing's cost puts a forbidden meeting above every other (`matching`, `arrange.penalty`).
- `SetPairings` (organiser, Swiss): the next round's tables (seat order as given) and byes, every player to
  pair (active, not paused) exactly once, each table of `smallest_table` to `seats` players. `pairing.next_round`
  pairs the round with them if, when it comes, the players to pair are still exactly those (a later pause,
  withdrawal or late entry sends the round back to the automatic pairing); setting them again replaces them.
- `SetWindows` (the player; a slow time control, `domain.windows`): the weekly hours the player plays in,
  well formed, not overlapping, at least `windows.MIN_WEEKLY_MINUTES` a week; the games paired from then on
  count the player's per-move time only inside them (`[]`: any time again).
- `Annul` / `Adjudicate` (organiser; Swiss and round robin): any table of the tournament, its game
  still running or long over. A table of the current round that gets its result this way counts
  towards the round's end like a recorded one; its game's own result is then refused when it comes.
Organiser-only commands refuse anyone else with `tournament.not_organiser` (an admin acts as the
organiser). Every refusal is a `RuleViolation` with a code of `rules.CODES`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from domain import windows as W
from domain.kernel import RuleViolation
from domain.tournament.commands import (Adjudicate, Annul, ForbidPairing, Pause, RemovePlayer, Resume, SetPairings,
                                        SetWindows)
from domain.tournament.deals import sealed_round
from domain.tournament.events import (PairingForbidden, PairingsSet, PlayerPaused, PlayerRemoved, PlayerResumed, ResultAdjudicated,
                                      ResultAnnulled, WindowsSet)
from domain.tournament.pairing import smallest_table
from domain.tournament.standings import rank_points
from domain.tournament.state import TournamentState

Refuse = Callable[[str, str], RuleViolation]


def organiser_only(state: TournamentState, actor: Optional[str], admin: bool, refuse: Refuse, what: str) -> None:
    if not admin and (actor is None or actor != state.organiser):
        raise refuse("tournament.not_organiser", f"only the organiser may {what}")


def _open(state: TournamentState, refuse: Refuse) -> None:
    if state.status == "finished":
        raise refuse("tournament.finished", "the tournament is over")


def _swiss(state: TournamentState, refuse: Refuse, what: str) -> None:
    if state.settings.format != "swiss":
        raise refuse("tournament.not_in_format", f"{what} is for Swiss tournaments")


def pause(state: TournamentState, target: str, command: Pause | Resume, refuse: Refuse) -> list[Any]:
    """`target` (already checked as the actor or someone the organiser names) pauses or resumes."""
    _swiss(state, refuse, "a pause")
    _open(state, refuse)
    entrant = state.entrants.get(target)
    if entrant is None:
        raise refuse("tournament.not_registered", f"{target} is not registered")
    if not entrant.active:
        raise refuse("tournament.already_withdrawn", f"{target} has left the tournament")
    if isinstance(command, Pause):
        if entrant.paused:
            raise refuse("tournament.already_paused", f"{target} is paused already")
        return [PlayerPaused(player_id=target)]
    if not entrant.paused:
        raise refuse("tournament.not_paused", f"{target} is not paused")
    return [PlayerResumed(player_id=target)]


def remove(state: TournamentState, actor: Optional[str], command: RemovePlayer, admin: bool,
           refuse: Refuse) -> list[Any]:
    organiser_only(state, actor, admin, refuse, "remove a player")
    _open(state, refuse)
    entrant = state.entrants.get(command.player_id)
    if entrant is None:
        raise refuse("tournament.not_registered", f"{command.player_id} is not registered")
    if not entrant.active:
        raise refuse("tournament.already_withdrawn", f"{command.player_id} has left the tournament")
    return [PlayerRemoved(player_id=command.player_id, reason=command.reason)]


def forbid(state: TournamentState, actor: Optional[str], command: ForbidPairing, admin: bool,
           refuse: Refuse) -> list[Any]:
    organiser_only(state, actor, admin, refuse, "forbid pairings")
    _swiss(state, refuse, "a forbidden pairing")
    _open(state, refuse)
    players = list(dict.fromkeys(command.players))
    if len(players) < 2:
        raise refuse("tournament.bad_request", "name at least two different players")
    unknown = [pid for pid in players if pid not in state.entrants]
    if unknown:
        raise refuse("tournament.not_registered", f"not registered: {', '.join(unknown)}")
    return [PairingForbidden(players=players)]


def set_pairings(state: TournamentState, actor: Optional[str], command: SetPairings, admin: bool,
                 refuse: Refuse) -> list[Any]:
    organiser_only(state, actor, admin, refuse, "set the pairings")
    _swiss(state, refuse, "a manual pairing")
    _open(state, refuse)
    number = state.round + 1
    if command.round < number:
        raise refuse("tournament.round_already_paired", f"round {command.round} is paired already")
    if command.round != number or number > state.settings.rounds:
        raise refuse("tournament.bad_request", f"only the next round ({number} of {state.settings.rounds}) can be set")
    s = state.settings
    low = smallest_table(s.seats, s.min_seats)
    for table in command.tables:
        if not low <= len(table) <= s.seats:
            size = f"{low} to {s.seats}" if low < s.seats else f"{s.seats}"
            raise refuse("tournament.pairing_table_size", f"a table of {len(table)}: tables seat {size} players")
    listed = [pid for table in command.tables for pid in table] + list(command.byes)
    unknown = [pid for pid in dict.fromkeys(listed) if pid not in state.entrants]
    if unknown:
        raise refuse("tournament.pairing_unknown_player", f"not registered: {', '.join(unknown)}")
    twice = [pid for pid in dict.fromkeys(listed) if listed.count(pid) > 1]
    if twice:
        raise refuse("tournament.pairing_player_twice", f"listed more than once: {', '.join(twice)}")
    active = state.active_ids()
    missing, idle = set(active) - set(listed), set(listed) - set(active)
    if missing or idle:
        raise refuse("tournament.pairing_incomplete", "every player to pair once, nobody else: "
                     f"missing {', '.join(sorted(missing)) or '-'}; not to pair {', '.join(sorted(idle)) or '-'}")
    if not command.tables:
        raise refuse("tournament.pairing_table_size", "a round needs at least one table")
    return [PairingsSet(round=number, tables=[list(t) for t in command.tables], byes=list(command.byes))]


def set_windows(state: TournamentState, actor: Optional[str], command: SetWindows, refuse: Refuse) -> list[Any]:
    """The actor's own playing windows: registered and still in, a slow time control, windows well formed."""
    _open(state, refuse)
    entrant = state.entrants.get(actor) if actor is not None else None
    if entrant is None:
        raise refuse("tournament.not_registered", "only a registered player sets their playing windows")
    if not entrant.active:
        raise refuse("tournament.already_withdrawn", f"{actor} has left the tournament")
    if not W.is_slow(state.settings.time_control.get("per_move_seconds")):
        raise refuse("tournament.windows_not_slow",
                     f"playing windows need a per-move time of at least {W.SLOW_PER_MOVE_SECONDS // 3600} hours")
    found = W.problem(command.windows) if command.windows else None
    if found is not None:
        raise refuse(f"tournament.windows_{found[0]}", found[1])
    return [WindowsSet(player_id=entrant.player_id, windows=sorted(command.windows, key=lambda w: w.start))]


def correct(state: TournamentState, actor: Optional[str], command: Annul | Adjudicate, admin: bool,
            refuse: Refuse) -> list[Any]:
    """The events of an annulment or an adjudication (the caller adds the next round when it completes one)."""
    organiser_only(state, actor, admin, refuse, "annul or adjudicate a game")
    if state.settings.format == "single_elimination":
        raise refuse("tournament.not_in_format", "single-elimination games are not corrected")
    if state.status != "running":
        raise refuse("tournament.not_running", f"the tournament is in {state.status}")
    table = state.table_of(command.game_id)
    where = state.games.get(command.game_id)
    if table is None or where is None:
        raise refuse("tournament.unknown_game", f"{command.game_id} is not a game of this tournament")
    if sealed_round(state, where[0]):
        raise refuse("tournament.deal_sealed", "a duplicate deal is corrected once every table of it has ended")
    players = list(table.players)
    if isinstance(command, Annul):
        if table.annulled:
            raise refuse("tournament.already_annulled", f"{command.game_id} is annulled already")
        return [ResultAnnulled(round=where[0], table=where[1], game_id=command.game_id, players=players)]
    size = len(players)
    if len(command.ranks) != size or not all(1 <= r <= size for r in command.ranks):
        raise refuse("tournament.bad_outcome", f"expected {size} ranks from 1 to {size}")
    return [ResultAdjudicated(round=where[0], table=where[1], game_id=command.game_id, players=players,
                              ranks=list(command.ranks), points=rank_points(command.ranks, state.settings.points_per_place))]
