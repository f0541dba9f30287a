"""Geometry of the cave: tile placement, connected paths and move distances.

Sides are numbered N=0, E=1, S=2, W=3; a rotation r turns a tile r quarter
turns clockwise, so a rotation-0 side s becomes side (s + r) % 4. Cell (x, y)
has its N neighbour at (x, y - 1). A position is (x, y, path index). Two
positions on neighbouring tiles connect when each opens towards the other;
a wildcard tile (cavern, entrance) opens on every side, so it connects to
every opening that meets it but not to a wall.
"""

from __future__ import annotations

from collections import deque
from functools import cache
from typing import Any, TypeAlias

import msgspec

from domain.goldmine.components import DESIGN_OF, DESIGNS, ENTRANCE, PathSpec, design

DELTA = ((0, -1), (1, 0), (0, 1), (-1, 0))
Pos = tuple[int, int, int]


class Cell(msgspec.Struct, frozen=True):
    """A placed tile: grid cell, physical tile id, rotation (quarter turns clockwise), coin on it."""

    x: int
    y: int
    tile: str
    rotation: int
    coin: bool = False


Cells: TypeAlias = dict[tuple[int, int], Cell]


def opens(tile: str, rotation: int, side: int) -> bool:
    """Whether the tile at this rotation has an opening on `side` (wildcards open everywhere)."""
    return side_path(tile, rotation, side) is not None


@cache
def side_path(tile: str, rotation: int, side: int) -> int | None:
    """Index of the path opening on `side`, or None for a wall."""
    d = design(tile)
    if d.wildcard:
        return 0
    base = (side - rotation) % 4
    for index, path in enumerate(d.paths):
        if base in path.sides:
            return index
    return None


@cache
def path_sides(tile: str, rotation: int, path: int) -> tuple[int, ...]:
    """The sides a path opens on, after rotation (all four for wildcards)."""
    d = design(tile)
    if d.wildcard:
        return (0, 1, 2, 3)
    return tuple(sorted((s + rotation) % 4 for s in d.paths[path].sides))


def spec(cell: Cell, path: int) -> PathSpec:
    """The flags (chamber, secret, mud) of a path on a placed tile."""
    return design(cell.tile).paths[path]


def fits(board: Cells, tile: str, x: int, y: int, rotation: int) -> bool:
    """Whether `tile` may be placed at (x, y) with `rotation` (empty cell, touching, every side matching)."""
    if (x, y) in board:
        return False
    wild, open_sides, leads = shape(DESIGN_OF[tile], rotation)
    touching = False
    for side, (dx, dy) in enumerate(DELTA):
        other = board.get((x + dx, y + dy))
        if other is None:
            continue
        touching = True
        if wild:
            continue
        if other.tile == ENTRANCE:
            if not leads[side]:
                return False
            continue
        other_wild, other_open, _ = shape(DESIGN_OF[other.tile], other.rotation)
        if not other_wild and open_sides[side] != other_open[(side + 2) % 4]:
            return False
    return touching


@cache
def shape(design_id: str, rotation: int) -> tuple[bool, tuple[bool, ...], tuple[bool, ...]]:
    """(wildcard, opens on each side, leads on to another side from each side) of a design turned."""
    tile = f"{design_id}#1"
    open_sides = tuple(opens(tile, rotation, side) for side in range(4))
    leads = tuple(_leads_on(tile, rotation, side) for side in range(4))
    return DESIGNS[design_id].wildcard, open_sides, leads


def _leads_on(tile: str, rotation: int, side: int) -> bool:
    """Next to the entrance: open towards it, on a path that reaches another side."""
    path = side_path(tile, rotation, side)
    return path is not None and len(path_sides(tile, rotation, path)) >= 2


_last_frontier: tuple[Any, int, list[tuple[int, int]]] = (None, 0, [])
"""The last board asked (held, so its id stays its own), its size and its frontier; replaced whole, never
changed in place, so a caller in another thread reads one board's entry, never a mix of two."""


def frontier(board: Cells) -> list[tuple[int, int]]:
    """Empty cells sharing a side with a placed tile, sorted; the caller must not change the list."""
    global _last_frontier
    last, size, found = _last_frontier
    if last is not board or size != len(board):
        empty = {(x + dx, y + dy) for (x, y) in board for dx, dy in DELTA}
        found = sorted(c for c in empty if c not in board)
        _last_frontier = (board, len(board), found)
    return found


def placements(board: Cells, tile: str) -> list[tuple[int, int, int]]:
    """Every legal (x, y, rotation) for `tile`."""
    return [(x, y, r) for (x, y) in frontier(board) for r in range(4) if fits(board, tile, x, y, r)]


def fits_anywhere(board: Cells, tile: str, front: list[tuple[int, int]] | None = None) -> bool:
    """Whether `tile` has at least one legal placement (`front`: the frontier, if known)."""
    cells_to_try = frontier(board) if front is None else front
    return any(fits(board, tile, x, y, r) for (x, y) in cells_to_try for r in range(4))


def any_fits(board: Cells, tiles: tuple[str, ...] | list[str]) -> bool:
    """Whether some tile among `tiles` fits somewhere (checked once per design, stops at the first)."""
    front = frontier(board)
    one_per_design = {DESIGN_OF[t]: t for t in tiles}
    return any(fits_anywhere(board, t, front) for t in one_per_design.values())


def neighbours(board: Cells, pos: Pos) -> list[Pos]:
    """Positions one step away along connected openings."""
    x, y, path = pos
    cell = board[(x, y)]
    return links(board, cell.tile, cell.rotation, x, y, path)


def links(board: Cells, tile: str, rotation: int, x: int, y: int, path: int) -> list[Pos]:
    """Positions on neighbouring tiles that `path` of `tile` at (x, y) with `rotation` connects to."""
    out = []
    for dx, dy, back in _exits(tile, rotation, path):
        other = board.get((x + dx, y + dy))
        if other is not None:
            entry = side_path(other.tile, other.rotation, back)
            if entry is not None:
                out.append((x + dx, y + dy, entry))
    return out


@cache
def _exits(tile: str, rotation: int, path: int) -> tuple[tuple[int, int, int], ...]:
    """(dx, dy, the neighbour's side facing back) for each side `path` opens on."""
    return tuple((*DELTA[side], (side + 2) % 4) for side in path_sides(tile, rotation, path))


def is_mud(board: Cells, pos: Pos) -> bool:
    """Whether the path at `pos` has a mud puddle (only matters with the `mud` option)."""
    return spec(board[(pos[0], pos[1])], pos[2]).mud


def distances(board: Cells, start: Pos, mud: bool, limit: int | None = None) -> dict[Pos, int]:
    """Shortest step counts from `start` (itself 0); with `mud` a path is never crossed
    through a puddle, only entered to stop there (the start itself may be left)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        pos = queue.popleft()
        if limit is not None and dist[pos] >= limit:
            continue
        if pos != start and mud and is_mud(board, pos):
            continue
        for nxt in neighbours(board, pos):
            if nxt not in dist:
                dist[nxt] = dist[pos] + 1
                queue.append(nxt)
    return dist


def reachable(board: Cells, start: Pos, steps: int, mud: bool) -> list[Pos]:
    """Every position other than `start` at most `steps` away, sorted."""
    return sorted(p for p in distances(board, start, mud, steps) if p != start)


def secret_positions(board: Cells) -> list[Pos]:
    """Every placed path with a secret-passage entrance, sorted."""
    return sorted((c.x, c.y, i) for c in board.values()
                  for i, p in enumerate(design(c.tile).paths) if p.secret)


def entrance_pos() -> Pos:
    """The entrance tile's only position."""
    return (0, 0, 0)


def passes_entrance(board: Cells, start: Pos, end: Pos, steps: int, mud: bool) -> bool:
    """Whether a move of at most `steps` from `start` to `end` can start, pass or end on the entrance."""
    gate = entrance_pos()
    if gate in (start, end):
        return True
    there = distances(board, start, mud, steps).get(gate)
    if there is None:
        return False
    back = distances(board, gate, mud, steps - there).get(end)
    return back is not None and there + back <= steps


def steps_home(board: Cells, pos: Pos) -> int:
    """Fewest steps to the entrance ignoring mud (999 when cut off), for the capped outcome."""
    return distances(board, pos, False).get(entrance_pos(), 999)


def has_chamber(tile: str) -> bool:
    """Whether a tile is a gold chamber (gets a coin when placed)."""
    return any(p.chamber for p in design(tile).paths)
