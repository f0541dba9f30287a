"""Tobago's state, plus small pure queries.

Everything secret (deck orders, discard piles, hands, treasure piles, the
share pile and the cards each seat drew into it) lives in `state.hidden`, so
`view` and `invariants` know exactly what to guard.
"""

from __future__ import annotations

from typing import Literal, Optional

import msgspec

from domain.tobago.clues import Board, board, candidates_mask
from domain.tobago.components import AMULETS, CLUE_IDS, CURSE_CARDS, DRIVE_STEPS, ROSES_PER_PLAYER, TREASURE_CARDS
from domain.tobago.island import Island, Landmarks
from domain.tobago.options import TobagoOptions

Phase = Literal["place_atv", "turn", "share", "new_hunt", "over"]


class Slot(msgspec.Struct, frozen=True):
    """One clue on a map (top = index 0) with the roses of the seat that played it (1, or 2 when doubled)."""

    card: str
    seat: int
    roses: int = 1


class TreasureMap(msgspec.Struct, frozen=True):
    slots: tuple[Slot, ...] = ()
    removed: tuple[int, ...] = ()


class Player(msgspec.Struct, frozen=True):
    atv: Optional[int] = None
    amulets: int = 0


class Turn(msgspec.Struct, frozen=True):
    """The active seat; `acted` once A, B or an exchange is taken; drive steps left of action B."""

    seat: int
    acted: bool = False
    steps_left: int = 0


class Share(msgspec.Struct, frozen=True):
    """A share in progress: remaining roses bottom first, the revealed card and whom it is offered to;
    `last_taker` is the seat that took the latest card (None while nobody took one)."""

    map: int
    finder: int
    roses: tuple[int, ...]
    card: Optional[int] = None
    offer: Optional[int] = None
    passed: tuple[int, ...] = ()
    revealed: int = 0
    last_taker: Optional[int] = None


class Private(msgspec.Struct, frozen=True):
    hand: tuple[str, ...] = ()
    treasures: tuple[int, ...] = ()
    drawn: tuple[int, ...] = ()


class Hidden(msgspec.Struct, frozen=True):
    clue_deck: tuple[str, ...]
    clue_discard: tuple[str, ...]
    treasure_deck: tuple[int, ...]
    treasure_discard: tuple[int, ...]
    share_pile: tuple[int, ...]
    private: tuple[Private, ...]


class TobagoState(msgspec.Struct, frozen=True):
    options: TobagoOptions
    island: Island
    landmarks: Landmarks
    facing: tuple[int, ...]
    players: tuple[Player, ...]
    maps: tuple[TreasureMap, ...]
    turn: Turn
    hidden: Hidden
    phase: Phase = "place_atv"
    amulets: tuple[int, ...] = ()
    amulet_supply: int = AMULETS
    share: Optional[Share] = None
    hunter: Optional[int] = None
    hunt_map: Optional[int] = None
    ending: bool = False
    curses_out: int = 0  # curses that took effect and left the game (leftover curses are only discarded)


def board_of(state: TobagoState) -> Board:
    return board(state.island, state.landmarks)


def map_clues(m: TreasureMap) -> tuple[str, ...]:
    return tuple(s.card for s in m.slots)


def candidates(state: TobagoState, index: int) -> int:
    """The candidate mask of map `index` (the whole island while the map is empty)."""
    m = state.maps[index]
    return candidates_mask(board_of(state), map_clues(m), m.removed)


def roses_left(state: TobagoState, seat: int) -> int:
    """Roses still in `seat`'s supply (15 minus those on maps and in a running share)."""
    used = 0
    skip = -1 if state.share is None else state.share.map
    for i, m in enumerate(state.maps):
        if i != skip:
            for s in m.slots:
                if s.seat == seat:
                    used += s.roses
    if state.share is not None:
        used += state.share.roses.count(seat)
    return ROSES_PER_PLAYER - used


def drive_steps_left(state: TobagoState) -> int:
    """Drive steps still open this turn (all of them until the turn's action is taken)."""
    return DRIVE_STEPS if not state.turn.acted else state.turn.steps_left


def seat_count(state: TobagoState) -> int:
    return len(state.players)




def invariants(state: TobagoState) -> None:
    """Raise AssertionError when a rule-level invariant is broken (the shared random play calls it)."""
    hidden = state.hidden
    clues = list(hidden.clue_deck) + list(hidden.clue_discard)
    clues += [c for p in hidden.private for c in p.hand] + [s.card for m in state.maps for s in m.slots]
    assert sorted(clues) == sorted(CLUE_IDS), "every clue card is in exactly one place"
    cards = list(hidden.treasure_deck) + list(hidden.treasure_discard) + list(hidden.share_pile)
    cards += [c for p in hidden.private for c in p.treasures]
    if state.share is not None and state.share.card is not None:
        cards.append(state.share.card)
    assert sorted(c for c in cards if c) == sorted(TREASURE_CARDS), "every treasure card is in one place"
    assert cards.count(0) + state.curses_out == state.options.curse_cards <= CURSE_CARDS + 1
    assert state.amulet_supply + len(state.amulets) + sum(p.amulets for p in state.players) == 21
    assert len(set(state.amulets)) == len(state.amulets)
    assert all(p.amulets >= 0 for p in state.players)
    for seat in range(len(state.players)):
        assert roses_left(state, seat) >= 0, "no seat uses more than its 15 roses"
    for i, m in enumerate(state.maps):
        assert all(s.roses in (1, 2) for s in m.slots)
        if m.slots and state.phase != "over" and (state.share is None or state.share.map != i):
            assert candidates(state, i) != 0, "a map in play always keeps a candidate"
    if state.phase == "turn":
        assert all(p.atv is not None for p in state.players)
        assert 0 <= state.turn.steps_left <= 3
