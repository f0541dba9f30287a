"""Tikal: hold strict majorities on valuable temples, raise the temples one holds, dig, guard the best.

Everything in Tikal's view is public except the stack and the face-down tokens, so the board, pieces,
stones and treasures are read straight from it. Each action is scored by how much it changes the seat's
standing at the next scoring — the temples it would control (+ value) against those others control
(- value), plus its treasure points — less the action points it spends (`AP_VALUE` each) and plus a
small pull of pieces towards temples they could contest. Ending the turn scores 0, so the bot spends its
points while an action still helps. Tiles go where temples and ruins are cheap for the seat to reach.

`scores(view, seat, commands)` is the kind's `Game.bot_scores`: it reads only the seat's own view (JSON)
and the legal commands; the service's greedy bot reaches it through the catalogue.
"""

from __future__ import annotations

import heapq
from typing import Any

from domain.tikal.components import TREASURE_KINDS, TREASURE_SCORES
from domain.tikal.state import neighbour, rotated

Json = dict[str, Any]
Coord = tuple[int, int]
AP_VALUE = 0.25
OTHERS = 0.8  # a temple another seat controls costs this much of its value
PULL = 0.15  # per piece, towards the temples it could still contest


def strength(space: Json, seat: int) -> int:
    return space["explorers"][seat] + (3 if space["leaders"][seat] else 0)


def controller(space: Json) -> int | None:
    if space["kind"] != "temple":
        return None
    if space["guard"] is not None:
        return space["guard"]
    values = [strength(space, s) for s in range(len(space["explorers"]))]
    top = max(values)
    return None if top == 0 or values.count(top) > 1 else values.index(top)


def treasure_points(counts: list[int]) -> int:
    return sum(TREASURE_SCORES.get(n, 0) for n in counts if n)


class Board:
    """The placed spaces of the view by coordinates, and cheapest stone costs between them."""

    def __init__(self, spaces: dict[Coord, Json]) -> None:
        self.spaces = spaces
        self._costs: dict[Coord, dict[Coord, int]] = {}

    def edge(self, a: Json, edge: int) -> int:
        b = self.spaces.get(neighbour(a["q"], a["r"], edge))
        if b is None or a["kind"] == "volcano" or b["kind"] == "volcano":
            return 0
        return a["stones"][edge] + b["stones"][(edge + 3) % 6]

    def costs(self, start: Coord) -> dict[Coord, int]:
        """Cheapest stone cost from `start` to every reachable space (start included, 0)."""
        if start not in self._costs:
            best, heap = {start: 0}, [(0, start)]
            while heap:
                cost, here = heapq.heappop(heap)
                if cost > best[here]:
                    continue
                for e in range(6):
                    step = self.edge(self.spaces[here], e)
                    there = neighbour(*here, e)
                    if step and cost + step < best.get(there, 1 << 30):
                        best[there] = cost + step
                        heapq.heappush(heap, (cost + step, there))
            self._costs[start] = best
        return self._costs[start]


def standing(seat: int, spaces: dict[Coord, Json]) -> float:
    """Temple points `seat` would score now, less (`OTHERS` of) what the others would."""
    total = 0.0
    for space in spaces.values():
        owner = controller(space)
        if owner == seat:
            total += space["value"]
        elif owner is not None:
            total -= OTHERS * space["value"]
    return total


def _moved(space: Json, seat: int, delta: int, leader: bool) -> Json:
    out = dict(space)
    if leader:
        out["leaders"] = [(delta > 0) if s == seat else v for s, v in enumerate(space["leaders"])]
    else:
        out["explorers"] = [v + delta if s == seat else v for s, v in enumerate(space["explorers"])]
    return out


def _pull(board: Board, at: Coord, leader: bool) -> float:
    """How much a piece standing on `at` could still matter: unguarded temples close by, by value."""
    weight = 3 if leader else 1
    best = 0.0
    for coord, cost in board.costs(at).items():
        space = board.spaces[coord]
        if space["kind"] == "temple" and space["guard"] is None:
            best = max(best, space["value"] / (1 + cost))
        elif space["kind"] == "ruins" and space["tokens"]:
            best = max(best, 1.5 / (1 + cost))
    return PULL * weight * best


def scores(view: Json, seat: int, commands: list[Json]) -> list[float]:
    board = Board({(s["q"], s["r"]): s for s in view["board"]})
    base = standing(seat, board.spaces)
    me = view["players"][seat]
    return [_score(view, board, seat, me, base, c) for c in commands]


def _score(view: Json, board: Board, seat: int, me: Json, base: float, command: Json) -> float:
    kind = command["type"].split(".", 1)[1]
    if kind in ("MovePiece", "CampMove"):
        start, end = (command["from_q"], command["from_r"]), (command["to_q"], command["to_r"])
        leader = command["leader"]
        spaces = dict(board.spaces)
        spaces[start] = _moved(spaces[start], seat, -1, leader)
        spaces[end] = _moved(spaces[end], seat, +1, leader)
        cost = 1 if kind == "CampMove" else board.costs(start).get(end, 10)
        gain = standing(seat, spaces) - base
        return gain + _pull(board, end, leader) - _pull(board, start, leader) - AP_VALUE * cost
    if kind == "EnterPiece":
        at = (command["q"], command["r"])
        return 0.5 + _pull(board, at, command["leader"]) - AP_VALUE
    if kind == "UncoverLevel":
        owner = controller(board.spaces[(command["q"], command["r"])])
        gain = 1.0 if owner == seat else -OTHERS if owner is not None else 0.2
        return gain - 2 * AP_VALUE
    if kind == "DigTreasure":
        counts = me["treasures"]
        now = treasure_points(counts)
        expected = sum(treasure_points([c + (i == k) for i, c in enumerate(counts)]) - now
                       for k in range(len(counts))) / len(counts)
        return expected - 3 * AP_VALUE
    if kind == "PlaceGuard":
        space = board.spaces[(command["q"], command["r"])]
        lost = space["explorers"][seat] + (1 if space["leaders"][seat] else 0) - 1
        return 0.6 * space["value"] - 0.7 * lost - 5 * AP_VALUE
    if kind == "TradeTreasure":
        mine, theirs = list(me["treasures"]), list(view["players"][command["other"]]["treasures"])
        give, take = TREASURE_KINDS.index(command["give"]), TREASURE_KINDS.index(command["take"])
        before = treasure_points(mine) - OTHERS * treasure_points(theirs)
        mine[give], mine[take] = mine[give] - 1, mine[take] + 1
        theirs[give], theirs[take] = theirs[give] + 1, theirs[take] - 1
        return treasure_points(mine) - OTHERS * treasure_points(theirs) - before - 3 * AP_VALUE
    if kind == "BuildCamp":
        return 1.0 - 5 * AP_VALUE if me["camps"] == 0 else 0.3 - 5 * AP_VALUE
    if kind == "PlaceTile":
        return _placement(view, board, seat, command)
    if kind == "Bid":
        return -command["amount"]  # the auction variant: buy nothing dear
    if kind == "TakeTile":
        tile = next((t for t in view["revealed"] if t["id"] == command["tile"]), None)
        return float(tile["value"] + tile["masks"]) if tile else 0.0
    return 0.0  # EndTurn, Pass


def _placement(view: Json, board: Board, seat: int, command: Json) -> float:
    """Temples and ruins go where the seat's pieces reach them cheaply (and far from the others')."""
    tile = view["hand"]
    if tile is None or tile["kind"] not in ("temple", "ruins"):
        return 0.0
    at = (command["q"], command["r"])
    stones = rotated(tuple(tile["stones"]), command["rotation"])
    placed = dict(board.spaces)
    placed[at] = {"q": at[0], "r": at[1], "kind": tile["kind"], "stones": stones, "value": tile["value"],
                  "explorers": [0] * len(view["players"]), "leaders": [False] * len(view["players"]),
                  "guard": None, "tokens": tile["masks"], "camp": None}
    near = Board(placed).costs(at)

    def closest(who: int) -> int:
        return min((cost for coord, cost in near.items() if coord != at and
                    (placed[coord]["explorers"][who] or placed[coord]["leaders"][who] or
                     placed[coord]["kind"] == "base_camp" or placed[coord]["camp"] == who)), default=20)

    others = min((closest(s) for s in range(len(view["players"])) if s != seat), default=20)
    return (others - closest(seat)) * 0.1 + 0.01 * sum(stones)
