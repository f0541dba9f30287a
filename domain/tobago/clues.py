"""The clue evaluator: pure and exhaustive.

`clue_mask(geo, marks, card)` is the set (a bitmask over land hex indices) of
hexes a clue card allows, for every one of the six relations over terrains,
the big region of a terrain, landmarks and the ocean:
IN X; NEXT TO X (touches X, not X itself); WITHIN SIGHT OF X (distance 1 or 2,
not X itself); NOT IN / NOT NEXT TO / BEYOND SIGHT OF X, the complements over
land (so NOT NEXT TO a statue allows the statue's own hex). A map's candidates
are the intersection of its clues minus the hexes amulets removed, and
`clue_refusal` applies the rulebook's three rules for adding a clue.
"""

from __future__ import annotations

from functools import lru_cache

from domain.kernel import RuleViolation
from domain.tobago.components import CLUE_IDS, CLUES, ClueCard
from domain.tobago.island import Geometry, Island, Landmarks, geometry, mask_of

LANDMARK_FIELDS = {"hut": "huts", "palm": "palms", "statue": "statues"}


def target_mask(geo: Geometry, marks: Landmarks, card: ClueCard) -> int | None:
    """The land hexes that are X (None for the ocean, which holds no land hex)."""
    if card.target == "ocean":
        return None
    if card.target in LANDMARK_FIELDS:
        return mask_of(getattr(marks, LANDMARK_FIELDS[card.target]))
    return geo.big[card.target] if card.big else geo.terrain_mask[card.target]


def clue_mask(geo: Geometry, marks: Landmarks, card: ClueCard) -> int:
    """The land hexes where a treasure may lie according to `card` alone."""
    x = target_mask(geo, marks, card)
    base = card.relation.removeprefix("not_")
    if base == "beyond_sight":
        base = "within_sight"
    if x is None:  # the ocean, measured by geometric hex distance
        reach = {"in": 0, "next_to": 1, "within_sight": 2}[base]
        positive = mask_of(i for i, d in enumerate(geo.ocean_dist) if d <= reach)
    elif base == "in":
        positive = x
    else:
        hexes = [i for i in range(geo.n) if x >> i & 1]
        near = geo.neigh if base == "next_to" else geo.within2
        positive = mask_of(j for i in hexes for j in near[i]) & ~x
    negated = card.relation.startswith("not_") or card.relation == "beyond_sight"
    return geo.all & ~positive if negated else positive


class Board:
    """One island with its landmarks: the geometry plus the mask of every clue card."""

    def __init__(self, island: Island, marks: Landmarks) -> None:
        self.geo = geometry(island)
        self.marks = marks
        self.masks = {cid: clue_mask(self.geo, marks, CLUES[cid]) for cid in CLUE_IDS}
        self.memo: dict[tuple[tuple[str, ...], tuple[int, ...]], int] = {}


_RECENT: dict[tuple[int, int], tuple[Island, Landmarks, Board]] = {}


def board(island: Island, marks: Landmarks) -> Board:
    """The Board of an island with landmarks; cached by identity first (hot path), then by value."""
    hit = _RECENT.get((id(island), id(marks)))
    if hit is not None and hit[0] is island and hit[1] is marks:
        return hit[2]
    b = _board(island, marks)
    if len(_RECENT) > 64:
        _RECENT.clear()
    _RECENT[(id(island), id(marks))] = (island, marks, b)
    return b


@lru_cache(maxsize=256)
def _board(island: Island, marks: Landmarks) -> Board:
    return Board(island, marks)


def candidates_mask(b: Board, clues: tuple[str, ...], removed: tuple[int, ...]) -> int:
    """The candidates of a map holding `clues` (an empty map: the whole island) minus `removed`."""
    key = (clues, removed)
    m = b.memo.get(key)
    if m is None:
        m = b.geo.all
        for cid in clues:
            m &= b.masks[cid]
        m &= ~mask_of(removed)
        if len(b.memo) > 4096:
            b.memo.clear()
        b.memo[key] = m
    return m


def clue_refusal(b: Board, clues: tuple[str, ...], removed: tuple[int, ...], card: str) -> RuleViolation | None:
    """Why `card` may not join a map holding `clues`, or None if it may."""
    before = candidates_mask(b, clues, removed)
    after = before & b.masks[card]
    if after == 0:
        if any(b.masks[c] & b.masks[card] == 0 and _logically_exclusive(c, card) for c in clues):
            return RuleViolation("tobago.clue_contradicts", f"{card} contradicts a clue already on the map")
        return RuleViolation("tobago.clue_empties_map", f"{card} would leave the map without any candidate")
    if after == before:
        return RuleViolation("tobago.clue_does_not_reduce", f"{card} removes no candidate")
    return None


def _logically_exclusive(a: str, b: str) -> bool:
    """Clues that exclude each other on any island: same target (in X / not in X, in X / next to X ...),
    or IN two different terrains. Other disjoint pairs merely empty the map on this island."""
    x, y = CLUES[a], CLUES[b]
    return x.target == y.target or (x.relation == y.relation == "in")


def board_problems(b: Board) -> list[str]:
    """Clue cards that could never start a map (every card must keep and remove some hex)."""
    return [cid for cid, m in b.masks.items() if m == 0 or m == b.geo.all]
