"""The `place` phase: where the tile in hand may go (adjacency, path rule, classic volcano rule, fallback).

A tile goes on an empty board space next to a placed tile, in any of six
rotations. A non-volcano tile needs one edge forming a path (at least one
stone in total) to a neighbouring non-volcano tile. Volcanoes ignore the path
rule; in the classic edition a volcano next to another volcano may not cut
any empty space or non-volcano tile off from the base camp. Ruling from the
spec: when no space satisfies these rules, any empty space next to a placed
tile is allowed (the placement is then marked `forced`).
"""

from __future__ import annotations

from domain.kernel import RuleViolation
from domain.tikal.components import BOARD_SPACES, TILES
from domain.tikal.state import Coord, Space, TikalState, board_map, neighbour, neighbours, rotated

_ON_BOARD = frozenset(BOARD_SPACES)


def _touches(spaces: dict[Coord, Space], q: int, r: int) -> bool:
    return any(neighbour(q, r, e) in spaces for e in range(6))


def _cuts_off(spaces: dict[Coord, Space], q: int, r: int) -> bool:
    """Whether a volcano on (q, r) leaves a free space or non-volcano tile unjoined to the base camp."""
    blocked = {c for c, s in spaces.items() if s.kind == "volcano"} | {(q, r)}
    open_spaces = [c for c in BOARD_SPACES if c not in blocked]
    base = next(c for c, s in spaces.items() if s.kind == "base_camp")
    seen, todo = {base}, [base]
    while todo:
        here = todo.pop()
        for e in range(6):
            there = neighbour(*here, e)
            if there in _ON_BOARD and there not in blocked and there not in seen:
                seen.add(there)
                todo.append(there)
    return any(c not in seen for c in open_spaces)


def _strict_problem(state: TikalState, spaces: dict[Coord, Space], q: int, r: int, rotation: int) -> RuleViolation | None:
    """Why (q, r, rotation) breaks the placement rules proper (adjacency assumed), or None."""
    spec = TILES[state.hand or ""]
    if spec.kind == "volcano":
        if state.edition == "classic":
            near_volcano = any(spaces.get(neighbour(q, r, e)) is not None
                               and spaces[neighbour(q, r, e)].kind == "volcano" for e in range(6))
            if near_volcano and _cuts_off(spaces, q, r):
                return RuleViolation("tikal.volcano_cuts_off", "a volcano next to another volcano may not cut spaces off")
        return None
    stones = rotated(spec.stones, rotation)
    for e in range(6):
        other = spaces.get(neighbour(q, r, e))
        if other is not None and other.kind != "volcano" and stones[e] + other.stones[(e + 3) % 6] >= 1:
            return None
    return RuleViolation("tikal.tile_needs_path", "the tile must form a path with a neighbouring non-volcano tile")


def _candidates(spaces: dict[Coord, Space]) -> list[Coord]:
    return [c for c in BOARD_SPACES if c not in spaces and _touches(spaces, *c)]


def strict_placements(state: TikalState) -> list[tuple[int, int, int]]:
    spaces = board_map(state)
    return [(q, r, rot) for q, r in _candidates(spaces) for rot in range(6)
            if _strict_problem(state, spaces, q, r, rot) is None]


def legal_placements(state: TikalState) -> list[tuple[int, int, int]]:
    """Every (q, r, rotation) the tile in hand may take, the fallback included: exactly what
    `placement_refusal` allows. Each empty space is judged once for all six rotations: the classic
    volcano rule does not depend on the rotation, and the path rule is an `_path_mask` per
    neighbouring non-volcano tile."""
    spaces = board_map(state)
    spec = TILES[state.hand or ""]
    cells: list[tuple[Coord, int]] = []  # each candidate space with its rotations that keep the rules
    for cell in BOARD_SPACES:
        if cell in spaces:
            continue
        touches, mask = False, 0
        for edge, near in enumerate(neighbours(cell)):
            other = spaces.get(near)
            if other is not None:
                touches = True
                if other.kind != "volcano":
                    mask |= _path_mask(spec.stones, edge, other.stones[(edge + 3) % 6])
        if touches:
            if spec.kind == "volcano":
                mask = 0 if _strict_problem(state, spaces, *cell, 0) is not None else 0b111111
            cells.append((cell, mask))
    strict = [(q, r, rot) for (q, r), mask in cells for rot in _ROTATIONS[mask]]
    return strict if strict else [(q, r, rot) for (q, r), _ in cells for rot in range(6)]


_ROTATIONS = [[rot for rot in range(6) if mask >> rot & 1] for mask in range(64)]
_MASKS: dict[tuple[tuple[int, ...], int, int], int] = {}


def _path_mask(stones: tuple[int, ...], edge: int, theirs: int) -> int:
    """Bit `rot` set when the tile of `stones`, turned `rot` steps, forms a path over `edge` with a
    neighbour showing `theirs` stones on that edge (`_strict_problem`'s test, one edge at a time)."""
    key = (stones, edge, theirs)
    mask = _MASKS.get(key)
    if mask is None:
        mask = _MASKS[key] = sum(1 << rot for rot in range(6) if rotated(stones, rot)[edge] + theirs >= 1)
    return mask


def placement_refusal(state: TikalState, q: int, r: int, rotation: int,
                      strict: bool | None = None) -> RuleViolation | None:
    """Why the tile in hand may not go on (q, r) turned `rotation` steps, or None (the fallback included).

    `strict` (whether any placement keeps the rules proper) may be passed in when already known.
    """
    spaces = board_map(state)
    if not 0 <= rotation <= 5:
        return RuleViolation("tikal.bad_rotation", "rotation is 0 to 5 steps clockwise")
    if (q, r) not in _ON_BOARD:
        return RuleViolation("tikal.no_such_space", f"({q}, {r}) is not a board space")
    if (q, r) in spaces:
        return RuleViolation("tikal.space_taken", f"({q}, {r}) already holds a tile")
    if not _touches(spaces, q, r):
        return RuleViolation("tikal.not_adjacent", "a tile must go next to a placed tile")
    problem = _strict_problem(state, spaces, q, r, rotation)
    if problem is not None and (strict if strict is not None else bool(strict_placements(state))):
        return problem
    return None


def is_forced(state: TikalState, q: int, r: int, rotation: int) -> bool:
    """Whether an allowed placement breaks the placement rules proper (the no-space fallback)."""
    return _strict_problem(state, board_map(state), q, r, rotation) is not None
