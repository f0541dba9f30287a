"""Cóatl components, loaded once from the shipped `coatl-cards.json` (no logic).

Prophecy cards are numbered 0..N-1 in the order of the data file's types,
each type repeated `copies` times (the five colour-count faces twice); the
promo types come last, so base card ids stay the same with or without them.
Temple cards are identified by their type. Colours keep the data file's order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "coatl-cards.json").read_text(encoding="utf-8"))

Color = Literal["yellow", "red", "black", "green", "blue"]
Kind = Literal["head", "tail", "body"]

COLORS: tuple[str, ...] = tuple(DATA["colors"])
KINDS: tuple[str, ...] = ("head", "tail", "body")
PIECES_PER_COLOR: dict[str, int] = dict(DATA["pieces_per_color"])
HEAD_SLOTS: int = DATA["supply_board"]["head_slots"]
TAIL_SLOTS: int = DATA["supply_board"]["tail_slots"]
BODY_SLOTS: int = DATA["supply_board"]["body_slots"]
BODY_PER_SLOT: int = DATA["supply_board"]["body_per_slot"]
BOARD_SLOTS: int = DATA["player_board_slots"]
HAND_LIMIT: int = DATA["hand_limit"]
ROW_SIZE: int = DATA["prophecy_row"]
OPENING_HAND: tuple[int, ...] = tuple(DATA["opening_hand_by_seat"])
OPENING_KEEP: int = DATA["opening_hand_keep"]
MAX_PROPHECIES_PER_COATL = 4
MAX_INCOMPLETE = 2
MAX_COMPLETED = 3

PROPHECY_TYPES: dict[int, dict[str, Any]] = {p["type"]: p for p in DATA["prophecies"]}
TEMPLE_TYPES: dict[int, dict[str, Any]] = {t["type"]: t for t in DATA["temples"]}

# card id -> prophecy type, base cards first, then promo cards
CARD_TYPE: tuple[int, ...] = tuple(
    p["type"] for p in sorted(DATA["prophecies"], key=lambda p: (p.get("promo", False), p["type"]))
    for _ in range(p["copies"])
)
BASE_CARDS: tuple[int, ...] = tuple(i for i, t in enumerate(CARD_TYPE) if not PROPHECY_TYPES[t].get("promo"))
PROMO_CARDS: tuple[int, ...] = tuple(i for i, t in enumerate(CARD_TYPE) if PROPHECY_TYPES[t].get("promo"))
BASE_TEMPLES: tuple[int, ...] = tuple(t["type"] for t in DATA["temples"] if not t.get("promo"))
PROMO_TEMPLES: tuple[int, ...] = tuple(t["type"] for t in DATA["temples"] if t.get("promo"))
