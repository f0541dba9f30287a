"""Tikal's components, loaded once from the shipped `tikal-components.json`.

The board's spaces, the four printed start spaces, the classic edition's
printed volcano, the 36 lettered terrain tiles with their per-edge path
stones, the temple level supply and the treasure kinds. Data only, no rules.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec


class TileSpec(msgspec.Struct, frozen=True):
    """One terrain tile (or printed start space) as printed, before rotation."""

    id: str
    letter: str
    kind: str  # base_camp | temple | ruins | clearing | volcano
    stones: tuple[int, ...]
    value: int = 0
    masks: int = 0


_DATA = json.loads((Path(__file__).parent / "tikal-components.json").read_text(encoding="utf-8"))

EDGES: tuple[str, ...] = tuple(_DATA["hex"]["edge_order"])
OFFSETS: tuple[tuple[int, int], ...] = tuple(tuple(_DATA["hex"]["neighbour_offsets"][e]) for e in EDGES)  # type: ignore[misc]
BOARD_SPACES: tuple[tuple[int, int], ...] = tuple(sorted((q, r) for q, r in _DATA["board_spaces"]))
START_SPACES: tuple[tuple[int, int, TileSpec], ...] = tuple(
    (s["q"], s["r"], TileSpec(id=s["id"], letter="", kind=s["type"], stones=tuple(s["stones"]), value=s.get("value", 0)))
    for s in _DATA["start_spaces"]
)
PRINTED_VOLCANO: tuple[int, int] = (_DATA["classic_printed_volcano"]["q"], _DATA["classic_printed_volcano"]["r"])
TILES: dict[str, TileSpec] = {
    t["id"]: TileSpec(id=t["id"], letter=t["letter"], kind=t["type"], stones=tuple(t["stones"]),
                      value=t.get("value", 0), masks=t.get("masks", 0))
    for t in _DATA["tiles"]
}
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
