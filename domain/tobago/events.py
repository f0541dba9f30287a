"""Tobago's events: facts, past tense. Fields that are secret while the game
runs (deck orders, drawn cards, hands) are Optional so `redact` can blank them."""

from __future__ import annotations

from typing import Optional, Union

import msgspec

from domain.tobago.components import AmuletPower
from domain.tobago.island import Landmarks
from domain.tobago.options import TobagoOptions


class _Ev(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class IslandBuilt(_Ev, tag="tobago.IslandBuilt"):
    options: TobagoOptions
    seats: int
    first: int
    hexes: list[tuple[int, int, str]]
    landmarks: Landmarks
    facing: list[int]


class DecksShuffled(_Ev, tag="tobago.DecksShuffled"):
    clue_deck: Optional[list[str]]
    treasure_deck: Optional[list[int]]


class AtvPlaced(_Ev, tag="tobago.AtvPlaced"):
    seat: int
    hex: int


class CluePlayed(_Ev, tag="tobago.CluePlayed"):
    """A clue joined `map` with one rose of `seat`; `hunt` = it starts a new hunt after a share."""

    seat: int
    map: int
    card: str
    hunt: bool = False
    from_deck: bool = False
    main_action: bool = False


class CluesDrawn(_Ev, tag="tobago.CluesDrawn"):
    seat: int
    count: int
    cards: Optional[list[str]]


class ClueDeckReshuffled(_Ev, tag="tobago.ClueDeckReshuffled"):
    count: int
    order: Optional[list[str]]


class HandExchanged(_Ev, tag="tobago.HandExchanged"):
    seat: int
    count: int
    cards: Optional[list[str]]
    main_action: bool


class AmuletSpent(_Ev, tag="tobago.AmuletSpent"):
    seat: int
    power: AmuletPower


class Drove(_Ev, tag="tobago.Drove"):
    seat: int
    hex: int
    steps: int
    amulet: bool = False


class AmuletCollected(_Ev, tag="tobago.AmuletCollected"):
    seat: int
    hex: int


class CandidateRemoved(_Ev, tag="tobago.CandidateRemoved"):
    seat: int
    map: int
    hex: int


class RoseDoubled(_Ev, tag="tobago.RoseDoubled"):
    seat: int
    map: int
    slot: int


class RosesSwapped(_Ev, tag="tobago.RosesSwapped"):
    seat: int
    map: int
    a: int
    b: int


class TreasureCollected(_Ev, tag="tobago.TreasureCollected"):
    seat: int
    map: int
    hex: int
    finder_rose: bool


class TreasureDeckReshuffled(_Ev, tag="tobago.TreasureDeckReshuffled"):
    """The discard pile (or, after a returning curse, the deck plus the curse) became the new deck."""

    count: int
    order: Optional[list[int]]
    from_discard: bool


class TreasuresDrawn(_Ev, tag="tobago.TreasuresDrawn"):
    """`seat` drew `count` cards for a share; `extra` = the finder's face-down card nobody looks at."""

    seat: int
    count: int
    cards: Optional[list[int]]
    extra: bool = False


class ShareShuffled(_Ev, tag="tobago.ShareShuffled"):
    count: int
    pile: Optional[list[int]]


class CardRevealed(_Ev, tag="tobago.CardRevealed"):
    card: int


class CardTaken(_Ev, tag="tobago.CardTaken"):
    seat: int


class CardPassed(_Ev, tag="tobago.CardPassed"):
    seat: int


class CurseStruck(_Ev, tag="tobago.CurseStruck"):
    """Penalties of a revealed curse: amulet losers, treasure losers (values known to the loser only)."""

    amulet_losers: list[int]
    treasure_losers: list[int]
    lost_values: list[Optional[int]]
    leaving: list[int]
    stops: bool
    returns: bool = False


class ShareEnded(_Ev, tag="tobago.ShareEnded"):
    """The share is over: `discarded` leftover cards (a curse among them without effect) go to the
    discard pile; `hunter` starts the new hunt (the last taker, or the finder when nobody took a card)."""

    discarded: int
    hunter: int


class AmuletsAppeared(_Ev, tag="tobago.AmuletsAppeared"):
    hexes: list[int]
    facing: list[int]


class HuntSkipped(_Ev, tag="tobago.HuntSkipped"):
    seat: int
    map: int


class TurnEnded(_Ev, tag="tobago.TurnEnded"):
    seat: int
    next: int


class GameFinished(_Ev, tag="tobago.GameFinished"):
    """The treasure deck ran out and the last share is over."""


TobagoEvent = Union[IslandBuilt, DecksShuffled, AtvPlaced, CluePlayed, CluesDrawn, ClueDeckReshuffled,
                    HandExchanged, AmuletSpent, Drove, AmuletCollected, CandidateRemoved, RoseDoubled,
                    RosesSwapped, TreasureCollected, TreasureDeckReshuffled, TreasuresDrawn, ShareShuffled,
                    CardRevealed, CardTaken, CardPassed, CurseStruck, ShareEnded, AmuletsAppeared,
                    HuntSkipped, TurnEnded, GameFinished]
