"""Tikal state (frozen, JSON-encodable) and the small pure queries over it.

The board is a sorted tuple of placed `Space`s, each carrying its pieces per
seat. The only secrets are in `TikalState.hidden`: the stack order and the
face-down treasure kinds (in the supply and on ruins). Queries here compute
paths (cheapest stone cost, never through volcanoes), temple strength and
majorities, and what a seat scores now.
"""

from __future__ import annotations

import heapq
from typing import Literal, Optional

import msgspec

from domain.tikal.components import ACTION_POINTS, OFFSETS, TILES, TREASURE_KINDS, TREASURE_SCORES

Kind = Literal["base_camp", "temple", "ruins", "clearing", "volcano"]
Phase = Literal["place", "actions", "auction", "take", "over"]
Coord = tuple[int, int]


class Space(msgspec.Struct, frozen=True):
    """A placed tile: printed data after rotation, temple value, tokens, camp, guard and pieces per seat."""

    q: int
    r: int
    tile: str
    kind: Kind
    stones: tuple[int, ...]
    explorers: tuple[int, ...]
    leaders: tuple[bool, ...]
    value: int = 0
    base: int = 0
    tokens: int = 0
    camp: Optional[int] = None
    guard: Optional[int] = None


class Player(msgspec.Struct, frozen=True):
    score: int
    explorers: int  # still in the supply
    leader: Literal["supply", "board", "gone"] = "supply"
    removed: int = 0  # explorers that left the game when guarding
    camps: int = 0  # camps built
    guards: int = 0  # guards placed
    treasures: tuple[int, ...] = (0,) * len(TREASURE_KINDS)
    totem: bool = True


class Auction(msgspec.Struct, frozen=True):
    bidders: tuple[int, ...]  # bidding order, opener first
    current: int
    passed: tuple[int, ...] = ()  # in the order they passed
    high: int = 0
    high_bidder: Optional[int] = None


class RuinsTokens(msgspec.Struct, frozen=True):
    q: int
    r: int
    kinds: tuple[str, ...]  # top first


class Hidden(msgspec.Struct, frozen=True):
    """Everything no seat may see: the stack order and face-down treasure kinds."""

    stack: tuple[str, ...]
    treasures: tuple[str, ...]
    ruins: tuple[RuinsTokens, ...] = ()


class TikalState(msgspec.Struct, frozen=True, kw_only=True):
    seats: int
    variant: Literal["standard", "auction"]
    edition: Literal["original", "classic"]
    first: int
    players: tuple[Player, ...]
    board: tuple[Space, ...]
    levels: tuple[int, ...]  # supply of temple levels of value 2..10 (index value - 2)
    hidden: Hidden
    phase: Phase = "place"
    current: int = 0
    ap: int = 0
    hand: Optional[str] = None  # the drawn or taken tile waiting to be placed
    uncovered: tuple[tuple[int, int, int], ...] = ()  # (q, r, levels) this phase
    dug: tuple[tuple[int, int, int], ...] = ()  # (q, r, tokens) this phase
    round: Optional[Literal["volcano", "final"]] = None
    queue: tuple[int, ...] = ()  # seats of the scoring round still to play, current first
    round_owner: Optional[int] = None
    scorings: int = 0
    last_placer: Optional[int] = None
    revealed: tuple[str, ...] = ()
    auction: Optional[Auction] = None
    final_scores: tuple[int, ...] = ()


def neighbour(q: int, r: int, edge: int) -> Coord:
    dq, dr = OFFSETS[edge]
    return q + dq, r + dr


def rotated(stones: tuple[int, ...], rotation: int) -> tuple[int, ...]:
    """Stones after `rotation` clockwise steps: new[i] = old[(i - rotation) % 6]."""
    return tuple(stones[(i - rotation) % 6] for i in range(6))


def board_map(state: TikalState) -> dict[Coord, Space]:
    return {(s.q, s.r): s for s in state.board}


def edge_cost(a: Space, b_map: dict[Coord, Space], edge: int) -> int:
    """Stones on the edge from `a` towards `edge` plus the neighbour's opposite side; 0 = no path."""
    b = b_map.get(neighbour(a.q, a.r, edge))
    if b is None or a.kind == "volcano" or b.kind == "volcano":
        return 0
    return a.stones[edge] + b.stones[(edge + 3) % 6]


def path_costs(state: TikalState, start: Coord, budget: int = ACTION_POINTS) -> dict[Coord, int]:
    """Cheapest stone cost from `start` to every space reachable within `budget` (start excluded)."""
    spaces = board_map(state)
    best: dict[Coord, int] = {start: 0}
    heap = [(0, start)]
    while heap:
        cost, here = heapq.heappop(heap)
        if cost > best.get(here, 1 << 30):
            continue
        for edge in range(6):
            step = edge_cost(spaces[here], spaces, edge)
            there = neighbour(*here, edge)
            if step and cost + step <= budget and cost + step < best.get(there, 1 << 30):
                best[there] = cost + step
                heapq.heappush(heap, (cost + step, there))
    del best[start]
    return best


def strength(space: Space, seat: int) -> int:
    return space.explorers[seat] + (3 if space.leaders[seat] else 0)


def pieces(space: Space, seat: int) -> int:
    return space.explorers[seat] + (1 if space.leaders[seat] else 0)


def majority(space: Space) -> Optional[int]:
    """The seat with strictly the most strength (leader 3, explorer 1) on `space`, if any."""
    values = [strength(space, s) for s in range(len(space.explorers))]
    top = max(values)
    if top == 0 or values.count(top) > 1:
        return None
    return values.index(top)


def controller(space: Space) -> Optional[int]:
    """Who a temple scores for: its guard's owner, else the strict majority."""
    if space.kind != "temple":
        return None
    return space.guard if space.guard is not None else majority(space)


def temple_points(state: TikalState, seat: int) -> int:
    return sum(s.value for s in state.board if controller(s) == seat)


def treasure_points(player: Player) -> int:
    return sum(TREASURE_SCORES.get(n, 0) for n in player.treasures if n)


def is_camp_of(space: Space, seat: int) -> bool:
    """Base camp, or a camp of `seat`: where his new pieces enter and camp moves go."""
    return space.kind == "base_camp" or space.camp == seat


def done_here(marks: tuple[tuple[int, int, int], ...], q: int, r: int) -> int:
    return next((n for mq, mr, n in marks if (mq, mr) == (q, r)), 0)


def bump(marks: tuple[tuple[int, int, int], ...], q: int, r: int) -> tuple[tuple[int, int, int], ...]:
    n = done_here(marks, q, r)
    return tuple(sorted([m for m in marks if (m[0], m[1]) != (q, r)] + [(q, r, n + 1)]))


def left_of(state: TikalState, seat: int) -> int:
    return (seat + 1) % state.seats


def ring(state: TikalState, start: int) -> list[int]:
    """All seats in turn order beginning with `start`."""
    return [(start + i) % state.seats for i in range(state.seats)]


def next_letter(state: TikalState) -> Optional[str]:
    return TILES[state.hidden.stack[0]].letter if state.hidden.stack else None
