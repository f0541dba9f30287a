"""Gold Mine commands: what a seat asks to do. The caller's seat is given to decide.

Movement: `Explore` (draw, or play a hand tile with `five_tiles`), `Roll`,
`SecretPassage`, `Stay`; then `PlaceTile` and `Move` pick a placement or a
destination. Action: `TakeCoin`, `Challenge`, `PassCoins`, then `EndTurn`.
`PlaceCoin` or `LeaveCoin` and `Move` are also what a defender who won sends mid-turn.
"""

from __future__ import annotations

from typing import Literal, Union

import msgspec


class PlaceTile(msgspec.Struct, frozen=True, tag="goldmine.PlaceTile", tag_field="type", forbid_unknown_fields=True):
    """Place the drawn tile at (x, y) turned `rotation` quarter turns clockwise."""

    x: int
    y: int
    rotation: int


class Explore(msgspec.Struct, frozen=True, tag="goldmine.Explore", tag_field="type", forbid_unknown_fields=True):
    """Explore: draw from the stack, or (five_tiles) play `tile` from your hand."""

    tile: str | None = None


class Roll(msgspec.Struct, frozen=True, tag="goldmine.Roll", tag_field="type", forbid_unknown_fields=True):
    """Roll one die to move up to that many steps."""


class SecretPassage(msgspec.Struct, frozen=True, tag="goldmine.SecretPassage", tag_field="type",
                    forbid_unknown_fields=True):
    """Roll both dice to try the secret passage you stand on."""


class Stay(msgspec.Struct, frozen=True, tag="goldmine.Stay", tag_field="type", forbid_unknown_fields=True):
    """Do not move (as the movement, or instead of the offered step/destination)."""


class Move(msgspec.Struct, frozen=True, tag="goldmine.Move", tag_field="type", forbid_unknown_fields=True):
    """Move the pirate being moved now to (x, y, path)."""

    x: int
    y: int
    path: int


class TakeCoin(msgspec.Struct, frozen=True, tag="goldmine.TakeCoin", tag_field="type", forbid_unknown_fields=True):
    """Take the coin of the gold chamber you stand on."""


class Challenge(msgspec.Struct, frozen=True, tag="goldmine.Challenge", tag_field="type", forbid_unknown_fields=True):
    """Spend a bet or bats token to challenge `target`."""

    kind: Literal["bet", "bats"]
    target: int


class PlaceCoin(msgspec.Struct, frozen=True, tag="goldmine.PlaceCoin", tag_field="type", forbid_unknown_fields=True):
    """As the bet's winner, put the loser's coin on the gold chamber at (x, y)."""

    x: int
    y: int


class LeaveCoin(msgspec.Struct, frozen=True, tag="goldmine.LeaveCoin", tag_field="type", forbid_unknown_fields=True):
    """As the bet's winner, leave the loser's coin with the loser (taking it is a choice)."""


class PassCoins(msgspec.Struct, frozen=True, tag="goldmine.PassCoins", tag_field="type", forbid_unknown_fields=True):
    """Alliances: give `amount` coins to your partner on the same path."""

    amount: int


class EndTurn(msgspec.Struct, frozen=True, tag="goldmine.EndTurn", tag_field="type", forbid_unknown_fields=True):
    """End your turn."""


GoldmineCommand = Union[PlaceTile, Explore, Roll, SecretPassage, Stay, Move, TakeCoin, Challenge,
                        PlaceCoin, LeaveCoin, PassCoins, EndTurn]
