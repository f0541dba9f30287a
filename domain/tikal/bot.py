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
    """The placed spaces of the view by coordinates, and cheapest stone costs between them.

    The paths depend only on where tiles lie and their stones, so the costs are kept per layout
    (`_LAYOUTS`, the last few) across decisions: a turn of ten action points reuses them.
    """

    def __init__(self, spaces: dict[Coord, Json]) -> None:
        self.spaces = spaces
        layout = tuple(sorted((c, s["kind"], tuple(s["stones"])) for c, s in spaces.items()))
        self._costs: dict[Coord, dict[Coord, int]] = _LAYOUTS.pop(layout, None) or {}
        _LAYOUTS[layout] = self._costs
        while len(_LAYOUTS) > 8:
            del _LAYOUTS[next(iter(_LAYOUTS))]
        self._adjacent: dict[Coord, list[tuple[Coord, int]]] = {}
        self._pulls: dict[tuple[Coord, bool], float] = {}
        self._nearest: dict[Coord, list[tuple[int, int, list[int | None]]]] = {}

    def edge(self, a: Json, edge: int) -> int:
        b = self.spaces.get(neighbour(a["q"], a["r"], edge))
        if b is None or a["kind"] == "volcano" or b["kind"] == "volcano":
            return 0
        return a["stones"][edge] + b["stones"][(edge + 3) % 6]

    def adjacent(self, here: Coord) -> list[tuple[Coord, int]]:
        """The spaces one path away from `here`, with the stones that path costs."""
        out = self._adjacent.get(here)
        if out is None:
            space = self.spaces[here]
            out = [(neighbour(*here, e), step) for e in range(6) if (step := self.edge(space, e))]
            self._adjacent[here] = out
        return out

    def costs(self, start: Coord) -> dict[Coord, int]:
        """Cheapest stone cost from `start` to every reachable space (start included, 0)."""
        if start not in self._costs:
            best, heap = {start: 0}, [(0, start)]
            while heap:
                cost, here = heapq.heappop(heap)
                if cost > best[here]:
                    continue
                for there, step in self.adjacent(here):
                    if cost + step < best.get(there, 1 << 30):
                        best[there] = cost + step
                        heapq.heappush(heap, (cost + step, there))
            self._costs[start] = best
        return self._costs[start]


_LAYOUTS: dict[tuple[Any, ...], dict[Coord, dict[Coord, int]]] = {}


def _worth(seat: int, space: Json) -> float:
    """What `space` adds to `seat`'s standing at the next scoring: its value if the seat controls it,
    less `OTHERS` of it if another seat does (a move changes only its two spaces' worth)."""
    owner = controller(space)
    if owner == seat:
        return space["value"]
    return 0.0 if owner is None else -OTHERS * space["value"]


def _moved(space: Json, seat: int, delta: int, leader: bool) -> Json:
    out = dict(space)
    if leader:
        out["leaders"] = [(delta > 0) if s == seat else v for s, v in enumerate(space["leaders"])]
    else:
        out["explorers"] = [v + delta if s == seat else v for s, v in enumerate(space["explorers"])]
    return out


def _pull(board: Board, at: Coord, leader: bool) -> float:
    """How much a piece standing on `at` could still matter: unguarded temples close by, by value."""
    key = (at, leader)
    if key in board._pulls:
        return board._pulls[key]
    weight = 3 if leader else 1
    best = 0.0
    for coord, cost in board.costs(at).items():
        space = board.spaces[coord]
        if space["kind"] == "temple" and space["guard"] is None:
            best = max(best, space["value"] / (1 + cost))
        elif space["kind"] == "ruins" and space["tokens"]:
            best = max(best, 1.5 / (1 + cost))
    board._pulls[key] = out = PULL * weight * best
    return out


def scores(view: Json, seat: int, commands: list[Json]) -> list[float]:
    board = Board({(s["q"], s["r"]): s for s in view["board"]})
    me = view["players"][seat]
    return [_score(view, board, seat, me, c) for c in commands]


def _score(view: Json, board: Board, seat: int, me: Json, command: Json) -> float:
    kind = command["type"].split(".", 1)[1]
    if kind in ("MovePiece", "CampMove"):
        start, end = (command["from_q"], command["from_r"]), (command["to_q"], command["to_r"])
        leader = command["leader"]
        before, after = board.spaces[start], board.spaces[end]
        cost = 1 if kind == "CampMove" else board.costs(start).get(end, 10)
        gain = (_worth(seat, _moved(before, seat, -1, leader)) + _worth(seat, _moved(after, seat, +1, leader))
                - _worth(seat, before) - _worth(seat, after))
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
    seats = len(view["players"])

    def closest(who: int) -> int:
        """The cheapest path from the new tile to a space where `who` stands or may enter (20: none).

        A shortest path from the new tile leaves it once, through a neighbour, and goes on over
        the board as it lies, so it costs the path's stones plus that neighbour's own costs."""
        reached = [step + near[who] for edge, facing, near in _nearest(board, at, seats)
                   if (step := stones[edge] + facing) and near[who] is not None]
        return min(reached, default=20)

    others = min((closest(s) for s in range(seats) if s != seat), default=20)
    return (others - closest(seat)) * 0.1 + 0.01 * sum(stones)


def _nearest(board: Board, at: Coord, seats: int) -> list[tuple[int, int, list[int | None]]]:
    """For each neighbour of the empty space `at`: the edge towards it, its stones facing `at`, and
    per seat the cheapest cost from it to a space the seat occupies or may enter from (None: none)."""
    if at not in board._nearest:
        out = []
        for edge in range(6):
            there = neighbour(*at, edge)
            space = board.spaces.get(there)
            if space is None or space["kind"] == "volcano":
                continue
            costs = board.costs(there)
            near = [min((cost for coord, cost in costs.items() if _home(board.spaces[coord], who)), default=None)
                    for who in range(seats)]
            out.append((edge, space["stones"][(edge + 3) % 6], near))
        board._nearest[at] = out
    return board._nearest[at]


def _home(space: Json, who: int) -> bool:
    return bool(space["explorers"][who] or space["leaders"][who] or space["kind"] == "base_camp"
                or space["camp"] == who)
