"""The tournament report: every pairing with its result, and the standings with their tie-breaks.

`report(state)` is what the organiser publishes (JSON), `report_rows(state, part)` the same as a table for CSV
(`standings`: one line per player; `pairings`: one line per seat of every table, and one per bye).
It shows what the public view shows: the seed once revealed, no result of a sealed duplicate deal.
`checked(report, events)` is the audit of a report: the log must verify (`verify`) and the report
must be the one its final state gives, so a published report cannot differ from the games.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from domain.kernel import fold as kernel_fold
from domain.tournament.deals import sealed_round
from domain.tournament.evolve import evolve
from domain.tournament.standings import Standing, tiebreak_order
from domain.tournament.state import TournamentState
from domain.tournament.verify import verify
from domain.tournament.view import standings_shown, table_status


class ReportTable(msgspec.Struct, frozen=True, kw_only=True):
    """One table of a round: players in seat order; ranks, scores and rank points once known."""

    round: int
    table: int
    game_id: str
    players: list[str]
    status: str
    ranks: list[int] | None = None
    scores: list[int] | None = None
    points: list[float] | None = None


class ReportRound(msgspec.Struct, frozen=True, kw_only=True):
    round: int
    tables: list[ReportTable]
    byes: list[str]
    bye_points: float


class Report(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament's report: settings, standings (with the tie-break values in `tiebreaks` order), rounds."""

    tournament_id: str
    name: str
    kind: str
    format: str
    status: str
    version: int
    seed_commitment: str
    seed: str | None
    tiebreaks: list[str]
    standings: list[Standing]
    rounds: list[ReportRound]


def report(state: TournamentState) -> Report:
    """The report of `state` as anyone may see it."""
    s = state.settings
    rounds = []
    for record in state.rounds:
        sealed = sealed_round(state, record.round)
        tables = [ReportTable(round=record.round, table=t.table, game_id=t.game_id, players=list(t.players),
                              status=table_status(t, sealed),
                              ranks=None if sealed or t.ranks is None else list(t.ranks),
                              scores=None if sealed or t.scores is None else list(t.scores),
                              points=None if sealed or t.points is None else list(t.points))
                  for t in record.tables]
        rounds.append(ReportRound(round=record.round, tables=tables, byes=list(record.byes),
                                  bye_points=record.bye_points))
    return Report(tournament_id=s.tournament_id, name=s.name, kind=s.kind, format=s.format, status=state.status,
                  version=state.version, seed_commitment=s.seed_commitment,
                  seed=state.seed if state.revealed else None, tiebreaks=list(tiebreak_order(s)),
                  standings=standings_shown(state), rounds=rounds)


def report_rows(state: TournamentState, part: Literal["standings", "pairings"]) -> list[list[Any]]:
    """`part` of the report as a table, its header line first (the service writes it as CSV)."""
    rows: list[list[Any]] = []
    data = report(state)
    if part == "standings":
        rows.append(["place", "player_id", "name", "points", *data.tiebreaks, "games", "byes", "status"])
        for line in data.standings:
            status = "removed" if line.removed else "withdrawn" if not line.active else (
                "paused" if line.paused else "out" if line.out else "")
            rows.append([line.place, line.player_id, line.name, _num(line.points),
                             *(_num(v) for v in line.tiebreaks), line.games, line.byes, status])
        return rows
    names = {line.player_id: line.name for line in data.standings}
    rows.append(["round", "table", "game_id", "seat", "player_id", "name", "rank", "score", "points", "status"])
    for record in data.rounds:
        for t in record.tables:
            for seat, pid in enumerate(t.players):
                rows.append([record.round, t.table, t.game_id, seat, pid, names.get(pid, ""),
                                 _at(t.ranks, seat), _at(t.scores, seat), _num(_at(t.points, seat)), t.status])
        for pid in record.byes:
            rows.append([record.round, "", "", "", pid, names.get(pid, ""), "", "", _num(record.bye_points), "bye"])
    return rows


def _at(values: list[Any] | None, i: int) -> Any:
    return "" if values is None else values[i]


def _num(value: Any) -> Any:
    """Rank points and tie-breaks are multiples of 1/2: whole ones without a trailing .0."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def checked(published: dict[str, Any], events: list[Any]) -> list[str]:
    """Problems with a published report (JSON, as `report` gives it) against the tournament's whole log."""
    audit = verify(events)
    problems = list(audit.problems)
    if not events:
        return problems or ["the log is empty"]
    state = kernel_fold(evolve, None, events)
    derived = msgspec.to_builtins(report(state))
    for field in ("tournament_id", "status", "seed_commitment", "seed", "tiebreaks", "standings", "rounds"):
        if published.get(field) != derived[field]:
            problems.append(f"the report's {field} is not what the log gives")
    return problems
