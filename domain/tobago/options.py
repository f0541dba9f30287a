"""Tobago's options: the rulebook's curse variants, advanced amulets, the island and its landmarks."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import msgspec
from msgspec import Meta


class LandmarkSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Explicit landmark hexes as (q, r); statues as (q, r, facing 0..5 = N, NE, SE, S, SW, NW)."""

    huts: tuple[tuple[int, int], ...]
    palms: tuple[tuple[int, int], ...]
    statues: tuple[tuple[int, int, int], ...]


class TobagoOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Tobago table's options (the rulebook's curse variants combine freely)."""

    curse_effect: Annotated[Literal["standard", "continue", "amulet_holders"], Meta(
        description="standard: a curse stops the share; continue: penalty, share goes on (variant a); "
                    "amulet_holders: amulet holders pay an amulet and keep sharing (variant b)")] = "standard"
    curse_cards: Annotated[Literal[1, 2], Meta(description="curse cards in the treasure deck (variant c: 1)")] = 2
    curse_depth: Annotated[Literal[27, 21], Meta(description="curses are shuffled into this many bottom cards")] = 27
    curse_returns: Annotated[bool, Meta(description="a triggered curse is shuffled back into the deck")] = False
    advanced_amulets: Annotated[bool, Meta(description="amulets may also double a rose or swap roses")] = False
    island: Annotated[Literal["classic", "generated"], Meta(
        description="classic: sides A+B+C from the data file; generated: a new island from the seed")] = "classic"
    landmarks: Annotated[Optional[LandmarkSpec], Meta(
        description="explicit landmark hexes (classic island only); default: placed at random")] = None
    random_first_seat: Annotated[bool, Meta(description="draw the first player instead of seat 0")] = False
