"""Arena points: lichess's rules at two seats, and their N-seat form.

At two seats (lichess): a win is worth 2 points, a draw 1, a loss 0. A game of N seats scores
every seat as if it had played a two-seat game against each other seat of the table: 2 points for
each seat ranked below it, 1 for each seat sharing its rank. So at two seats a win is 2 and a draw
1; at four seats the places are worth 6, 4, 2 and 0 (two seats tied for first: 5 each). A *win* is
finishing alone in first place (every other seat ranked below).

Streaks: after two wins in a row a player is on fire, and every game scores double (a win 4, a
draw 2 at two seats) until a game that is not a win ends the streak (that game still scores
double). Berserk: a player who halved their clock and wins scores one extra point (not doubled),
once they have made the arena's `berserk_moves` moves of their own in the game.
An aborted game scores nothing and leaves every streak as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional


def place_points(ranks: Sequence[int], seat: int) -> int:
    """The base points of `seat` for a game ranked `ranks` (1 = first; equal ranks are ties)."""
    mine = ranks[seat]
    below = sum(1 for s, r in enumerate(ranks) if s != seat and r > mine)
    tied = sum(1 for s, r in enumerate(ranks) if s != seat and r == mine)
    return 2 * below + tied


def is_win(ranks: Sequence[int], seat: int) -> bool:
    """Alone in first place: every other seat ranked below."""
    return all(r > ranks[seat] for s, r in enumerate(ranks) if s != seat)


# Own moves a berserk needs before its bonus counts, per kind: lichess counts a berserk only in a game of
# at least 7 plies, the berserker's 4th move in chess; a "move" here is one command, so 4 turns are scaled
# by the commands a turn takes (measured by the random-play harness: Cóatl 2.0, Gold Mine 3.8, Tikal 4.8,
# Tobago 2.7 a turn). A kind not listed takes one command a turn.
BERSERK_MOVES: dict[str, int] = {"coatl": 8, "goldmine": 15, "tikal": 19, "tobago": 11}
TURNS = 4


def berserk_moves(kind: str) -> int:
    """The default number of own moves a berserk in a game of `kind` needs for its bonus."""
    return BERSERK_MOVES.get(kind, TURNS)


def berserk_counts(berserked: bool, moves: Optional[Sequence[int]], seat: int, needed: int) -> bool:
    """Does `seat`'s berserk count: it berserked and made `needed` own moves (`moves` None: only if none are needed)."""
    return berserked and (moves[seat] >= needed if moves is not None else needed == 0)


def game_points(ranks: Sequence[int], seat: int, fire: bool, berserked: bool) -> int:
    """What `seat` scores: its place points, doubled on fire, plus one for a berserk win."""
    base = place_points(ranks, seat) * (2 if fire else 1)
    return base + (1 if berserked and is_win(ranks, seat) else 0)
