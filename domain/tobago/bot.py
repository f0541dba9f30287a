"""Tobago: be the finder, hold roses on maps about to be found, and keep only good cards of a share.

Read from the seat's view: the island and landmarks (public), every map's clues and candidates, the
ATVs, the share's face-up card and the seat's own clue hand. Clue cards are judged with the domain's
pure clue masks over that public island (what a client holding the rulebook would compute).
Priorities: collect a treasure; drive onto a map's last candidate; play the clue that shrinks a map the
most (a rose there is a card at its share), best one that leaves a single candidate within reach;
otherwise drive towards the maps nearest to being solved. A drive is the turn's action only when it
brings the ATV closer; when nothing gains, exchanging the clue hand does (new cards, so the game moves
on: two seats once drove back and forth between a map's last two candidates for ever). Amulets are kept (a curse takes one instead
of the best treasure) unless spending one finds a treasure now. A share card is taken when it is worth
at least `TAKE_AT` gold or fewer cards remain than the seat's roses still waiting.

`scores(view, seat, commands)` is the kind's `Game.bot_scores`: it reads only the seat's own view (JSON)
and the legal commands; the service's greedy bot reaches it through the catalogue.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.tobago.clues import Board, board, candidates_mask
from domain.tobago.island import Landmarks

Json = dict[str, Any]
TAKE_AT = 4
DRIVE_STEPS = 3
SPEND = -50.0  # an amulet spent on anything that does not find a treasure now


class Table:
    """What the heuristic derives once per decision from one view."""

    def __init__(self, view: Json, seat: int) -> None:
        island = tuple((int(q), int(r), str(t)) for q, r, t in view["island"])
        self.board: Board = board(island, msgspec.convert(view["landmarks"], Landmarks))
        self.geo = self.board.geo
        self.maps = view["maps"]
        self.empty = {m for m in range(len(self.maps)) if not self.maps[m]["clues"]}  # no hunt on them yet
        self.atv: int | None = view["players"][seat]["atv"]
        self.turn = view["turn"]

    def clues(self, m: int) -> tuple[str, ...]:
        return tuple(c["card"]["id"] for c in self.maps[m]["clues"])

    def after_clue(self, m: int, card: str) -> int:
        """How many candidates map `m` keeps once `card` joins it."""
        return candidates_mask(self.board, (*self.clues(m), card), tuple(self.maps[m]["removed"])).bit_count()

    def pull(self, hexagon: int) -> float:
        """How close `hexagon` lies to the maps' candidates, nearly solved maps weighing most (0 = on all)."""
        dist = self.geo.steps_from(hexagon)
        total = 0.0
        for m, map_ in enumerate(self.maps):
            cands = map_["candidates"]
            if m in self.empty or not cands:
                continue
            total -= min(dist[c] for c in cands) / len(cands)
        return total

    def steps(self, hexagon: int) -> int:
        return self.geo.steps_from(self.atv)[hexagon] if self.atv is not None else 99


def scores(view: Json, seat: int, commands: list[Json]) -> list[float]:
    table = Table(view, seat)
    if view["phase"] == "share":
        return _share(view, seat, commands)
    here = table.pull(table.atv) if table.atv is not None else 0.0
    return [_score(view, table, here, c) for c in commands]


def _share(view: Json, seat: int, commands: list[Json]) -> list[float]:
    share = view["share"]
    card = share["card"] or {"gold": 0}
    waiting = share["roses"].count(seat)
    take = card["gold"] >= TAKE_AT or share["pile_count"] < waiting
    return [(1.0 if take else -1.0) if c["type"] == "tobago.TakeCard" else 0.0 for c in commands]


def _score(view: Json, table: Table, here: float, command: Json) -> float:
    kind = command["type"].split(".", 1)[1]
    acted = table.turn["acted"]
    if kind == "CollectTreasure":
        return 1000.0
    if kind == "PlaceAtv":
        return table.pull(command["hex"]) - sum(table.geo.steps_from(command["hex"])) / table.geo.n
    if kind == "StartHunt":
        return -table.after_clue(view["hunt_map"], command["card"])
    if kind == "Drive":  # as the turn's action only when it gains: else exchanging cards moves the game on
        gain = _drive(table, here, command["hex"])
        return gain + (5.0 if not acted and gain > 0 else 0.0)
    if kind == "AmuletStep":
        return 400.0 if _last_candidate(table, command["hex"]) else SPEND
    if kind == "PlayClue":
        return _clue(table, command) + (SPEND / 2 if command["amulet"] else 0.0)
    if kind == "RemoveCandidate":
        cands = [h for h in table.maps[command["map"]]["candidates"] if h != command["hex"]]
        return 300.0 if len(cands) == 1 and table.steps(cands[0]) <= DRIVE_STEPS and not acted else SPEND
    if kind == "ExchangeClues":
        return SPEND if command["amulet"] else 1.0
    if kind in ("DoubleRose", "SwapRoses"):
        return SPEND
    return 0.0  # EndTurn


def _last_candidate(table: Table, hexagon: int) -> bool:
    return any(m not in table.empty and table.maps[m]["candidates"] == [hexagon] for m in range(len(table.maps)))


def _drive(table: Table, here: float, hexagon: int) -> float:
    if _last_candidate(table, hexagon):
        return 500.0
    return 10.0 * (table.pull(hexagon) - here)


def _clue(table: Table, command: Json) -> float:
    m = command["map"]
    before = len(table.maps[m]["candidates"]) if m not in table.empty else table.geo.n
    after = table.after_clue(m, command["card"])
    value = 30.0 + 20.0 * (1 - after / max(before, 1)) + 20.0 / after
    if after == 1:
        target = candidates_mask(table.board, (*table.clues(m), command["card"]),
                                 tuple(table.maps[m]["removed"])).bit_length() - 1
        value += 40.0 if table.steps(target) <= DRIVE_STEPS else 0.0
    return value
