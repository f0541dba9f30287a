"""Folding tournament events into state: one match arm per event, no validation, no randomness."""

from __future__ import annotations

from typing import Optional, assert_never

from msgspec.structs import replace

from domain.tournament.events import (PairingForbidden, PairingsSet, PlayerPaused, PlayerRegistered, PlayerRemoved, PlayerResumed,
                                      PlayerWithdrew, ResultAdjudicated, ResultAnnulled, ResultRecorded, RoundPaired,
                                      SeedRevealed, TournamentCreated, TournamentEnded, TournamentEvent,
                                      TournamentStarted, WindowsSet)
from domain.tournament.corrections import adjudicated, annulled
from domain.tournament.state import Entrant, RoundRecord, TableRecord, TournamentState


def evolve(state: Optional[TournamentState], event: TournamentEvent) -> TournamentState:
    """`state` after `event` (`state` is None before `TournamentCreated`)."""
    if isinstance(event, TournamentCreated):
        return TournamentState(settings=event, seed=event.seed or "", version=1)
    assert state is not None, "a tournament stream starts with TournamentCreated"
    version = state.version + 1
    match event:
        case PlayerRegistered():
            entrant = Entrant(player_id=event.player_id, name=event.name, rating=event.rating)
            # a late entrant (Swiss, after the start) takes the last place of the seeded draw
            draw = (*state.draw, event.player_id) if state.status == "running" else state.draw
            return replace(state, entrants={**state.entrants, event.player_id: entrant}, draw=draw, version=version)
        case PlayerWithdrew() | PlayerRemoved():
            entrants = dict(state.entrants)
            if state.status == "registration":
                del entrants[event.player_id]
            else:
                entrants[event.player_id] = replace(entrants[event.player_id], active=False,
                                                    removed=isinstance(event, PlayerRemoved))
            return replace(state, entrants=entrants, version=version)
        case PlayerPaused() | PlayerResumed():
            entrant = replace(state.entrants[event.player_id], paused=isinstance(event, PlayerPaused))
            return replace(state, entrants={**state.entrants, event.player_id: entrant}, version=version)
        case WindowsSet():
            entrant = replace(state.entrants[event.player_id], windows=tuple(event.windows))
            return replace(state, entrants={**state.entrants, event.player_id: entrant}, version=version)
        case PairingForbidden():
            pairs = {tuple(sorted((a, b))) for i, a in enumerate(event.players) for b in event.players[i + 1:]}
            return replace(state, forbidden=tuple(sorted(set(state.forbidden) | pairs)), version=version)
        case PairingsSet():
            return replace(state, manual=event, version=version)
        case ResultAnnulled():
            return replace(annulled(state, event), version=version)
        case ResultAdjudicated():
            return replace(adjudicated(state, event), version=version)
        case TournamentStarted():
            return replace(state, status="running", draw=tuple(event.draw), version=version)
        case RoundPaired():
            return _paired(state, event, version)
        case ResultRecorded():
            return _recorded(state, event, version)
        case TournamentEnded():
            return replace(state, status="finished", final=tuple(event.standings), version=version)
        case SeedRevealed():
            return replace(state, seed=event.seed, revealed=True, version=version)
        case TournamentCreated():
            raise AssertionError("a tournament stream holds one TournamentCreated, first")
        case _:
            assert_never(event)


def _paired(state: TournamentState, event: RoundPaired, version: int) -> TournamentState:
    entrants = dict(state.entrants)
    games = dict(state.games)
    tables = []
    for table in event.tables:
        games[table.game_id] = (event.round, table.table)
        tables.append(TableRecord(table=table.table, game_id=table.game_id, players=tuple(table.players),
                                  seed=table.seed))
        for pid in table.players:
            entrants[pid] = replace(entrants[pid], reached=event.round)
    for pid in event.byes:
        e = entrants[pid]
        entrants[pid] = replace(e, reached=event.round, byes=e.byes + 1, points=e.points + event.bye_points)
    record = RoundRecord(round=event.round, tables=tuple(tables), byes=tuple(event.byes),
                         bye_points=event.bye_points)
    return replace(state, entrants=entrants, games=games, rounds=(*state.rounds, record),
                   pending=len(tables), version=version)


def _recorded(state: TournamentState, event: ResultRecorded, version: int) -> TournamentState:
    entrants = dict(state.entrants)
    size = len(event.players)
    elimination = state.settings.format == "single_elimination"
    for seat, pid in enumerate(event.players):
        e = entrants[pid]
        met = dict(e.met)
        for other in event.players:
            if other != pid:
                met[other] = met.get(other, 0) + 1
        entrants[pid] = replace(
            e, points=e.points + event.points[seat], games=e.games + 1, met=met,
            lateness=e.lateness + seat / (size - 1), firsts=e.firsts + (seat == 0), last_seat=seat, last_rank=event.ranks[seat],
            out=e.out or (elimination and pid not in event.advancing))
    current = state.rounds[event.round - 1]
    tables = list(current.tables)
    tables[event.table - 1] = replace(tables[event.table - 1], ranks=tuple(event.ranks),
                                      scores=tuple(event.scores), points=tuple(event.points))
    rounds = list(state.rounds)
    rounds[event.round - 1] = replace(current, tables=tuple(tables))
    return replace(state, entrants=entrants, rounds=tuple(rounds), pending=state.pending - 1, version=version)
