"""Cóatl setup: the disc filled from the bags, temples and prophecy cards dealt.

`refilled_disc` is the one way pieces leave the bags at random; the end of a
turn refills the disc with it too.
"""

from __future__ import annotations

from typing import Any

from domain.coatl import components as C
from domain.coatl.events import Disc, GameSetUp
from domain.coatl.options import CoatlOptions
from domain.coatl.state import Bags
from domain.kernel import Rng, RuleViolation


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


def setup(options: CoatlOptions, seats: int, rng: Rng) -> list[Any]:
    """The opening: disc filled, temples dealt and piled, prophecy row and opening hands dealt."""
    if not 2 <= seats <= 4:
        raise RuleViolation("coatl.bad_options", f"Cóatl is for 2-4 players, not {seats}")
    first = rng.below(seats) if options.random_first_player else 0
    full = tuple(C.PIECES_PER_COLOR["head"] for _ in C.COLORS)
    bags = Bags(head=full, tail=full, body=tuple(C.PIECES_PER_COLOR["body"] for _ in C.COLORS))
    empty = Disc(heads=(None,) * C.HEAD_SLOTS, tails=(None,) * C.TAIL_SLOTS, bodies=((),) * C.BODY_SLOTS)
    disc = refilled_disc(empty, bags, rng)
    temples = rng.shuffle(C.BASE_TEMPLES + (C.PROMO_TEMPLES if options.promo_cards else ()))
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
