"""Tobago's components, loaded once from the shipped `tobago-island.json`.

The classic island (hex by hex), the 52 clue cards, the treasure values and
the counts of every piece. No logic lives here: the island geometry is in
`island.py`, the clue meaning in `clues.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec


class ClueCard(msgspec.Struct, frozen=True):
    """One clue card: `relation` over `target` (a terrain, a landmark or the ocean); `big` = the big region."""

    id: str
    relation: str
    target: str
    big: bool


_DATA = json.loads((Path(__file__).parent / "tobago-island.json").read_text(encoding="utf-8"))

CLASSIC_ISLAND: tuple[tuple[int, int, str], ...] = tuple(
    sorted((int(q), int(r), str(t)) for q, r, t in _DATA["islands"]["classic"]))
TERRAINS: tuple[str, ...] = tuple(_DATA["terrains"])
LANDMARK_COUNTS: dict[str, int] = {k: int(_DATA["landmarks"][k]) for k in ("hut", "palm", "statue")}
LANDMARK_DISTANCE: int = int(_DATA["landmarks"]["min_distance_same_kind"])
CLUES: dict[str, ClueCard] = {c["id"]: ClueCard(c["id"], c["relation"], c["target"], bool(c["big"]))
                              for c in _DATA["clue_cards"]}
CLUE_IDS: tuple[str, ...] = tuple(CLUES)
TREASURE_CARDS: tuple[int, ...] = tuple(
    sorted(int(v) for v, n in _DATA["treasure_values"].items() for _ in range(int(n))))
CURSE = 0  # a curse card in the treasure deck
CURSE_CARDS: int = int(_DATA["curse_cards"])
AMULETS: int = int(_DATA["amulets"])
MAPS: tuple[str, ...] = tuple(_DATA["maps"])
MARKERS_PER_MAP: int = int(_DATA["markers_per_map"])
ROSES_PER_PLAYER: int = int(_DATA["roses_per_player"])
HAND_SIZE: dict[int, int] = {int(k): int(v) for k, v in _DATA["hand_size"].items()}
DRIVE_STEPS: int = int(_DATA["drive_steps"])
