"""Tie-breaks, in the order the organiser chose: values per player, larger is better.

Every game is a set of pairwise meetings (as for rank points): at a table a player scores 1 against
each seat finished behind, 1/2 against each seat tied with, 0 against each seat ahead.

- `buchholz`: the sum, over every game played, of the current rank points of each player sat with.
- `median_buchholz`: the same without the game that contributes most and the one that contributes
  least (when at least three games were played).
- `sonneborn_berger` (its N-seat form): the sum, over every meeting, of what the player scored
  against that opponent times the opponent's rank points; at two seats, the classical one.
- `head_to_head`: what the player scored in meetings with players now on the same rank points.
- `rating`: the rating given at registration.
- `draw`: the seeded draw drawn at the start (earlier is better); always the last key.

A sealed duplicate deal (`deals`) counts for none of them until it opens.
"""

from __future__ import annotations

from domain.tournament.commands import TieBreak
from domain.tournament.deals import sealed_round
from domain.tournament.state import TournamentState
DEFAULT: tuple[TieBreak, ...] = ("buchholz", "rating", "draw")
Meetings = dict[str, list[list[tuple[str, float]]]]  # player -> per game: (opponent, what the player scored)


def meetings(state: TournamentState) -> Meetings:
    """Every player's games, each as its pairwise meetings, from the recorded results."""
    out: Meetings = {pid: [] for pid in state.entrants}
    for record in state.rounds:
        if sealed_round(state, record.round):
            continue
        for table in record.tables:
            if table.ranks is None:
                continue
            for seat, pid in enumerate(table.players):
                mine = table.ranks[seat]
                out[pid].append([(other, 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
                                 for other, theirs in zip(table.players, table.ranks) if other != pid])
    return out


def values(state: TournamentState, points: dict[str, float], order: tuple[TieBreak, ...],
           games: Meetings) -> dict[str, tuple[float, ...]]:
    """Each player's tie-break values in `order` (larger is better), from `points` and their meetings.

    Worked out a column (one tie-break for every player) at a time: the tournament view answers every
    registration with the standings, so a field of a thousand pays this a thousand times."""
    ids = list(state.entrants)
    if not order:
        return {pid: () for pid in ids}
    return dict(zip(ids, zip(*(_column(state, name, ids, points, games) for name in order))))


def _column(state: TournamentState, name: TieBreak, ids: list[str], points: dict[str, float],
            games: Meetings) -> list[float]:
    """The tie-break `name` of each of `ids`, in that order."""
    match name:
        case "buchholz":
            return [sum(points[o] for game in games[pid] for o, _ in game) for pid in ids]
        case "median_buchholz":
            return [_median(sorted(sum(points[o] for o, _ in game) for game in games[pid])) for pid in ids]
        case "sonneborn_berger":
            return [sum(scored * points[o] for game in games[pid] for o, scored in game) for pid in ids]
        case "head_to_head":
            return [sum(scored for game in games[pid] for o, scored in game if points[o] == points[pid])
                    for pid in ids]
        case "rating":
            return [float(state.entrants[pid].rating) for pid in ids]
        case "draw":
            draw = state.draw_index()
            late = len(draw)
            return [-float(draw.get(pid, late)) for pid in ids]
    raise AssertionError(f"unknown tie-break {name}")


def _median(per_game: list[float]) -> float:
    """The sum of `per_game` (sorted) without its extremes, when at least three games were played."""
    return sum(per_game[1:-1]) if len(per_game) >= 3 else sum(per_game)
