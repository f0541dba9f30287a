"""Tobago's commands: what a seat asks for (imperative, no seat field).

Hexes are indices into the island's hex list (the view publishes it), maps are
0..3 (white, grey, brown, black). `amulet=True` pays with an amulet for an
extra clue play or an exchange instead of using the turn's action.
"""

from __future__ import annotations

from typing import Union

import msgspec


class _Cmd(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


class PlaceAtv(_Cmd, tag="tobago.PlaceAtv"):
    hex: int


class PlayClue(_Cmd, tag="tobago.PlayClue"):
    card: str
    map: int
    amulet: bool = False


class Drive(_Cmd, tag="tobago.Drive"):
    """Drive to `hex`, using as many of the turn's drive steps as the shortest way needs."""

    hex: int


class ExchangeClues(_Cmd, tag="tobago.ExchangeClues"):
    amulet: bool = False


class CollectTreasure(_Cmd, tag="tobago.CollectTreasure"):
    map: int


class AmuletStep(_Cmd, tag="tobago.AmuletStep"):
    """Spend an amulet for one extra drive step (collects nothing)."""

    hex: int


class RemoveCandidate(_Cmd, tag="tobago.RemoveCandidate"):
    """Spend an amulet to take one marker off a map."""

    map: int
    hex: int


class DoubleRose(_Cmd, tag="tobago.DoubleRose"):
    """Advanced amulet: a second rose on clue `slot` (0 = top) of `map`, which holds one rose of yours."""

    map: int
    slot: int


class SwapRoses(_Cmd, tag="tobago.SwapRoses"):
    """Advanced amulet: swap the roses of clues `a` < `b` of `map` (a double pair moves as one)."""

    map: int
    a: int
    b: int


class EndTurn(_Cmd, tag="tobago.EndTurn"):
    pass


class TakeCard(_Cmd, tag="tobago.TakeCard"):
    pass


class PassCard(_Cmd, tag="tobago.PassCard"):
    pass


class StartHunt(_Cmd, tag="tobago.StartHunt"):
    card: str


TobagoCommand = Union[PlaceAtv, PlayClue, Drive, ExchangeClues, CollectTreasure, AmuletStep, RemoveCandidate,
                      DoubleRose, SwapRoses, EndTurn, TakeCard, PassCard, StartHunt]
