"""The organiser's tools and the players' own pauses: decided here, dispatched by `rules.decide`.

- `Pause` / `Resume` (Swiss; the player or the organiser): a paused player is left out of the
  pairings from the next round (no bye, no points) until resumed.
- `RemovePlayer` (organiser): like a withdrawal, and the player ranks below everyone still in.
- `ForbidPairing` (organiser, Swiss): no two of the named registered players are to meet; the
  pairing's cost puts a forbidden meeting above every other (`matching`, `arrange.penalty`).
- `Annul` / `Adjudicate` (organiser; Swiss and round robin): any table of the tournament, its game
  still running or long over. A table of the current round that gets its result this way counts
  towards the round's end like a recorded one; its game's own result is then refused when it comes.
Organiser-only commands refuse anyone else with `tournament.not_organiser` (an admin acts as the
organiser). Every refusal is a `RuleViolation` with a code of `rules.CODES`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from domain.kernel import RuleViolation
from domain.tournament.commands import Adjudicate, Annul, ForbidPairing, Pause, RemovePlayer, Resume
from domain.tournament.deals import sealed_round
from domain.tournament.events import (PairingForbidden, PlayerPaused, PlayerRemoved, PlayerResumed, ResultAdjudicated,
                                      ResultAnnulled)
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
                              ranks=list(command.ranks), points=rank_points(command.ranks))]
