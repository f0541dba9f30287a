"""Cóatl state: frozen structs, small pure queries, and the invariants.

Everything secret lives in `CoatlState.hidden` (hands, opening deals,
personal temples, deck and discard order, the temple piles below their tops
and the colours left in the bags); the rest is public. A coatl's pieces are
stored head to tail; a player's board is a sorted tuple of pieces.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal, Optional

import msgspec

from domain.coatl import components as C
from domain.coatl.commands import Piece
from domain.coatl.events import Action, Disc, LastTurn, Token


class Coatl(msgspec.Struct, frozen=True):
    pieces: tuple[Piece, ...]
    cards: tuple[int, ...] = ()
    temple: Optional[int] = None
    status: Literal["open", "completing", "closed"] = "open"


class Player(msgspec.Struct, frozen=True):
    board: tuple[Piece, ...] = ()
    coatls: tuple[Coatl, ...] = ()
    tokens: tuple[Token, ...] = ()
    decided: bool = False


class Bags(msgspec.Struct, frozen=True):
    """Pieces left in each bag, counted per colour in `components.COLORS` order."""

    head: tuple[int, ...]
    tail: tuple[int, ...]
    body: tuple[int, ...]


class Hidden(msgspec.Struct, frozen=True):
    hands: tuple[tuple[int, ...], ...]
    temples: tuple[tuple[int, ...], ...]
    dealt: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    bags: Bags


class Turn(msgspec.Struct, frozen=True):
    seat: int
    actions_left: int
    current: Optional[Action] = None
    pending: Optional[int] = None  # a just completed coatl awaiting its cards and temple


class CoatlState(msgspec.Struct, frozen=True):
    seats: int
    first_player: int
    sacrifice_tokens: bool
    disc: Disc
    row: tuple[int, ...]
    players: tuple[Player, ...]
    hidden: Hidden
    phase: Literal["opening", "play", "over"] = "opening"
    turn: Optional[Turn] = None
    end_condition: Optional[str] = None
    last_turns: Optional[tuple[LastTurn, ...]] = None
    scores: Optional[tuple[int, ...]] = None
    passes: int = 0  # turns in a row ended without an action (forced passes)


def colors(coatl: Coatl) -> tuple[str, ...]:
    return tuple(p.color for p in coatl.pieces)


def card_types(cards: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(C.CARD_TYPE[c] for c in cards)


def is_complete(pieces: tuple[Piece, ...]) -> bool:
    kinds = [p.kind for p in pieces]
    return len(kinds) >= 3 and kinds[0] == "head" and kinds[-1] == "tail"


def incomplete(player: Player) -> list[int]:
    return [i for i, c in enumerate(player.coatls) if c.status == "open"]


def completed(player: Player) -> int:
    return sum(1 for c in player.coatls if c.status != "open")


def free_slots(player: Player) -> int:
    return C.BOARD_SLOTS - len(player.board)


def order_of(state: CoatlState, seat: int) -> int:
    """Position of `seat` in turn order, the first player being 0."""
    return (seat - state.first_player) % state.seats


def disc_pieces(disc: Disc) -> list[Piece]:
    return ([Piece("head", c) for c in disc.heads if c] + [Piece("tail", c) for c in disc.tails if c]
            + [Piece("body", c) for slot in disc.bodies for c in slot])


def bag_pieces(bags: Bags) -> Counter[Piece]:
    out: Counter[Piece] = Counter()
    for kind in C.KINDS:
        for color, n in zip(C.COLORS, getattr(bags, kind)):
            if n:
                out[Piece(kind, color)] = n  # type: ignore[arg-type]
    return out


def body_supply_empty(state: CoatlState) -> bool:
    """End condition B: no body segment on the disc nor in the bag."""
    return not any(state.disc.bodies) and sum(state.hidden.bags.body) == 0


def can_take_prophecy(state: CoatlState, seat: int) -> bool:
    """Whether `seat`'s hand has room and a prophecy card is left to take (row, deck or discards)."""
    h = state.hidden
    return len(h.hands[seat]) < C.HAND_LIMIT and bool(state.row or h.deck or h.discard)


def invariants(state: CoatlState) -> None:
    """Raise AssertionError when components are lost or duplicated or a limit is broken."""
    pieces: Counter[Piece] = Counter(disc_pieces(state.disc)) + bag_pieces(state.hidden.bags)
    for player in state.players:
        pieces.update(player.board)
        assert len(player.board) <= C.BOARD_SLOTS, "board over capacity"
        assert list(player.board) == sorted(player.board), "board not sorted"
        assert len(incomplete(player)) <= C.MAX_INCOMPLETE, "too many incomplete coatls"
        assert completed(player) <= C.MAX_COMPLETED, "too many completed coatls"
        for coatl in player.coatls:
            pieces.update(coatl.pieces)
            kinds = [p.kind for p in coatl.pieces]
            assert "head" not in kinds[1:] and "tail" not in kinds[:-1], "head or tail inside a coatl"
            assert (coatl.status != "open") == is_complete(coatl.pieces), "completion status wrong"
            assert len(coatl.cards) <= C.MAX_PROPHECIES_PER_COATL, "too many prophecies"
            types = card_types(coatl.cards)
            assert len(set(types)) == len(types), "identical prophecies on a coatl"
            assert coatl.status != "closed" or coatl.cards, "closed coatl without prophecy"
    for kind in C.KINDS:
        for color in C.COLORS:
            n = pieces[Piece(kind, color)]  # type: ignore[arg-type]
            assert n == C.PIECES_PER_COLOR[kind], f"{n} {color} {kind} pieces instead of {C.PIECES_PER_COLOR[kind]}"
    h = state.hidden
    cards = list(h.deck) + list(h.discard) + list(state.row)
    for seat, player in enumerate(state.players):
        cards += list(h.hands[seat]) + [c for coatl in player.coatls for c in coatl.cards]
        if state.phase != "opening":
            assert len(h.hands[seat]) <= C.HAND_LIMIT, "hand over the limit"
        else:
            assert set(h.hands[seat]) <= set(h.dealt[seat]), "kept cards were not dealt"
            cards += [c for c in h.dealt[seat] if c not in h.hands[seat]]
    assert sorted(cards) == sorted(set(cards)), "a prophecy card is duplicated"
    temples = [t for pile in h.piles for t in pile] + [t for ts in h.temples for t in ts]
    temples += [c.temple for p in state.players for c in p.coatls if c.temple is not None]
    assert len(temples) == len(set(temples)), "a temple card is duplicated"
    assert len(cards) == (60 if len(temples) == 20 else 54), "prophecy cards lost"
    assert len(temples) in (15, 20), "temple cards lost"
