"""Rank points, tie-breaks and the standings order.

Rank points generalise the chess score to N-seat tables: every game is a set
of pairwise meetings, and a seat earns 1 point for each seat it finished ahead
of and 1/2 for each seat it tied with. At a full 4-seat table the 1st/2nd/3rd/
4th places earn 3/2/1/0; at N seats the places earn N-1 ... 0; seats sharing a
rank share the points of the places they cover (two tied winners of a 4-seat
table earn 2.5 each). Every value is a multiple of 1/2, so floats stay exact.
A bye earns the organiser's `bye_points` (default a win, `seats - 1`;
tournaments recorded under pairing rule 1: `(seats - 1) / 2`, the average
points of a full table). A table
one seat short offers one point less to each place (its winner earns
seats - 2); the pairings put short tables at the bottom of the standings.
The organiser may set the points of each place instead (`points_per_place`, one value per seat,
best place first, never rising, multiples of 1/2; Board Game Arena's tournaments): a table of k
seats offers the last k of them (as the default does: a short table's winner earns the second
place's points), and seats sharing a rank share the mean of the places they cover.

Order (best first): players the organiser removed last; then rank points; then the organiser's tie-breaks in their
order (`tiebreaks`; by default opponents' strength (Buchholz for N seats: the
sum, over every game played, of the current rank points of each player sat
with), then the rating given at registration); then the seeded draw drawn at
the start. Single elimination puts first the round a player reached,
then their rank at that last table, then the same keys.
"""

from __future__ import annotations

import msgspec

from domain.tournament.events import TournamentCreated
from domain.tournament.state import Entrant, TournamentState
from domain.tournament.tiebreaks import DEFAULT, TieBreak, meetings, values


def rank_points(ranks: list[int] | tuple[int, ...],
                per_place: list[float] | msgspec.UnsetType | None = None) -> list[float]:
    """Rank points per seat for one table's `ranks` (1 = best, ties share a rank): the mean of the places
    each seat covers, out of the last `len(ranks)` of `per_place` (default: places worth seats - 1 ... 0)."""
    size = len(ranks)
    if isinstance(per_place, list) and per_place:
        places = list(per_place[-size:])
    else:
        places = [float(size - 1 - i) for i in range(size)]

    def worth(mine: int) -> float:
        better = sum(1 for other in ranks if other < mine)
        tied = sum(1 for other in ranks if other == mine)
        return sum(places[better:better + tied]) / tied

    return [worth(mine) for mine in ranks]


def places_of(settings: TournamentCreated) -> list[float]:
    """What each place of a full table is worth, best first (the organiser's, or seats - 1 ... 0)."""
    if isinstance(settings.points_per_place, list) and settings.points_per_place:
        return list(settings.points_per_place)
    return rank_points(list(range(1, settings.seats + 1)))


def bye_points(seats: int) -> float:
    """What a bye was worth at `seats`-seat tables under pairing rule 1: the average points of a full table."""
    return (seats - 1) / 2


def tiebreak_order(settings: TournamentCreated) -> tuple[TieBreak, ...]:
    """The organiser's tie-breaks (default Buchholz, rating), always ending with the seeded draw."""
    chosen = tuple(settings.tiebreaks) if settings.tiebreaks is not None else DEFAULT
    return chosen if "draw" in chosen else (*chosen, "draw")


def buchholz(entrants: dict[str, Entrant], player_id: str) -> float:
    """The sum of the rank points of everyone `player_id` sat with, once per game shared."""
    return sum(entrants[other].points * times for other, times in entrants[player_id].met.items())


def order(state: TournamentState, player_ids: list[str] | None = None,
          breaks: dict[str, tuple[float, ...]] | None = None) -> list[str]:
    """`player_ids` (default: every entrant) best first, by the documented keys; `breaks`: the
    tie-break values of `breaks_of(state)` when the caller has them already."""
    ids = list(state.entrants) if player_ids is None else list(player_ids)
    entrants = state.entrants
    elimination = state.settings.format == "single_elimination"
    breaks = breaks_of(state) if breaks is None else breaks

    def key(pid: str) -> tuple:
        e = entrants[pid]
        base = (-e.points, *(-v for v in breaks[pid]), pid)
        if elimination:
            return (e.removed, -e.reached, e.last_rank or 1 << 30, *base)
        return (e.removed, *base)

    return sorted(ids, key=key)


def breaks_of(state: TournamentState) -> dict[str, tuple[float, ...]]:
    """Each player's tie-break values in the organiser's order."""
    points = {pid: e.points for pid, e in state.entrants.items()}
    return values(state, points, tiebreak_order(state.settings), meetings(state))


def seeding(state: TournamentState, player_ids: list[str]) -> list[str]:
    """`player_ids` in pre-tournament seed order: rating, then the seeded draw."""
    draw = state.draw_index()
    entrants = state.entrants
    return sorted(player_ids, key=lambda pid: (-entrants[pid].rating, draw.get(pid, len(draw)), pid))


class Standing(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the standings: `place` is 1-based (equal keys still get distinct places)."""

    place: int
    player_id: str
    name: str
    points: float
    buchholz: float
    rating: int
    games: int
    byes: int
    active: bool
    reached: int
    out: bool
    tiebreaks: list[float] = []  # the values of the tournament's `tiebreaks`, in its order
    paused: bool = False
    removed: bool = False


def standings(state: TournamentState) -> list[Standing]:
    """Every entrant, best first, with the values the order was built from."""
    entrants = state.entrants
    breaks = breaks_of(state)  # once: the order is built from the same values the lines show
    ids = list(state.final) if state.final else order(state, breaks=breaks)
    return [Standing(tiebreaks=list(breaks[pid]), place=place, player_id=pid, name=entrants[pid].name, points=entrants[pid].points,
                     buchholz=buchholz(entrants, pid), rating=entrants[pid].rating, games=entrants[pid].games,
                     byes=entrants[pid].byes, active=entrants[pid].active, reached=entrants[pid].reached,
                     out=entrants[pid].out, paused=entrants[pid].paused, removed=entrants[pid].removed)
            for place, pid in enumerate(ids, start=1)]
