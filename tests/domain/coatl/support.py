"""Builders for Cóatl tests: colour strings, pieces, coatls, and started games to rig.

Colours are written as letters (Y yellow, R red, K black, G green, B blue);
pieces as `hY` (head), `tR` (tail), `bK` (body). `started` plays the
opening through the real decider; `rig` then sets a seat's board, coatls,
hand or temples so a rule can be tested on exactly the position it needs.
"""

from __future__ import annotations

from typing import Any

import pytest

from msgspec.structs import replace

from domain.coatl import components as C
from domain.coatl.commands import KeepProphecies, Piece
from domain.coatl.evolve import evolve
from domain.coatl.flow import CoatlOptions, setup
from domain.coatl.game import GAME
from domain.coatl.state import Coatl, CoatlState
from domain.kernel import Rng, RuleViolation

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


def fold(events: list[Any], state: CoatlState | None = None) -> CoatlState:
    for event in events:
        state = evolve(state, event)
    assert state is not None
    return state


def started(seats: int = 2, seed: bytes = b"given", **options: Any) -> CoatlState:
    """A game in play: set up with `seed`, every seat having kept no card."""
    state = fold(setup(CoatlOptions(**options), seats, Rng(seed, 0)))
    for seat in range(seats):
        state = fold(GAME.decide(state, seat, KeepProphecies(cards=()), Rng(seed, seat + 1)), state)
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


def play(state: CoatlState, seat: int, command: Any, seed: bytes = b"play") -> tuple[list[Any], CoatlState]:
    """When `seat` issues `command`: the events and the state after them."""
    events = GAME.decide(state, seat, command, Rng(seed, 0))
    return events, fold(events, state)


def refused(state: CoatlState, seat: int, command: Any, code: str) -> None:
    """Then `decide` refuses `command` with `code`, and `legal` does not offer it."""
    with pytest.raises(RuleViolation) as exc:
        GAME.decide(state, seat, command, Rng(b"refused", 0))
    assert exc.value.code == code, exc.value
    assert command not in GAME.legal(state, seat)
