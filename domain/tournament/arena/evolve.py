"""Folding arena events: one match arm per event, never validating, never drawing randomness."""

from __future__ import annotations

from typing import Optional, assert_never

from msgspec.structs import replace

from domain.tournament.arena.events import (ArenaClosed, ArenaCreated, ArenaEvent, Berserked, GameScored, PlayerJoined,
                                            PlayerPaused, PlayersPaired, PlayerWithdrew, SeedRevealed, TournamentEnded)
from domain.tournament.arena.state import ArenaState, GameRecord, Player


def evolve(state: Optional[ArenaState], event: ArenaEvent) -> ArenaState:
    """The state after `event`."""
    if isinstance(event, ArenaCreated):
        assert state is None, "an arena stream holds one ArenaCreated, first"
        return ArenaState(settings=event, seed=event.seed or "", version=1)
    assert state is not None, "an arena stream starts with ArenaCreated"
    version = state.version + 1
    match event:
        case PlayerJoined():
            return _joined(state, event, version)
        case PlayerPaused():
            return _presence(state, event.player_id, "paused", version)
        case PlayerWithdrew():
            return _presence(state, event.player_id, "left", version)
        case PlayersPaired():
            return _paired(state, event, version)
        case Berserked():
            game = state.games[event.game_id]
            player = state.players[event.player_id]
            return replace(state, version=version,
                           games={**state.games, event.game_id: replace(
                               game, berserked=(*game.berserked, event.player_id))},
                           players={**state.players, event.player_id: replace(player, berserks=player.berserks + 1)})
        case GameScored():
            return _scored(state, event, version)
        case ArenaClosed():
            return replace(state, closed=True, version=version)
        case TournamentEnded():
            return replace(state, finished=True, final=tuple(event.standings), version=version)
        case SeedRevealed():
            return replace(state, seed=event.seed, revealed=True, version=version)
        case _:
            assert_never(event)


def _joined(state: ArenaState, event: PlayerJoined, version: int) -> ArenaState:
    known = state.players.get(event.player_id)
    player = (replace(known, presence="active", name=event.name, rating=event.rating) if known is not None else
              Player(player_id=event.player_id, name=event.name, rating=event.rating, index=len(state.players)))
    return replace(state, players={**state.players, event.player_id: player}, version=version)


def _presence(state: ArenaState, player_id: str, presence: str, version: int) -> ArenaState:
    player = replace(state.players[player_id], presence=presence)
    return replace(state, players={**state.players, player_id: player}, version=version)


def _paired(state: ArenaState, event: PlayersPaired, version: int) -> ArenaState:
    players = dict(state.players)
    games = dict(state.games)
    for game in event.games:
        games[game.game_id] = GameRecord(number=game.number, game_id=game.game_id, players=tuple(game.players),
                                         seed=game.seed)
        for seat, pid in enumerate(game.players):
            p = players[pid]
            players[pid] = replace(p, playing=game.game_id, firsts=p.firsts + (seat == 0))
    return replace(state, players=players, games=games, running=state.running + len(event.games), version=version)


def _scored(state: ArenaState, event: GameScored, version: int) -> ArenaState:
    players = dict(state.players)
    for seat, pid in enumerate(event.players):
        p = players[pid]
        if event.aborted:
            players[pid] = replace(p, playing=None)
            continue
        players[pid] = replace(
            p, playing=None, points=p.points + event.points[seat], games=p.games + 1,
            wins=p.wins + event.wins[seat], streak=p.streak + 1 if event.wins[seat] else 0,
            last_opponents=tuple(o for o in event.players if o != pid), sheet=(*p.sheet, event.points[seat]))
    game = replace(state.games[event.game_id], ranks=tuple(event.ranks), points=tuple(event.points),
                   aborted=event.aborted)
    return replace(state, players=players, games={**state.games, event.game_id: game}, running=state.running - 1,
                   version=version)
