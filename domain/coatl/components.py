"""Cóatl components, typed and loaded once from the shipped `coatl-cards.json` (no logic).

Prophecy cards are numbered 0..N-1 in the order of the data file's types,
each type repeated `copies` times (the five colour-count faces twice); the
promo types come last, so base card ids stay the same with or without them.
Temple cards are identified by their type. Colours keep the data file's order.
`CATALOGUE` is the whole printed catalogue, served as `GAME.components`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional, Union

import msgspec

Color = Literal["yellow", "red", "black", "green", "blue"]
Kind = Literal["head", "tail", "body"]
ProphecyKind = Literal["color_count", "isolated_pair", "run", "sequence_repeatable", "sequence_once",
                       "bracket_infinity", "mirror_gap_once", "unordered_counts_once"]


class ProphecyFace(msgspec.Struct, frozen=True, kw_only=True):
    """What a prophecy card shows: its pattern (see `pattern_notation`) and points by level reached."""

    type: int
    card_color: Color
    kind: ProphecyKind
    pattern: Union[tuple[str, ...], dict[Color, int]]
    points: dict[int, int]
    promo: bool = False


class ProphecyType(ProphecyFace, frozen=True, kw_only=True):
    """One prophecy face of the catalogue and how many cards show it."""

    copies: int


class Requirement(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One temple requirement; exactly one field is set."""

    no_piece_of: Optional[Color] = None
    exact_length: Optional[int] = None
    equal_count: Optional[tuple[Color, Color]] = None
    no_prophecy_card_of_color: Optional[Color] = None


class TempleFace(msgspec.Struct, frozen=True, kw_only=True):
    """What a temple card shows: its requirements and points by how many of them are met."""

    type: int
    requirements: tuple[Requirement, ...]
    points_by_requirements_met: dict[int, int]
    promo: bool = False


class SupplyBoard(msgspec.Struct, frozen=True, kw_only=True):
    head_slots: int
    tail_slots: int
    body_slots: int
    body_per_slot: int


class Catalogue(msgspec.Struct, frozen=True, kw_only=True):
    """Every printed component of Cóatl; `cards[id]` is the prophecy type of card `id`."""

    colors: tuple[Color, ...]
    pieces_per_color: dict[Kind, int]
    supply_board: SupplyBoard
    player_board_slots: int
    hand_limit: int
    prophecy_row: int
    opening_hand_by_seat: tuple[int, ...]
    opening_hand_keep: int
    pattern_notation: dict[str, str]
    scoring_kinds: dict[str, str]
    prophecies: tuple[ProphecyType, ...]
    temples: tuple[TempleFace, ...]
    cards: tuple[int, ...] = ()


def _load() -> Catalogue:
    raw = msgspec.json.decode((Path(__file__).parent / "coatl-cards.json").read_bytes(), type=Catalogue)
    ordered = sorted(raw.prophecies, key=lambda p: (p.promo, p.type))  # base cards first, then promo cards
    return msgspec.structs.replace(raw, cards=tuple(p.type for p in ordered for _ in range(p.copies)))


CATALOGUE: Catalogue = _load()

COLORS: tuple[Color, ...] = CATALOGUE.colors
KINDS: tuple[Kind, ...] = ("head", "tail", "body")
PIECES_PER_COLOR: dict[Kind, int] = CATALOGUE.pieces_per_color
HEAD_SLOTS: int = CATALOGUE.supply_board.head_slots
TAIL_SLOTS: int = CATALOGUE.supply_board.tail_slots
BODY_SLOTS: int = CATALOGUE.supply_board.body_slots
BODY_PER_SLOT: int = CATALOGUE.supply_board.body_per_slot
BOARD_SLOTS: int = CATALOGUE.player_board_slots
HAND_LIMIT: int = CATALOGUE.hand_limit
ROW_SIZE: int = CATALOGUE.prophecy_row
OPENING_HAND: tuple[int, ...] = CATALOGUE.opening_hand_by_seat
OPENING_KEEP: int = CATALOGUE.opening_hand_keep
MAX_PROPHECIES_PER_COATL = 4
MAX_INCOMPLETE = 2
MAX_COMPLETED = 3

PROPHECIES: dict[int, ProphecyType] = {p.type: p for p in CATALOGUE.prophecies}
TEMPLES: dict[int, TempleFace] = {t.type: t for t in CATALOGUE.temples}
CARD_TYPE: tuple[int, ...] = CATALOGUE.cards
BASE_CARDS: tuple[int, ...] = tuple(i for i, t in enumerate(CARD_TYPE) if not PROPHECIES[t].promo)
PROMO_CARDS: tuple[int, ...] = tuple(i for i, t in enumerate(CARD_TYPE) if PROPHECIES[t].promo)
BASE_TEMPLES: tuple[int, ...] = tuple(t.type for t in CATALOGUE.temples if not t.promo)
PROMO_TEMPLES: tuple[int, ...] = tuple(t.type for t in CATALOGUE.temples if t.promo)
