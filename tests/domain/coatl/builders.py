"""Position builders for Cóatl tests: colour strings, pieces, coatls, and games in play to rig.

Colours are written as letters (Y yellow, R red, K black, G green, B blue);
pieces as `hY` (head), `tR` (tail), `bK` (body). `in_play` plays the opening
through the real decider (the shared `tests.support.rules`); `rig` then sets a
seat's board, coatls, hand or temples so a rule can be tested on exactly the
position it needs.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.coatl import components as C
from domain.coatl.commands import KeepProphecies, Piece
from domain.coatl.game import GAME
from domain.coatl.options import CoatlOptions
from domain.coatl.state import Coatl, CoatlState
from tests.support.rules import started, when

LETTER = {"Y": "yellow", "R": "red", "K": "black", "G": "green", "B": "blue"}
KIND = {"h": "head", "t": "tail", "b": "body"}


def seq(letters: str) -> list[str]:
    """'BBY' -> ['blue', 'blue', 'yellow'] (spaces ignored)."""
    return [LETTER[c] for c in letters.replace(" ", "")]


def piece(code: str) -> Piece:
    return Piece(KIND[code[0]], LETTER[code[1]])  # type: ignore[arg-type]


def pieces(codes: str) -> tuple[Piece, ...]:
    return tuple(piece(c) for c in codes.split())


def coatl(codes: str, cards: tuple[int, ...] = (), status: str = "open", temple: int | None = None) -> Coatl:
    return Coatl(pieces=pieces(codes), cards=cards, status=status, temple=temple)  # type: ignore[arg-type]


def card(prophecy_type: int, copy: int = 0) -> int:
    """The id of the `copy`-th card of a prophecy type."""
    return [i for i, t in enumerate(C.CARD_TYPE) if t == prophecy_type][copy]


def in_play(seats: int = 2, seed: bytes = b"given", **options: Any) -> CoatlState:
    """A game in play: set up with `seed`, every seat having kept no card."""
    state = started(GAME, CoatlOptions(**options), seats, seed)
    for seat in range(seats):
        state, _ = when(GAME, state, seat, KeepProphecies(cards=()))
    return state


def rig(state: CoatlState, seat: int, board: str | None = None, coatls: tuple[Coatl, ...] | None = None,
        hand: tuple[int, ...] | None = None, temples: tuple[int, ...] | None = None, **player: Any) -> CoatlState:
    """`state` with parts of `seat` replaced (board as piece codes)."""
    players = list(state.players)
    changes = dict(player)
    if board is not None:
        changes["board"] = tuple(sorted(pieces(board)))
    if coatls is not None:
        changes["coatls"] = coatls
    players[seat] = replace(players[seat], **changes)
    hidden = state.hidden
    for field, value in (("hands", hand), ("temples", temples)):
        if value is not None:
            values = list(getattr(hidden, field))
            values[seat] = value
            hidden = replace(hidden, **{field: tuple(values)})
    return replace(state, players=tuple(players), hidden=hidden)
