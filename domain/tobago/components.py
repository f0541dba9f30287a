"""Tobago's components, loaded once from the shipped `tobago-island.json`.

The classic island (hex by hex), the 52 clue cards, the treasure values and
the counts of every piece, as typed structs; `CATALOGUE` is the whole box
(`GAME.components`). No logic lives here: the island geometry is in
`island.py`, the clue meaning in `clues.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import msgspec

Relation = Literal["in", "not_in", "next_to", "not_next_to", "within_sight", "beyond_sight"]
AmuletPower = Literal["clue", "step", "remove", "exchange", "double", "swap"]

_WORDS = {"in": "in", "not_in": "not in", "next_to": "next to", "not_next_to": "not next to",
          "within_sight": "within sight of", "beyond_sight": "beyond sight of"}
_ARTICLE = {"ocean": "the ocean", "hut": "a hut", "palm": "a palm", "statue": "a statue",
            "mountains": "the mountains", "jungle": "the jungle", "scrub": "the scrub", "beach": "a beach",
            "lake": "a lake", "river": "a river"}


class ClueCard(msgspec.Struct, frozen=True, kw_only=True):
    """One clue card as printed: `relation` over `target` (a terrain, a landmark or the ocean);
    `big` = the largest region of that terrain; `text` the clue in words."""

    id: str
    relation: Relation
    target: str
    big: bool
    text: str


class TreasureCard(msgspec.Struct, frozen=True, kw_only=True):
    """One treasure card as printed: gold coins, or a curse (worth nothing)."""

    kind: Literal["treasure", "curse"]
    gold: int


class Amulet(msgspec.Struct, frozen=True, kw_only=True):
    """An amulet token: each one is spent, back to the supply, for one of these powers
    (`double` and `swap` only with the advanced_amulets option)."""

    powers: tuple[AmuletPower, ...] = ("clue", "step", "remove", "exchange", "double", "swap")


class LandHex(msgspec.Struct, frozen=True, array_like=True):
    """One land hex: axial coordinates (flat-top) and its terrain."""

    q: int
    r: int
    terrain: str


class TobagoCatalogue(msgspec.Struct, frozen=True, kw_only=True):
    """Everything in the box: the classic island, the decks, and the count of every piece."""

    terrains: tuple[str, ...]
    classic_island: tuple[LandHex, ...]
    landmarks: dict[str, int]
    landmark_min_distance: int
    clue_cards: tuple[ClueCard, ...]
    treasure_cards: tuple[TreasureCard, ...]
    curse_cards: tuple[TreasureCard, ...]
    amulets: int
    amulet: Amulet
    maps: tuple[str, ...]
    markers_per_map: int
    roses_per_player: int
    hand_size: dict[int, int]
    drive_steps: int


def _clue(raw: dict) -> ClueCard:
    words = _ARTICLE[raw["target"]]
    if raw["big"]:
        words = f"the big {raw['target']}"
    return ClueCard(id=raw["id"], relation=raw["relation"], target=raw["target"], big=bool(raw["big"]),
                    text=f"{_WORDS[raw['relation']]} {words}")


_DATA = json.loads((Path(__file__).parent / "tobago-island.json").read_text(encoding="utf-8"))

CLASSIC_ISLAND: tuple[tuple[int, int, str], ...] = tuple(
    sorted((int(q), int(r), str(t)) for q, r, t in _DATA["islands"]["classic"]))
TERRAINS: tuple[str, ...] = tuple(_DATA["terrains"])
LANDMARK_COUNTS: dict[str, int] = {k: int(_DATA["landmarks"][k]) for k in ("hut", "palm", "statue")}
LANDMARK_DISTANCE: int = int(_DATA["landmarks"]["min_distance_same_kind"])
CLUES: dict[str, ClueCard] = {c["id"]: _clue(c) for c in _DATA["clue_cards"]}
CLUE_IDS: tuple[str, ...] = tuple(CLUES)
TREASURE_CARDS: tuple[int, ...] = tuple(
    sorted(int(v) for v, n in _DATA["treasure_values"].items() for _ in range(int(n))))
CURSE = 0  # a curse card in the treasure deck (a treasure card's value stands for the card)
CURSE_CARDS: int = int(_DATA["curse_cards"])
AMULETS: int = int(_DATA["amulets"])
MAPS: tuple[str, ...] = tuple(_DATA["maps"])
MARKERS_PER_MAP: int = int(_DATA["markers_per_map"])
ROSES_PER_PLAYER: int = int(_DATA["roses_per_player"])
HAND_SIZE: dict[int, int] = {int(k): int(v) for k, v in _DATA["hand_size"].items()}
DRIVE_STEPS: int = int(_DATA["drive_steps"])


def treasure_card(value: int) -> TreasureCard:
    """The printed card a value in the treasure deck stands for (CURSE = a curse card)."""
    return TreasureCard(kind="curse", gold=0) if value == CURSE else TreasureCard(kind="treasure", gold=value)


CATALOGUE = TobagoCatalogue(
    terrains=TERRAINS, classic_island=tuple(LandHex(q, r, t) for q, r, t in CLASSIC_ISLAND),
    landmarks=dict(LANDMARK_COUNTS), landmark_min_distance=LANDMARK_DISTANCE, clue_cards=tuple(CLUES.values()),
    treasure_cards=tuple(treasure_card(v) for v in TREASURE_CARDS),
    curse_cards=tuple(treasure_card(CURSE) for _ in range(CURSE_CARDS)), amulets=AMULETS, amulet=Amulet(),
    maps=MAPS, markers_per_map=MARKERS_PER_MAP, roses_per_player=ROSES_PER_PLAYER, hand_size=dict(HAND_SIZE),
    drive_steps=DRIVE_STEPS)
