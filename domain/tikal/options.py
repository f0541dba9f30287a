"""Tikal's options: the rules a table may choose before the game starts.

`variant` (standard draw or the tactical auction), `edition` (original or Classic
board and tie-break), and `random_first` for the creator who wants the first seat
drawn by the Rng. The seat range lives here too, beside the options it bounds.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

MIN_PLAYERS, MAX_PLAYERS = 2, 4


class TikalOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    variant: Annotated[Literal["standard", "auction"], msgspec.Meta(
        description="standard: draw the next tile each turn; auction: the tactical version, the revealed tiles "
                    "are auctioned for victory points (everybody starts with 20)")] = "standard"
    edition: Annotated[Literal["original", "classic"], msgspec.Meta(
        description="original: the Ravensburger rules; classic: the 2018 Tikal Classic board (printed volcano, "
                    "volcano-next-to-volcano rule) and its tie-break (highest guarded temple)")] = "original"
    random_first: Annotated[bool, msgspec.Meta(
        description="draw the first player at random instead of seat 0")] = False
