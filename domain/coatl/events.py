"""Cóatl events: facts in the past tense, frozen, tagged `coatl.<Name>`.

Every random outcome (shuffles, bag draws, the first player) is written here,
so `evolve` never draws. Fields that may be hidden from a reader are
Optional: `view.redact` replaces them with None for seats that may not see them.
"""

from __future__ import annotations

from typing import Literal, Optional, Union

import msgspec

from domain.coatl.commands import Piece
from domain.coatl.components import Color, Kind

Action = Literal["take", "choose", "build", "perfect_choice", "foretell", "priests_duty"]
Token = Literal["perfect_choice", "foretell", "priests_duty"]


class Disc(msgspec.Struct, frozen=True):
    """The supply disc: head and tail slots hold one colour or None, body slots 2 colours or ()."""

    heads: tuple[Optional[Color], ...]
    tails: tuple[Optional[Color], ...]
    bodies: tuple[tuple[Color, ...], ...]


class LastTurn(msgspec.Struct, frozen=True):
    seat: int
    actions: int


class _Event(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class GameSetUp(_Event, tag="coatl.GameSetUp"):
    seats: int
    first_player: int
    sacrifice_tokens: bool
    disc: Disc
    row: tuple[int, ...]
    pile_tops: tuple[Optional[int], ...]
    dealt: tuple[Optional[tuple[int, ...]], ...]       # secret per seat
    temples: tuple[Optional[tuple[int, ...]], ...]     # secret per seat
    deck: Optional[tuple[int, ...]] = None             # secret: order of the prophecy deck
    piles: Optional[tuple[tuple[int, ...], ...]] = None  # secret below the tops; index 0 is the top


class OpeningHandKept(_Event, tag="coatl.OpeningHandKept"):
    seat: int
    kept: Optional[tuple[int, ...]] = None
    discarded: Optional[tuple[int, ...]] = None


class OpeningHandsSettled(_Event, tag="coatl.OpeningHandsSettled"):
    hand_sizes: tuple[int, ...]


class TurnStarted(_Event, tag="coatl.TurnStarted"):
    seat: int
    actions: int


class ActionBegun(_Event, tag="coatl.ActionBegun"):
    seat: int
    action: Action


class PiecesTaken(_Event, tag="coatl.PiecesTaken"):
    seat: int
    slot: Kind
    index: int
    pieces: tuple[Piece, ...]


class DiscRefilled(_Event, tag="coatl.DiscRefilled"):
    disc: Disc


class PerfectChoiceUsed(_Event, tag="coatl.PerfectChoiceUsed"):
    seat: int
    pieces: tuple[Piece, ...]


class ProphecyTaken(_Event, tag="coatl.ProphecyTaken"):
    seat: int
    source: Literal["row", "deck"]
    card: Optional[int] = None


class DeckReshuffled(_Event, tag="coatl.DeckReshuffled"):
    size: int
    deck: Optional[tuple[int, ...]] = None


class RowRefilled(_Event, tag="coatl.RowRefilled"):
    cards: tuple[int, ...]


class ForetellingUsed(_Event, tag="coatl.ForetellingUsed"):
    seat: int
    discarded_row: tuple[int, ...]


class ProphecyDiscarded(_Event, tag="coatl.ProphecyDiscarded"):
    seat: int
    card: Optional[int] = None


class PriestsDutyUsed(_Event, tag="coatl.PriestsDutyUsed"):
    seat: int
    pile: int
    new_top: Optional[int]
    temple: Optional[int] = None


class CoatlStarted(_Event, tag="coatl.CoatlStarted"):
    seat: int
    piece: Piece


class PieceAdded(_Event, tag="coatl.PieceAdded"):
    seat: int
    coatl: int
    piece: Piece
    end: Literal["head", "tail"]


class CoatlCompleted(_Event, tag="coatl.CoatlCompleted"):
    seat: int
    coatl: int


class ProphecyPlayed(_Event, tag="coatl.ProphecyPlayed"):
    seat: int
    coatl: int
    card: int


class TemplePlayed(_Event, tag="coatl.TemplePlayed"):
    seat: int
    coatl: int
    temple: int
    pile: Optional[int]
    new_top: Optional[int] = None


class CoatlClosed(_Event, tag="coatl.CoatlClosed"):
    seat: int
    coatl: int


class TurnEnded(_Event, tag="coatl.TurnEnded"):
    seat: int


class EndTriggered(_Event, tag="coatl.EndTriggered"):
    condition: Literal["third_coatl", "no_body_segments", "stalled"]
    seat: int
    last_turns: tuple[LastTurn, ...]


class GameFinished(_Event, tag="coatl.GameFinished"):
    scores: tuple[int, ...]


CoatlEvent = Union[GameSetUp, OpeningHandKept, OpeningHandsSettled, TurnStarted, ActionBegun, PiecesTaken,
                   DiscRefilled, PerfectChoiceUsed, ProphecyTaken, DeckReshuffled, RowRefilled, ForetellingUsed,
                   ProphecyDiscarded, PriestsDutyUsed, CoatlStarted, PieceAdded, CoatlCompleted, ProphecyPlayed,
                   TemplePlayed, CoatlClosed, TurnEnded, EndTriggered, GameFinished]
