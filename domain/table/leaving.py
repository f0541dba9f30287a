"""Who ranks where when seats have left a running game (`SeatResigned`).

Two rules, the same for every kind:
- The game ends at the leaving (every game of two seats, every game recorded before `play_on`, and a
  game with fewer than two seats still in it): the seats still in are ranked among themselves by their
  scores as they stand, all above the seats that left; of those, whoever left later ranks higher.
- The game went on to its normal end (`play_on`, three seats or more): the rules' outcome, with the
  seats still in keeping their order among themselves and the seats that left ranked below them, whoever
  left later above whoever left earlier. Scores stay as the rules counted them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from domain.kernel import Outcome, ranked


def ended_by_leaving(scores: Sequence[Any], left: Sequence[int], seat: int, reason: str,
                     play_on: bool) -> Outcome:
    """The outcome of a game ending because `seat` (the last of `left`) left it for `reason`."""
    order = {s: i for i, s in enumerate(left)}
    keys = [(0, order[s]) if s in order else (1, scores[s]) for s in range(len(scores))]
    details: dict[str, Any] = {"resigned": seat, "reason": reason}
    if play_on and len(left) > 1:
        details["left"] = list(left)
    return msgspec.structs.replace(ranked(list(scores), keys), details=details)


def left_last(outcome: Outcome, left: Sequence[int]) -> Outcome:
    """The rules' `outcome` of a game played to its end with the seats of `left` ranked below all others."""
    if not left:
        return outcome
    seats = range(len(outcome.ranks))
    order = {s: i for i, s in enumerate(left)}
    # lower is better: the seats still in by their rank, then the leavers, the latest first
    keys = [(1, -order[s]) if s in order else (0, outcome.ranks[s]) for s in seats]
    ranks = [1 + sum(1 for other in keys if other < mine) for mine in keys]
    winners = [s for s in seats if ranks[s] == 1]
    return Outcome(scores=list(outcome.scores), ranks=ranks, winners=winners,
                   details={**outcome.details, "left": list(left)})
