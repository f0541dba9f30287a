"""What each seat may see of Cóatl: `view(state, seat)` and `redact(event, seat)`.

A seat sees its own hand, opening deal and personal temples; of the others
only hand sizes and temple counts. Nobody sees the deck order, the temple
piles below their tops, the discards or the colours left in the bags (only
how many pieces each bag holds). Boards, coatls with their cards (faces stay
public once closed), the row, the disc and the pile tops are public. Every
face-up card is shown with its printed data: a prophecy card with its
pattern and points, a temple card with its requirements and points. Each
coatl carries its current value, as if it were finished now.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

import msgspec
from msgspec.structs import asdict, replace

from domain.coatl import components as C
from domain.coatl.commands import Piece
from domain.coatl.components import Kind, ProphecyFace, TempleFace
from domain.coatl.events import (DeckReshuffled, Disc, GameSetUp, LastTurn, OpeningHandKept, PriestsDutyUsed,
                                 ProphecyDiscarded, ProphecyTaken, Token)
from domain.coatl.rules import to_act
from domain.coatl.scoring import coatl_value, seat_scores
from domain.coatl.state import Coatl, CoatlState, Turn, completed
from domain.kernel import View


class ProphecyCard(ProphecyFace, frozen=True, kw_only=True):
    """A face-up prophecy card: its id (as commands name it) and its printed face."""

    id: int


class TempleCard(TempleFace, frozen=True, kw_only=True):
    """A face-up temple card: its id (its type, as commands name it) and its printed face."""

    id: int


def _prophecy(card: int) -> ProphecyCard:
    face = {k: v for k, v in asdict(C.PROPHECIES[C.CARD_TYPE[card]]).items() if k != "copies"}
    return ProphecyCard(id=card, **face)


def _temple(temple: int) -> TempleCard:
    return TempleCard(id=temple, **asdict(C.TEMPLES[temple]))


PROPHECY_CARDS: tuple[ProphecyCard, ...] = tuple(_prophecy(card) for card in range(len(C.CARD_TYPE)))
TEMPLE_CARDS: dict[int, TempleCard] = {t: _temple(t) for t in C.TEMPLES}


def _cards(cards: tuple[int, ...]) -> tuple[ProphecyCard, ...]:
    return tuple(PROPHECY_CARDS[c] for c in cards)


def _temples(temples: tuple[int, ...]) -> tuple[TempleCard, ...]:
    return tuple(TEMPLE_CARDS[t] for t in temples)


class BuiltCoatl(msgspec.Struct, frozen=True, kw_only=True):
    """A coatl head to tail, the cards beside it, and its value if it were finished now."""

    pieces: tuple[Piece, ...]
    cards: tuple[ProphecyCard, ...]
    temple: Optional[TempleCard]
    status: Literal["open", "completing", "closed"]
    value: int


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    """One player as the viewer may see them; `hand`, `temples` and `dealt` only in their own view."""

    seat: int
    board: tuple[Piece, ...]
    coatls: tuple[BuiltCoatl, ...]
    tokens: tuple[Token, ...]
    hand_size: Optional[int]  # null: another seat's opening hand once it chose (how many it kept is secret)
    temple_count: int
    decided: bool
    completed: int
    score: int
    hand: Optional[tuple[ProphecyCard, ...]] = None
    temples: Optional[tuple[TempleCard, ...]] = None
    dealt: Optional[tuple[ProphecyCard, ...]] = None  # own opening deal, until the hands are settled


class CoatlView(View, frozen=True, kw_only=True, tag="coatl"):
    """The table as one seat (or a spectator) sees it."""

    first_player: int
    sacrifice_tokens: bool
    turn: Optional[Turn]
    disc: Disc
    bag_sizes: dict[Kind, int]
    row: tuple[ProphecyCard, ...]
    deck_size: int
    discard_size: int
    pile_tops: tuple[Optional[TempleCard], ...]
    pile_sizes: tuple[int, ...]
    players: tuple[PlayerView, ...]
    end_condition: Optional[str]
    last_turns: Optional[tuple[LastTurn, ...]]


def _built(coatl: Coatl) -> BuiltCoatl:
    temple = TEMPLE_CARDS[coatl.temple] if coatl.temple is not None else None
    return BuiltCoatl(pieces=coatl.pieces, cards=_cards(coatl.cards), temple=temple, status=coatl.status,
                      value=coatl_value(coatl))


def _hand_size(state: CoatlState, s: int, seat: Optional[int]) -> Optional[int]:
    """How many prophecy cards seat `s` holds as `seat` may know it. In the opening a seat holds its
    deal (3 to 6 cards) until it chooses, then the at most 3 it kept: its own view says how many,
    the others' say null (the choice is secret until every seat has chosen)."""
    h = state.hidden
    if state.phase != "opening" or (s == seat and state.players[s].decided):
        return len(h.hands[s])
    return None if state.players[s].decided else len(h.dealt[s])


def view(state: CoatlState, seat: Optional[int]) -> CoatlView:
    """Everything `seat` (None = spectator) may see now."""
    h = state.hidden
    scores = seat_scores(state)
    opening = state.phase == "opening"
    players = tuple(PlayerView(
        seat=s, board=p.board, tokens=p.tokens, decided=p.decided, completed=completed(p), score=scores[s],
        coatls=tuple(_built(c) for c in p.coatls), hand_size=_hand_size(state, s, seat),
        temple_count=len(h.temples[s]), hand=_cards(h.hands[s]) if s == seat else None,
        temples=_temples(h.temples[s]) if s == seat else None,
        dealt=_cards(h.dealt[s]) if s == seat and opening else None) for s, p in enumerate(state.players))
    bags = h.bags
    return CoatlView(
        seat=seat, phase=state.phase, to_act=sorted(to_act(state)), scores=list(scores),
        first_player=state.first_player, sacrifice_tokens=state.sacrifice_tokens, turn=state.turn, disc=state.disc,
        row=_cards(state.row), deck_size=len(h.deck), discard_size=len(h.discard),
        bag_sizes={"head": sum(bags.head), "tail": sum(bags.tail), "body": sum(bags.body)},
        pile_tops=tuple(TEMPLE_CARDS[pile[0]] if pile else None for pile in h.piles),
        pile_sizes=tuple(len(p) for p in h.piles), players=players, end_condition=state.end_condition,
        last_turns=state.last_turns)


def redact(event: Any, seat: Optional[int]) -> Any:
    """`event` as `seat` may see it: others' hands and temples, deck orders and piles become None."""
    match event:
        case GameSetUp():
            return replace(event, deck=None, piles=None,
                           dealt=tuple(d if s == seat else None for s, d in enumerate(event.dealt)),
                           temples=tuple(t if s == seat else None for s, t in enumerate(event.temples)))
        case OpeningHandKept() if event.seat != seat:
            return replace(event, kept=None, discarded=None)
        case ProphecyTaken(source="deck") if event.seat != seat:
            return replace(event, card=None)
        case DeckReshuffled():
            return replace(event, deck=None)
        case ProphecyDiscarded() | PriestsDutyUsed() if event.seat != seat:
            return replace(event, **{"card" if isinstance(event, ProphecyDiscarded) else "temple": None})
    return event
