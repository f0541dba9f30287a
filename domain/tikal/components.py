"""Tikal's components, loaded once from the shipped `tikal-components.json`.

The board's spaces, the four printed start spaces, the classic edition's
printed volcano, the 36 lettered terrain tiles with their per-edge path
stones, the temple level supply and the treasure kinds. Data only, no rules.
`CATALOGUE` is the whole printed catalogue as one typed value
(`GAME.components`); `printed(tile_id)` finds any tile's printed data.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec


class TileSpec(msgspec.Struct, frozen=True):
    """One terrain tile (or printed start space) as printed, before rotation.

    `stones` are path stones per edge in the order N, NE, SE, S, SW, NW; `value`
    the printed temple value; `masks` the face-down treasure tokens a ruins receives.
    """

    id: str
    letter: str
    kind: str  # base_camp | temple | ruins | clearing | volcano
    stones: tuple[int, ...]
    value: int = 0
    masks: int = 0


class TreasureSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One kind of treasure token as printed: its id, how many copies the game has, and what a
    player's set of 1, 2 or 3 of that kind scores (the components' `treasure_scores`)."""

    id: str
    copies: int
    set_scores: dict[int, int]


class PrintedSpace(msgspec.Struct, frozen=True):
    """A space printed on the board: where it is and what is printed there."""

    q: int
    r: int
    tile: TileSpec


class PerPlayer(msgspec.Struct, frozen=True):
    leader: int
    explorers: int
    camps: int
    guards: int
    action_points: int


class TikalComponents(msgspec.Struct, frozen=True, kw_only=True):
    """The whole printed catalogue of Tikal, as `GET /v1/kinds/tikal/components` serves it."""

    board_spaces: list[tuple[int, int]]
    edge_order: list[str]
    start_spaces: list[PrintedSpace]
    classic_printed_volcano: PrintedSpace
    tiles: list[TileSpec]
    temple_levels: dict[int, int]
    treasure_kinds: list[str]
    treasure_per_kind: int
    treasure_scores: dict[int, int]
    per_player: PerPlayer


_DATA = json.loads((Path(__file__).parent / "tikal-components.json").read_text(encoding="utf-8"))

EDGES: tuple[str, ...] = tuple(_DATA["hex"]["edge_order"])
OFFSETS: tuple[tuple[int, int], ...] = tuple(tuple(_DATA["hex"]["neighbour_offsets"][e]) for e in EDGES)  # type: ignore[misc]
BOARD_SPACES: tuple[tuple[int, int], ...] = tuple(sorted((q, r) for q, r in _DATA["board_spaces"]))
START_SPACES: tuple[tuple[int, int, TileSpec], ...] = tuple(
    (s["q"], s["r"], TileSpec(id=s["id"], letter="", kind=s["type"], stones=tuple(s["stones"]), value=s.get("value", 0)))
    for s in _DATA["start_spaces"]
)
PRINTED_VOLCANO: tuple[int, int] = (_DATA["classic_printed_volcano"]["q"], _DATA["classic_printed_volcano"]["r"])
PRINTED_VOLCANO_TILE = TileSpec(id="printed_volcano", letter="", kind="volcano", stones=(0,) * 6)
TILES: dict[str, TileSpec] = {
    t["id"]: TileSpec(id=t["id"], letter=t["letter"], kind=t["type"], stones=tuple(t["stones"]),
                      value=t.get("value", 0), masks=t.get("masks", 0))
    for t in _DATA["tiles"]
}
_PRINTED: dict[str, TileSpec] = {**TILES, **{spec.id: spec for _, _, spec in START_SPACES},
                                 PRINTED_VOLCANO_TILE.id: PRINTED_VOLCANO_TILE}
LETTERS: tuple[str, ...] = tuple(sorted({t.letter for t in TILES.values()}))
LEVELS: dict[int, int] = {int(k): v for k, v in _DATA["temple_levels"].items()}
MAX_LEVEL: int = max(LEVELS)
TREASURE_KINDS: tuple[str, ...] = tuple(_DATA["treasure_kinds"])
TREASURE_PER_KIND: int = _DATA["treasure_per_kind"]
TREASURE_SCORES: dict[int, int] = {int(k): v for k, v in _DATA["treasure_scores"].items()}
EXPLORERS: int = _DATA["per_player"]["explorers"]
CAMPS: int = _DATA["per_player"]["camps"]
GUARDS: int = _DATA["per_player"]["guards_max"]
ACTION_POINTS: int = _DATA["per_player"]["action_points"]


def treasure(kind: str) -> TreasureSpec:
    """The printed data of a treasure kind (T1..T8)."""
    return _TREASURES[kind]


def printed(tile_id: str) -> TileSpec:
    """The printed data of any tile id: a terrain tile, a start space or the printed volcano."""
    return _PRINTED[tile_id]


_TREASURES = {k: TreasureSpec(id=k, copies=TREASURE_PER_KIND, set_scores=dict(TREASURE_SCORES))
              for k in TREASURE_KINDS}

CATALOGUE = TikalComponents(
    board_spaces=list(BOARD_SPACES), edge_order=list(EDGES),
    start_spaces=[PrintedSpace(q=q, r=r, tile=spec) for q, r, spec in START_SPACES],
    classic_printed_volcano=PrintedSpace(q=PRINTED_VOLCANO[0], r=PRINTED_VOLCANO[1], tile=PRINTED_VOLCANO_TILE),
    tiles=list(TILES.values()), temple_levels=dict(LEVELS), treasure_kinds=list(TREASURE_KINDS),
    treasure_per_kind=TREASURE_PER_KIND, treasure_scores=dict(TREASURE_SCORES),
    per_player=PerPlayer(leader=_DATA["per_player"]["leader"], explorers=EXPLORERS, camps=CAMPS, guards=GUARDS,
                         action_points=ACTION_POINTS))
