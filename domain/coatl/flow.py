"""Cóatl flow: setup, bag draws, disc and row refills, the end of a turn and of the game.

Decisions are written as a `Script`: events are appended and folded at once,
so later steps of one decision (a reshuffle after the row was discarded, the
end-game check after the last piece was taken) see the state they follow.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

import msgspec

from domain.coatl import components as C
from domain.coatl.commands import Piece
from domain.coatl.evolve import evolve
from domain.coatl.events import (DeckReshuffled, Disc, EndTriggered, GameFinished, GameSetUp, LastTurn, RowRefilled,
                                 TurnEnded, TurnStarted, CoatlClosed, DiscRefilled)
from domain.coatl.scoring import coatl_points
from domain.coatl.state import Bags, CoatlState, body_supply_empty, card_types, colors, completed, order_of
from domain.kernel import Rng, RuleViolation


class CoatlOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    sacrifice_tokens: Annotated[bool, msgspec.Meta(
        description="Each player gets the three sacrifice tokens (Perfect Choice, Foretelling, Priest's Duty); "
                    "the rulebook advises leaving them out of a first game.")] = True
    promo_cards: Annotated[bool, msgspec.Meta(
        description="Add the 6 promo prophecy cards and 5 promo temple cards.")] = False
    random_first_player: Annotated[bool, msgspec.Meta(
        description="Choose the first player at random instead of seat 0.")] = False


class Script:
    """Events of one decision, folded as they are written."""

    def __init__(self, state: CoatlState) -> None:
        self.state = state
        self.events: list[Any] = []

    def emit(self, *events: Any) -> None:
        for event in events:
            self.events.append(event)
            self.state = evolve(self.state, event)


def _draw(counts: list[int], rng: Rng) -> str:
    """One piece drawn uniformly from a bag of per-colour `counts` (mutated)."""
    k = rng.below(sum(counts))
    for i, n in enumerate(counts):
        if k < n:
            counts[i] -= 1
            return C.COLORS[i]
        k -= n
    raise AssertionError("unreachable")


def refilled_disc(disc: Disc, bags: Bags, rng: Rng) -> Disc:
    """`disc` with every empty slot filled from the bags as far as they go (body slots only with 2)."""
    heads, tails, body = list(bags.head), list(bags.tail), list(bags.body)
    new_heads = tuple(c if c is not None or not sum(heads) else _draw(heads, rng) for c in disc.heads)
    new_tails = tuple(c if c is not None or not sum(tails) else _draw(tails, rng) for c in disc.tails)
    slots = []
    for slot in disc.bodies:
        if not slot and sum(body) >= C.BODY_PER_SLOT:
            slot = tuple(_draw(body, rng) for _ in range(C.BODY_PER_SLOT))
        slots.append(slot)
    return Disc(heads=new_heads, tails=new_tails, bodies=tuple(slots))  # type: ignore[arg-type]


def refill_disc(script: Script, rng: Rng) -> None:
    state = script.state
    disc = refilled_disc(state.disc, state.hidden.bags, rng)
    if disc != state.disc:
        script.emit(DiscRefilled(disc=disc))


def needs_refill(disc: Disc) -> bool:
    """The disc is refilled when it has no body segment, or neither head nor tail."""
    return not any(disc.bodies) or (not any(disc.heads) and not any(disc.tails))


def reshuffle_if_empty(script: Script, rng: Rng) -> bool:
    """Reshuffle the discards into an empty deck; False when there is nothing to draw at all."""
    hidden = script.state.hidden
    if hidden.deck:
        return True
    if not hidden.discard:
        return False
    deck = tuple(rng.shuffle(hidden.discard))
    script.emit(DeckReshuffled(size=len(deck), deck=deck))
    return True


def refill_row(script: Script, rng: Rng) -> None:
    while len(script.state.row) < C.ROW_SIZE and reshuffle_if_empty(script, rng):
        need = C.ROW_SIZE - len(script.state.row)
        script.emit(RowRefilled(cards=script.state.hidden.deck[:need]))


def setup(options: CoatlOptions, seats: int, rng: Rng) -> list[Any]:
    """The opening: disc filled, temples dealt and piled, prophecy row and opening hands dealt."""
    if not 2 <= seats <= 4:
        raise RuleViolation("coatl.bad_options", f"Cóatl is for 2-4 players, not {seats}")
    first = rng.below(seats) if options.random_first_player else 0
    full = tuple(C.PIECES_PER_COLOR["head"] for _ in C.COLORS)
    bags = Bags(head=full, tail=full, body=tuple(C.PIECES_PER_COLOR["body"] for _ in C.COLORS))
    empty = Disc(heads=(None,) * C.HEAD_SLOTS, tails=(None,) * C.TAIL_SLOTS, bodies=((),) * C.BODY_SLOTS)
    disc = refilled_disc(empty, bags, rng)
    temple_ids = C.BASE_TEMPLES + (C.PROMO_TEMPLES if options.promo_cards else ())
    temples = rng.shuffle(temple_ids)
    order = [(first + k) % seats for k in range(seats)]
    personal: list[tuple[int, ...] | None] = [None] * seats
    for seat in order:
        personal[seat] = (temples.pop(0),)
    half = (len(temples) + 1) // 2
    piles = (tuple(temples[:half]), tuple(temples[half:]))
    deck = rng.shuffle(C.BASE_CARDS + (C.PROMO_CARDS if options.promo_cards else ()))
    row, deck = deck[:C.ROW_SIZE], deck[C.ROW_SIZE:]
    dealt: list[tuple[int, ...] | None] = [None] * seats
    for k, seat in enumerate(order):
        dealt[seat], deck = tuple(deck[:C.OPENING_HAND[k]]), deck[C.OPENING_HAND[k]:]
    return [GameSetUp(seats=seats, first_player=first, sacrifice_tokens=options.sacrifice_tokens, disc=disc,
                      row=tuple(row), pile_tops=tuple(p[0] if p else None for p in piles), dealt=tuple(dealt),
                      temples=tuple(personal), deck=tuple(deck), piles=piles)]


def seat_scores(state: CoatlState) -> tuple[int, ...]:
    """Each seat's points: its completed coatls only."""
    return tuple(sum(coatl_value(c) for c in p.coatls if c.status != "open") for p in state.players)


def coatl_value(coatl: Any) -> int:
    """The current value of a coatl with the cards beside it (scored as if it were finished now)."""
    return _cached_points(colors(coatl), card_types(coatl.cards), coatl.temple)


_cached_points = lru_cache(maxsize=4096)(coatl_points)  # pure, and views recompute every coatl often


def last_turns(state: CoatlState, seat: int, condition: str) -> tuple[LastTurn, ...]:
    """Who still plays after `seat`'s turn, and with how many actions (spec: End of the game)."""
    n, position = state.seats, order_of(state, seat)
    by_order = [(state.first_player + k) % n for k in range(n)]
    if condition == "stalled":  # every seat in a row could do nothing: nothing can change any more
        return ()
    if condition == "third_coatl":
        return tuple([LastTurn(s, 2) for s in by_order[position + 1:]] + [LastTurn(s, 1) for s in by_order[:position]])
    return tuple(LastTurn(s, 1) for s in by_order[position + 1:] + by_order)


def finish_turn(script: Script, rng: Rng) -> None:
    """Close a pending coatl, refill the row, end the turn, check the end and start the next turn."""
    state = script.state
    assert state.turn is not None
    seat = state.turn.seat
    if state.turn.pending is not None:
        script.emit(CoatlClosed(seat=seat, coatl=state.turn.pending))
    refill_row(script, rng)
    script.emit(TurnEnded(seat=seat))
    state = script.state
    if state.end_condition is None:
        condition = ("third_coatl" if completed(state.players[seat]) >= C.MAX_COMPLETED
                     else "no_body_segments" if body_supply_empty(state)
                     else "stalled" if state.passes >= state.seats else None)
        if condition is not None:
            script.emit(EndTriggered(condition=condition, seat=seat,  # type: ignore[arg-type]
                                     last_turns=last_turns(state, seat, condition)))
    state = script.state
    if state.last_turns is None:
        script.emit(TurnStarted(seat=(seat + 1) % state.seats, actions=1))
    elif state.last_turns:
        script.emit(TurnStarted(seat=state.last_turns[0].seat, actions=state.last_turns[0].actions))
    else:
        script.emit(GameFinished(scores=seat_scores(state)))


def piece_list(kind: str, names: tuple[str, ...]) -> tuple[Piece, ...]:
    return tuple(Piece(kind, c) for c in names)  # type: ignore[arg-type]
