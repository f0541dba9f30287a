"""Folding the organiser's corrections of a table: an annulment and an adjudication.

An annulled table counts for nothing, as if it was never played: whatever it had scored is taken
back (rank points, the game, the meetings), and a result its game records later is refused. An
adjudicated table has the organiser's ranks and their rank points, replacing whatever it had; a
table that had no result yet (its game still running, or annulled) counts as played from then on.
Only Swiss and round-robin tables are corrected (`rules`), so no one goes out or through here.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.tournament.events import ResultAdjudicated, ResultAnnulled
from domain.tournament.state import Entrant, TableRecord, TournamentState


def _counted(entrants: dict[str, Entrant], players: tuple[str, ...], points: tuple[float, ...],
             sign: int) -> None:
    """Add (`sign` 1) or take back (-1) a played table's points, game and meetings."""
    for seat, pid in enumerate(players):
        e = entrants[pid]
        met = dict(e.met)
        for other in players:
            if other != pid:
                met[other] = met.get(other, 0) + sign
                if met[other] <= 0:
                    del met[other]
        entrants[pid] = replace(e, points=e.points + sign * points[seat], games=e.games + sign, met=met)


def _with_table(state: TournamentState, round_: int, number: int, table: TableRecord,
                entrants: dict[str, Entrant], pending: int) -> TournamentState:
    record = state.rounds[round_ - 1]
    tables = list(record.tables)
    tables[number - 1] = table
    rounds = list(state.rounds)
    rounds[round_ - 1] = replace(record, tables=tuple(tables))
    return replace(state, rounds=tuple(rounds), entrants=entrants, pending=pending)


def _taken_back(state: TournamentState, round_: int, number: int) -> tuple[TableRecord, dict[str, Entrant], int]:
    """The table, the entrants with whatever it had scored taken back, and the round's pending count after it."""
    table = state.rounds[round_ - 1].tables[number - 1]
    entrants = dict(state.entrants)
    pending = state.pending
    if table.points is not None:
        _counted(entrants, table.players, table.points, -1)
    elif not table.annulled and round_ == state.round:
        pending -= 1
    return table, entrants, pending


def annulled(state: TournamentState, event: ResultAnnulled) -> TournamentState:
    table, entrants, pending = _taken_back(state, event.round, event.table)
    table = replace(table, ranks=None, scores=None, points=None, annulled=True, adjudicated=False)
    return _with_table(state, event.round, event.table, table, entrants, pending)


def adjudicated(state: TournamentState, event: ResultAdjudicated) -> TournamentState:
    table, entrants, pending = _taken_back(state, event.round, event.table)
    points = tuple(event.points)
    _counted(entrants, table.players, points, 1)
    scores = table.scores if table.scores is not None else (0,) * len(table.players)
    table = replace(table, ranks=tuple(event.ranks), scores=scores, points=points, annulled=False,
                    adjudicated=True)
    return _with_table(state, event.round, event.table, table, entrants, pending)
