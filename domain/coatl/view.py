"""What each seat may see of Cóatl: `view(state, seat)` and `redact(event, seat)`.

A seat sees its own hand, opening deal and personal temples; of the others
only hand sizes and temple counts. Nobody sees the deck order, the temple
piles below their tops, the discards or the colours left in the bags (only
how many pieces each bag holds). Boards, coatls with their cards (faces stay
public once closed), the row, the disc and the pile tops are public. Each
coatl carries its current value, as if it were finished now.
"""

from __future__ import annotations

from typing import Any, Optional

import msgspec
from msgspec.structs import replace

from domain.coatl.commands import Piece
from domain.coatl.events import (DeckReshuffled, Disc, GameSetUp, LastTurn, OpeningHandKept, PriestsDutyUsed,
                                 ProphecyDiscarded, ProphecyTaken)
from domain.coatl.flow import coatl_value, seat_scores
from domain.coatl.state import CoatlState, Turn, completed


class CoatlView(msgspec.Struct, frozen=True):
    pieces: tuple[Piece, ...]
    cards: tuple[int, ...]
    temple: Optional[int]
    status: str
    value: int


class PlayerView(msgspec.Struct, frozen=True):
    seat: int
    board: tuple[Piece, ...]
    coatls: tuple[CoatlView, ...]
    tokens: tuple[str, ...]
    hand_size: int
    temple_count: int
    decided: bool
    completed: int
    score: int
    hand: Optional[tuple[int, ...]] = None      # only in the seat's own view
    temples: Optional[tuple[int, ...]] = None   # only in the seat's own view
    dealt: Optional[tuple[int, ...]] = None     # own opening deal, until the hands are settled


class GameView(msgspec.Struct, frozen=True):
    seat: Optional[int]
    phase: str
    first_player: int
    sacrifice_tokens: bool
    turn: Optional[Turn]
    disc: Disc
    bag_sizes: dict[str, int]
    row: tuple[int, ...]
    deck_size: int
    discard_size: int
    pile_tops: tuple[Optional[int], ...]
    pile_sizes: tuple[int, ...]
    players: tuple[PlayerView, ...]
    end_condition: Optional[str]
    last_turns: Optional[tuple[LastTurn, ...]]


def view(state: CoatlState, seat: Optional[int]) -> GameView:
    """Everything `seat` (None = spectator) may see now."""
    h = state.hidden
    scores = seat_scores(state)
    players = []
    for s, p in enumerate(state.players):
        own = s == seat
        opening = state.phase == "opening"
        players.append(PlayerView(
            seat=s, board=p.board, tokens=p.tokens, decided=p.decided, completed=completed(p), score=scores[s],
            coatls=tuple(CoatlView(c.pieces, c.cards, c.temple, c.status, coatl_value(c)) for c in p.coatls),
            hand_size=len(h.dealt[s]) if opening else len(h.hands[s]), temple_count=len(h.temples[s]),
            hand=h.hands[s] if own else None, temples=h.temples[s] if own else None,
            dealt=h.dealt[s] if own and opening else None))
    bags = h.bags
    return GameView(
        seat=seat, phase=state.phase, first_player=state.first_player, sacrifice_tokens=state.sacrifice_tokens,
        turn=state.turn, disc=state.disc, row=state.row, deck_size=len(h.deck), discard_size=len(h.discard),
        bag_sizes={"head": sum(bags.head), "tail": sum(bags.tail), "body": sum(bags.body)},
        pile_tops=tuple(pile[0] if pile else None for pile in h.piles), pile_sizes=tuple(len(p) for p in h.piles),
        players=tuple(players), end_condition=state.end_condition, last_turns=state.last_turns)


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
