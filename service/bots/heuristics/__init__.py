"""Per-kind heuristics of the greedy bot: `scores(view, seat, commands) -> list[float]`, higher is better.

Each reads only the seat's own view (the JSON of `GET /v1/games/{id}`'s `view`, the typed view of
`domain/<kind>/view.py`) and the commands of `/legal`. Where a rule is needed (a tile's paths, a
clue's hexes, a coatl's points) it calls the domain's pure helpers on that public data, as a client
library that knows the published rules would; never the game's state, so no hidden information.
"""

from __future__ import annotations

from typing import Any, Callable

from service.bots.heuristics import coatl, goldmine, tikal, tobago

Json = dict[str, Any]
Scorer = Callable[[Json, int, list[Json]], list[float]]

GIVING_UP = ("EndTurn", "Pass", "PassCard", "Stay", "Resign", "LeaveCoin", "CloseCoatl")


def default_scores(view: Json, seat: int, commands: list[Json]) -> list[float]:
    """For a kind without a heuristic: anything that acts beats ending the turn or passing."""
    return [0.0 if str(c.get("type", "")).rsplit(".", 1)[-1] in GIVING_UP else 1.0 for c in commands]


SCORERS: dict[str, Scorer] = {"tikal": tikal.scores, "coatl": coatl.scores, "tobago": tobago.scores,
                              "goldmine": goldmine.scores}
