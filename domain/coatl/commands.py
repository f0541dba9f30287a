"""Cóatl commands: imperative, frozen, tagged `coatl.<Name>`; the caller's seat is never a field.

A turn is a sequence of these atomic commands. Single-step actions (taking
pieces, Perfect Choice, Priest's Duty) end the turn by themselves when no
action is left; choosing prophecy cards, Foretelling and building go on until
`EndTurn`. Pieces are named by kind and colour (pieces of one kind and colour
are interchangeable), prophecy cards by card id, temples by type.
"""

from __future__ import annotations

from typing import Literal, Optional, Union

import msgspec

from domain.coatl.components import Color, Kind


class Piece(msgspec.Struct, frozen=True, order=True):
    """One coatl piece: a head, a tail or a body segment of one colour."""

    kind: Kind
    color: Color


class _Command(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


class KeepProphecies(_Command, tag="coatl.KeepProphecies"):
    """Opening hand: keep these (at most 3) of the dealt cards, in any order, discard the rest."""

    cards: tuple[int, ...] = ()


class TakePieces(_Command, tag="coatl.TakePieces"):
    """Take the whole content of one disc slot onto the board."""

    slot: Kind
    index: int


class TakeProphecy(_Command, tag="coatl.TakeProphecy"):
    """Take a prophecy card: `card` from the row, or the top of the deck when `card` is None."""

    card: Optional[int] = None


class StartCoatl(_Command, tag="coatl.StartCoatl"):
    """Start a new coatl with a piece from the board."""

    piece: Piece


class AddPiece(_Command, tag="coatl.AddPiece"):
    """Add a piece from the board at the head end or the tail end of an incomplete coatl."""

    coatl: int
    piece: Piece
    end: Literal["head", "tail"]


class PlayProphecy(_Command, tag="coatl.PlayProphecy"):
    """Play a prophecy card from the hand beside an incomplete (or just completed) coatl."""

    card: int
    coatl: int


class PlayTemple(_Command, tag="coatl.PlayTemple"):
    """Add a temple card (own, or the top of a shared pile) to the just completed coatl; closes it."""

    temple: int


class CloseCoatl(_Command, tag="coatl.CloseCoatl"):
    """Close the just completed coatl without a temple card."""


class PerfectChoice(_Command, tag="coatl.PerfectChoice"):
    """Sacrifice token: take 1 head, 1 tail or 2 body segments of the named colours from the bag.

    `colors` is a multiset: ["blue", "green"] and ["green", "blue"] are the same choice (`legal`
    lists each choice once, in the data file's colour order)."""

    kind: Kind
    colors: tuple[Color, ...]


class Foretell(_Command, tag="coatl.Foretell"):
    """Sacrifice token: replace the row, then discard from the hand and choose prophecy cards."""


class DiscardProphecy(_Command, tag="coatl.DiscardProphecy"):
    """During Foretelling, before taking cards: discard a card from the hand."""

    card: int


class PriestsDuty(_Command, tag="coatl.PriestsDuty"):
    """Sacrifice token: take the top temple card of a shared pile as a personal temple."""

    pile: int


class EndTurn(_Command, tag="coatl.EndTurn"):
    """End the turn (closing a just completed coatl that has its prophecy cards)."""


CoatlCommand = Union[KeepProphecies, TakePieces, TakeProphecy, StartCoatl, AddPiece, PlayProphecy, PlayTemple,
                     CloseCoatl, PerfectChoice, Foretell, DiscardProphecy, PriestsDuty, EndTurn]
