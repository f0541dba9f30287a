"""Cóatl's options: the variants a table may choose before the game starts."""

from __future__ import annotations

from typing import Annotated

import msgspec


class CoatlOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    sacrifice_tokens: Annotated[bool, msgspec.Meta(
        description="Each player gets the three sacrifice tokens (Perfect Choice, Foretelling, Priest's Duty); "
                    "the rulebook advises leaving them out of a first game.")] = True
    promo_cards: Annotated[bool, msgspec.Meta(
        description="Add the 6 promo prophecy cards and 5 promo temple cards.")] = False
    random_first_player: Annotated[bool, msgspec.Meta(
        description="Choose the first player at random instead of seat 0.")] = False
