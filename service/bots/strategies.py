"""How a bot picks one command among the legal ones, from what its seat may see and nothing else.

`random` picks uniformly. `greedy` reads its own view (`GET /v1/games/{id}`, the `view` field: the
seat's typed view, components printed inline) and asks the kind's heuristic
(`Game.bot_scores`, reached through the catalogue `domain.catalog.GAMES`) to score every command of
`/legal`; it plays a best one, ties broken by its seeded RNG. Dry runs are not used: they reveal nothing a seat could not see, by design.
A kind without a heuristic gets `default_scores`: anything rather than ending the turn early.

Both strategies also offer `decide(view, seat, commands)`, the same choice without HTTP, so the
in-process head-to-head (`headtohead --in-process`) and the tests play thousands of moves quickly.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Protocol

from domain.catalog import GAMES
from service.bots.client import ApiClient

Json = dict[str, Any]
Scorer = Callable[[Json, int, list[Json]], list[float]]

GIVING_UP = ("EndTurn", "Pass", "PassCard", "Stay", "Resign", "LeaveCoin", "CloseCoatl")


def default_scores(view: Json, seat: int, commands: list[Json]) -> list[float]:
    """For a kind without a heuristic: anything that acts beats ending the turn or passing."""
    return [0.0 if str(c.get("type", "")).rsplit(".", 1)[-1] in GIVING_UP else 1.0 for c in commands]


def scorer(kind: str) -> Scorer:
    """The kind's heuristic from the catalogue (`Game.bot_scores`), else `default_scores`."""
    game = GAMES.get(kind)
    return game.bot_scores if game is not None and game.bot_scores is not None else default_scores


class Strategy(Protocol):
    name: str

    async def choose(self, api: ApiClient, game_id: str, legal: Json) -> Json:
        """One of `legal["commands"]` (non-empty) for `legal["seat"]` at `legal["version"]`."""
        ...

    def decide(self, view: Json | None, seat: int, commands: list[Json]) -> Json:
        """One of `commands` (non-empty), knowing only `view`, the seat's own view."""
        ...


class RandomStrategy:
    name = "random"
    reads = False  # chooses without reading the view or the commands: `pick` an index among `n`

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    async def choose(self, api: ApiClient, game_id: str, legal: Json) -> Json:
        return self.rng.choice(legal["commands"])

    def decide(self, view: Json | None, seat: int, commands: list[Json]) -> Json:
        return self.rng.choice(commands)

    def pick(self, n: int) -> int:
        """The index `decide` would choose among `n` commands (the same draw of the same RNG)."""
        return self.rng.randrange(n)


class GreedyStrategy:
    """One ply of judgement: the kind's heuristic scores each legal command from the seat's own view."""

    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.blind = 0  # choices made without a view (a server that sent none): uniform among the best default

    async def choose(self, api: ApiClient, game_id: str, legal: Json) -> Json:
        commands = legal["commands"]
        if len(commands) == 1:
            return commands[0]
        view = (await api.game(game_id)).get("view")
        return self.decide(view if isinstance(view, dict) else None, legal["seat"], commands)

    def decide(self, view: Json | None, seat: int, commands: list[Json]) -> Json:
        if len(commands) == 1:
            return commands[0]
        if view is None:
            self.blind += 1
            scores = default_scores({}, seat, commands)
        else:
            scores = scorer(str(view.get("kind")))(view, seat, commands)
        best = max(scores)
        return self.rng.choice([c for c, s in zip(commands, scores) if s >= best - 1e-9])


def make_strategy(name: str, seed: int | str | None) -> Strategy:
    rng = random.Random(seed)
    if name == "random":
        return RandomStrategy(rng)
    if name == "greedy":
        return GreedyStrategy(rng)
    raise ValueError(f"unknown strategy {name!r}; known: random, greedy")
