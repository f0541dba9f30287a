"""Arena points: lichess's rules at two seats, and their N-seat form.

At two seats (lichess): a win is worth 2 points, a draw 1, a loss 0. A game of N seats scores
every seat as if it had played a two-seat game against each other seat of the table: 2 points for
each seat ranked below it, 1 for each seat sharing its rank. So at two seats a win is 2 and a draw
1; at four seats the places are worth 6, 4, 2 and 0 (two seats tied for first: 5 each). A *win* is
finishing alone in first place (every other seat ranked below).

Streaks: after two wins in a row a player is on fire, and every game scores double (a win 4, a
draw 2 at two seats) until a game that is not a win ends the streak (that game still scores
double). Berserk: a player who halved their clock and wins scores one extra point (not doubled).
An aborted game scores nothing and leaves every streak as it was.
"""

from __future__ import annotations

from collections.abc import Sequence


def place_points(ranks: Sequence[int], seat: int) -> int:
    """The base points of `seat` for a game ranked `ranks` (1 = first; equal ranks are ties)."""
    mine = ranks[seat]
    below = sum(1 for s, r in enumerate(ranks) if s != seat and r > mine)
    tied = sum(1 for s, r in enumerate(ranks) if s != seat and r == mine)
    return 2 * below + tied


def is_win(ranks: Sequence[int], seat: int) -> bool:
    """Alone in first place: every other seat ranked below."""
    return all(r > ranks[seat] for s, r in enumerate(ranks) if s != seat)


def game_points(ranks: Sequence[int], seat: int, fire: bool, berserked: bool) -> int:
    """What `seat` scores: its place points, doubled on fire, plus one for a berserk win."""
    base = place_points(ranks, seat) * (2 if fire else 1)
    return base + (1 if berserked and is_win(ranks, seat) else 0)
