"""Tikal state (frozen, JSON-encodable) and the small pure queries over it.

The board is a sorted tuple of placed `Space`s, each carrying its pieces per
seat. Pieces have identities: per seat the leader is piece 0 and the explorers
1..18, entering in that order; `TikalState.acted` records which piece uncovered
or dug on which tile this phase (the rule "a different piece for each level").
The only secrets are in `TikalState.hidden`: the stack order and the face-down
treasure kinds (in the supply and on ruins). Queries here compute paths
(cheapest stone cost, never through volcanoes), temple strength and
majorities, what a seat scores now, and `invariants`.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from typing import Any, Literal, Optional

import msgspec

from domain.tikal.components import (ACTION_POINTS, CAMPS, EXPLORERS, GUARDS, LEVELS, MAX_LEVEL, OFFSETS, TILES,
                                     TREASURE_KINDS, TREASURE_PER_KIND, TREASURE_SCORES)

Kind = Literal["base_camp", "temple", "ruins", "clearing", "volcano"]
Phase = Literal["place", "actions", "auction", "take", "over"]
Coord = tuple[int, int]
LEADER = 0  # the leader's piece id; explorers are 1..EXPLORERS


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
    ids: tuple[tuple[int, ...], ...] = ()  # per seat, the explorers (by id) on this tile
    rotation: int = 0  # clockwise steps the tile was turned when placed
    guard_leader: bool = False  # the guard is the seat's leader (else an explorer)


class Mark(msgspec.Struct, frozen=True):
    """Piece `piece` of the acting seat uncovered a level or dug a treasure on (q, r) this phase."""

    q: int
    r: int
    piece: int


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
    acted: tuple[Mark, ...] = ()  # uncovers and digs of this phase, in order
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


class _Paths:
    """The paths of one tile layout: the placed spaces in coordinate order, numbered, and the stone
    cost of each step between neighbours (volcanoes block); `ordered`/`reach` hold the cheapest
    costs from each start as they are asked for."""

    __slots__ = ("coords", "index", "links", "ordered", "reach")

    def __init__(self, spaces: dict[Coord, Space]) -> None:
        self.coords = coords = sorted(spaces)
        self.index = index = {c: i for i, c in enumerate(coords)}
        self.links = [_links(spaces, index, c) for c in coords]
        self.ordered: dict[Coord, list[tuple[Coord, int]]] = {}
        self.reach: dict[Coord, dict[Coord, int]] = {}


def _links(spaces: dict[Coord, Space], index: dict[Coord, int], at: Coord) -> list[tuple[int, int]]:
    """(neighbour's number, cost) for each path step out of `at`: the stones on that edge plus the
    neighbour's on the opposite side (none: no step); volcanoes have no steps."""
    here = spaces[at]
    if here.kind == "volcano":
        return []
    links = []
    for edge, near in enumerate(neighbours(at)):
        there = spaces.get(near)
        if there is not None and there.kind != "volcano" and (n := here.stones[edge] + there.stones[(edge + 3) % 6]):
            links.append((index[near], n))
    return links


_AROUND: dict[Coord, tuple[Coord, ...]] = {}


def neighbours(at: Coord) -> tuple[Coord, ...]:
    """The six coordinates around `at`, by edge (kept: only board spaces are asked)."""
    found = _AROUND.get(at)
    if found is None:
        found = _AROUND[at] = tuple(neighbour(*at, e) for e in range(6))
    return found


class _Memo:
    """Derived tables of the last board seen, keyed by the board tuple's identity (it is immutable).

    `legal` asks the same questions of one board thousands of times; holding the board itself
    keeps its identity from being reused, so a hit is always the same board. The paths (`_Paths`)
    depend only on where the tiles lie and their stones, not on the pieces: a move, a dig or a
    camp leaves them as they were, so they are kept per tile layout (the last `LAYOUTS` layouts,
    so games that interleave in one process keep theirs) and reused across versions.
    """

    LAYOUTS = 64
    board: tuple[Space, ...] | None = None
    spaces: dict[Coord, Space] | None = None  # built when first asked (`board_map`)
    paths: _Paths = _Paths({})
    layouts: OrderedDict[tuple[Any, ...], _Paths] = OrderedDict()

    @classmethod
    def of(cls, board: tuple[Space, ...]) -> type[_Memo]:
        if board is not cls.board:
            previous, cls.board, cls.spaces = cls.board, None, None
            if previous is None or not _same_layout(previous, board):
                layout = tuple((s.q, s.r, s.stones, s.kind == "volcano") for s in board)
                paths = cls.layouts.get(layout)
                if paths is None:
                    paths = cls.layouts[layout] = _Paths({(s.q, s.r): s for s in board})
                    while len(cls.layouts) > cls.LAYOUTS:
                        cls.layouts.popitem(last=False)
                else:
                    cls.layouts.move_to_end(layout)
                cls.paths = paths
            cls.board = board
        return cls


def _same_layout(before: tuple[Space, ...], after: tuple[Space, ...]) -> bool:
    """Whether two boards have the same layout key (the next board of one game mostly shares its spaces)."""
    return len(before) == len(after) and all(
        a is b or (a.q == b.q and a.r == b.r and a.stones == b.stones and (a.kind == "volcano") == (b.kind == "volcano"))
        for a, b in zip(before, after))


def board_map(state: TikalState) -> dict[Coord, Space]:
    """The placed tiles by coordinates (shared: do not mutate)."""
    memo = _Memo.of(state.board)
    if memo.spaces is None:
        memo.spaces = {(s.q, s.r): s for s in state.board}
    return memo.spaces


def path_costs(state: TikalState, start: Coord, budget: int = ACTION_POINTS) -> dict[Coord, int]:
    """Cheapest stone cost from `start` to every space reachable within `budget` (start excluded)."""
    return {c: cost for c, cost in reach(state.board, start).items() if cost <= budget}


def reach(board: tuple[Space, ...], start: Coord) -> dict[Coord, int]:
    """Cheapest stone cost from `start` to every reachable space (start excluded); shared, do not mutate."""
    paths = _Memo.of(board).paths
    found = paths.reach.get(start)
    if found is None:
        found = paths.reach[start] = dict(reach_in_order(board, start))
    return found


def reach_in_order(board: tuple[Space, ...], start: Coord) -> list[tuple[Coord, int]]:
    """`reach(board, start)` as (space, cost) pairs sorted by space; shared, do not mutate."""
    paths = _Memo.of(board).paths
    found = paths.ordered.get(start)
    if found is None:
        found = paths.ordered[start] = _cheapest(paths, paths.index[start])
    return found


def _cheapest(paths: _Paths, start: int) -> list[tuple[Coord, int]]:
    """Dijkstra over the numbered spaces; the heap holds cost * n + space (one int per entry)."""
    links, n = paths.links, len(paths.links)
    unseen = 1 << 30
    best = [unseen] * n
    best[start] = 0
    heap = [start]
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        cost, here = divmod(pop(heap), n)
        if cost > best[here]:
            continue
        for there, step in links[here]:
            if cost + step < best[there]:
                best[there] = cost + step
                push(heap, (cost + step) * n + there)
    return [(c, cost) for c, cost, i in zip(paths.coords, best, range(n)) if cost != unseen and i != start]


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


def acted_here(state: TikalState, q: int, r: int) -> list[int]:
    """The pieces that uncovered or dug on (q, r) this phase."""
    return [m.piece for m in state.acted if (m.q, m.r) == (q, r)]


def pieces_on(space: Space, seat: int) -> list[int]:
    """Ids of `seat`'s pieces on `space`, the leader (0) first."""
    return ([LEADER] if space.leaders[seat] else []) + list(space.ids[seat])


def next_explorer(player: Player) -> int:
    """The id of the explorer that enters next: explorers enter in id order and never return."""
    return EXPLORERS - player.explorers + 1


def actor(state: TikalState, seat: int, space: Space) -> Optional[int]:
    """Which piece acts when `seat` uncovers or digs on `space`, or None when none of his may.

    Ruling: of his pieces that have not acted there, the one that acted most elsewhere this
    phase (keeping the others fresh), an explorer before the leader, the lowest id first.
    """
    done = acted_here(state, space.q, space.r)
    marks = [m.piece for m in state.acted]
    free = [p for p in pieces_on(space, seat) if p not in done]
    return min(free, key=lambda p: (-marks.count(p), p == LEADER, p), default=None)


def walker(state: TikalState, seat: int, space: Space) -> Optional[int]:
    """The explorer that walks off `space` when none is named: the lowest one that has not acted this phase."""
    marked = {m.piece for m in state.acted}
    return next((p for p in space.ids[seat] if p not in marked), None)


def named_walkers(state: TikalState, seat: int, space: Space) -> list[int]:
    """The explorers on `space` a move may name: those that acted this phase (the others are alike)."""
    marked = {m.piece for m in state.acted}
    return [p for p in space.ids[seat] if p in marked]


def left_of(state: TikalState, seat: int) -> int:
    return (seat + 1) % state.seats


def ring(state: TikalState, start: int) -> list[int]:
    """All seats in turn order beginning with `start`."""
    return [(start + i) % state.seats for i in range(state.seats)]


def next_letter(state: TikalState) -> Optional[str]:
    return TILES[state.hidden.stack[0]].letter if state.hidden.stack else None


def invariants(state: TikalState) -> None:
    """Raise AssertionError when the state breaks a rule that must always hold."""
    assert 0 <= state.ap <= ACTION_POINTS, f"AP out of range: {state.ap}"
    for value, left in zip(sorted(LEVELS), state.levels):
        used = sum(1 for s in state.board if s.kind == "temple" and s.base < value <= s.value)
        assert left >= 0 and used + left == LEVELS[value], f"level {value} supply over-used"
    assert all(s.value <= MAX_LEVEL for s in state.board)
    for seat, p in enumerate(state.players):
        on_board = sorted(i for s in state.board for i in s.ids[seat])
        assert all(len(s.ids[seat]) == s.explorers[seat] for s in state.board), f"seat {seat} explorer ids"
        assert len(set(on_board)) == len(on_board), f"seat {seat} explorer in two places"
        assert all(i < next_explorer(p) for i in on_board), f"seat {seat} explorer not yet entered"
        assert p.explorers >= 0 and p.explorers + len(on_board) + p.removed == EXPLORERS, f"seat {seat} explorers"
        leaders = sum(1 for s in state.board if s.leaders[seat])
        assert leaders == (1 if p.leader == "board" else 0), f"seat {seat} leader"
        assert p.camps == sum(1 for s in state.board if s.camp == seat) <= CAMPS
        assert p.guards == sum(1 for s in state.board if s.guard == seat) <= GUARDS
    held = sum(sum(p.treasures) for p in state.players)
    face_down = len(state.hidden.treasures) + sum(len(t.kinds) for t in state.hidden.ruins)
    assert held + face_down == len(TREASURE_KINDS) * TREASURE_PER_KIND, "treasure tokens lost"
    tokens = {(t.q, t.r): len(t.kinds) for t in state.hidden.ruins}
    assert tokens == {(s.q, s.r): s.tokens for s in state.board if s.tokens}, "face-down tokens mismatch"
    marks = [(m.q, m.r, m.piece) for m in state.acted]
    assert len(set(marks)) == len(marks), "a piece acted twice on one tile in one phase"
    assert all(len(acted_here(state, m.q, m.r)) <= 2 for m in state.acted)
    assert state.scorings <= 4
