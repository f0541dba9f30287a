"""Tikal commands: one atomic action each, sent by the seat that acts.

A standard turn is `PlaceTile` followed by actions (`EnterPiece`, `MovePiece`,
`CampMove`, `UncoverLevel`, `DigTreasure`, `TradeTreasure`, `BuildCamp`,
`PlaceGuard`) and closed by `EndTurn`. The auction variant adds `Bid`, `Pass`
and `TakeTile`. Spaces are axial hex coordinates (q, r).
"""

from __future__ import annotations

from typing import Optional, Union

import msgspec


class _Command(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


class PlaceTile(_Command, tag="tikal.PlaceTile"):
    """Place the tile in hand on (q, r), turned `rotation` steps clockwise (0-5)."""

    q: int
    r: int
    rotation: int = 0


class EnterPiece(_Command, tag="tikal.EnterPiece"):
    """Bring a new explorer (or the leader) onto the base camp or one of your camps: 1 AP."""

    q: int
    r: int
    leader: bool = False


class _Walk(_Command):
    """One piece from (from_q, from_r) to (to_q, to_r).

    `leader` moves the leader. Otherwise, without `explorer`, an explorer that has not acted
    this turn moves; name `explorer` (its id) to move one that has uncovered or dug this turn
    (explorers that have not acted are alike, so they are never named).
    """

    from_q: int
    from_r: int
    to_q: int
    to_r: int
    leader: bool = False
    explorer: Optional[int] = None


class MovePiece(_Walk, tag="tikal.MovePiece"):
    """Walk one piece along path stones to a reachable space: 1 AP per stone of the cheapest path."""


class CampMove(_Walk, tag="tikal.CampMove"):
    """Move one piece between the base camp and your own camps: 1 AP."""


class _Act(_Command):
    """An act on (q, r) by one of your pieces there that has not acted there this turn.

    `leader` names the leader, `explorer` an explorer by id. Naming neither keeps the recorded
    default (the ruling in `state.actor`: of your pieces free there, the one that acted most
    elsewhere this turn, an explorer before the leader, the lowest id first); `legal` always names.
    """

    q: int
    r: int
    leader: bool = False
    explorer: Optional[int] = None


class UncoverLevel(_Act, tag="tikal.UncoverLevel"):
    """Uncover the next level of the temple on (q, r) with a piece that has not done so there this turn: 2 AP."""


class DigTreasure(_Act, tag="tikal.DigTreasure"):
    """Dig the top treasure token of the ruins on (q, r) with a piece that has not dug there this turn: 3 AP."""


class TradeTreasure(_Command, tag="tikal.TradeTreasure"):
    """Swap your single token of kind `give` for the single token of kind `take` of seat `other`: 3 AP."""

    other: int
    give: str
    take: str


class BuildCamp(_Command, tag="tikal.BuildCamp"):
    """Build one of your camps on the clearing (q, r): 5 AP."""

    q: int
    r: int


class PlaceGuard(_Command, tag="tikal.PlaceGuard"):
    """Guard the temple on (q, r) where you hold strict majority: 5 AP.

    `leader` says which piece becomes the guard: true the leader, false an explorer (explorers
    are alike here: the others leave the game). Null keeps the recorded default: an explorer
    when one is there, else the leader. `legal` names the choice.
    """

    q: int
    r: int
    leader: Optional[bool] = None


class EndTurn(_Command, tag="tikal.EndTurn"):
    """End your 10-AP phase; unused action points are lost."""


class Bid(_Command, tag="tikal.Bid"):
    """Auction variant: bid `amount` points (above the current bid, at most your score)."""

    amount: int


class Pass(_Command, tag="tikal.Pass"):
    """Auction variant: leave this auction."""


class TakeTile(_Command, tag="tikal.TakeTile"):
    """Auction variant: take one of the revealed tiles after winning (or being given) the pick."""

    tile: str


TikalCommand = Union[PlaceTile, EnterPiece, MovePiece, CampMove, UncoverLevel, DigTreasure, TradeTreasure,
                     BuildCamp, PlaceGuard, EndTurn, Bid, Pass, TakeTile]
