"""How a bot picks one command among the legal ones, knowing nothing of any game's rules.

`random` picks uniformly. `greedy` looks one ply ahead through the server: it dry-runs each
candidate (`?dry_run=true&include=view`) and keeps those that leave its own `view.scores[seat]`
highest, ties broken at random. A server that returns no view makes greedy fall back to a random
choice among the candidates the dry run accepted.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from service.bots.client import ApiClient, ApiError

GREEDY_CANDIDATES = 40


class Strategy(Protocol):
    name: str

    async def choose(self, api: ApiClient, game_id: str, legal: dict[str, Any]) -> dict[str, Any]:
        """One of `legal["commands"]` (non-empty) for `legal["seat"]` at `legal["version"]`."""
        ...


class RandomStrategy:
    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    async def choose(self, api: ApiClient, game_id: str, legal: dict[str, Any]) -> dict[str, Any]:
        return self.rng.choice(legal["commands"])


def own_score(result: dict[str, Any], seat: int) -> float | None:
    """The caller's score in a dry run's resulting view, if the server sent one.

    The envelope's `scores[seat]`; views still without the envelope may carry `players[seat].score`.
    """
    view = result.get("view")
    if not isinstance(view, dict):
        return None
    scores = view.get("scores")
    if isinstance(scores, list) and 0 <= seat < len(scores):
        score = scores[seat]
    else:
        players = view.get("players")
        entry = players[seat] if isinstance(players, list) and 0 <= seat < len(players) else None
        score = entry.get("score") if isinstance(entry, dict) else None
    return float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None


class GreedyStrategy:
    name = "greedy"

    def __init__(self, rng: random.Random, candidates: int = GREEDY_CANDIDATES) -> None:
        self.rng, self.candidates = rng, candidates
        self.dry_runs = self.refused = self.blind = 0  # blind: choices made without any view

    async def choose(self, api: ApiClient, game_id: str, legal: dict[str, Any]) -> dict[str, Any]:
        commands = legal["commands"]
        if len(commands) == 1:
            return commands[0]
        sample = self.rng.sample(commands, min(self.candidates, len(commands)))
        scored: list[tuple[float | None, dict[str, Any]]] = []
        for command in sample:
            self.dry_runs += 1
            try:
                result = await api.command(game_id, command, legal["version"], dry_run=True)
            except ApiError as exc:
                if exc.status != 409:
                    raise
                self.refused += 1  # the game moved on, or the rules refuse it: not a candidate
                continue
            scored.append((own_score(result, legal["seat"]), command))
        if not scored:
            return self.rng.choice(commands)
        known = [(s, c) for s, c in scored if s is not None]
        if not known:
            self.blind += 1
            return self.rng.choice([c for _, c in scored])
        best = max(s for s, _ in known)
        return self.rng.choice([c for s, c in known if s == best])


def make_strategy(name: str, seed: int | str | None) -> Strategy:
    rng = random.Random(seed)
    if name == "random":
        return RandomStrategy(rng)
    if name == "greedy":
        return GreedyStrategy(rng)
    raise ValueError(f"unknown strategy {name!r}; known: random, greedy")
