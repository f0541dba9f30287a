"""Cóatl, the end of a turn and of the game: disc and row refills, the last turns, the final scores.

Each step writes its events through the decision's kernel `Emitter`, so the
next step (a reshuffle after the row was discarded, the end-game check after
the last piece was taken) sees the state it follows.
"""

from __future__ import annotations

from typing import Any

from domain.coatl import components as C
from domain.coatl.events import (CoatlClosed, DeckReshuffled, Disc, DiscRefilled, EndTriggered, GameFinished,
                                 LastTurn, RowRefilled, TurnEnded, TurnStarted)
from domain.coatl.scoring import seat_scores
from domain.coatl.setup import refilled_disc
from domain.coatl.state import CoatlState, body_supply_empty, completed, order_of
from domain.kernel import Emitter, Rng

Emit = Emitter[CoatlState, Any]


def needs_refill(disc: Disc) -> bool:
    """The disc is refilled when it has no body segment, or neither head nor tail."""
    return not any(disc.bodies) or (not any(disc.heads) and not any(disc.tails))


def refill_disc(emit: Emit, rng: Rng) -> None:
    """Fill every empty disc slot from the bags, as far as they go."""
    state = emit.state
    assert state is not None
    disc = refilled_disc(state.disc, state.hidden.bags, rng)
    if disc != state.disc:
        emit(DiscRefilled(disc=disc))


def reshuffle_if_empty(emit: Emit, rng: Rng) -> bool:
    """Reshuffle the discards into an empty deck; False when there is nothing to draw at all."""
    assert emit.state is not None
    hidden = emit.state.hidden
    if hidden.deck:
        return True
    if not hidden.discard:
        return False
    deck = tuple(rng.shuffle(hidden.discard))
    emit(DeckReshuffled(size=len(deck), deck=deck))
    return True


def refill_row(emit: Emit, rng: Rng) -> None:
    """Refill the prophecy row to 6 from the deck, reshuffling the discards when it runs out."""
    while len(emit.state.row) < C.ROW_SIZE and reshuffle_if_empty(emit, rng):  # type: ignore[union-attr]
        state = emit.state
        assert state is not None
        emit(RowRefilled(cards=state.hidden.deck[:C.ROW_SIZE - len(state.row)]))


def last_turns(state: CoatlState, seat: int, condition: str) -> tuple[LastTurn, ...]:
    """Who still plays after `seat`'s turn, and with how many actions (spec: End of the game)."""
    n, position = state.seats, order_of(state, seat)
    by_order = [(state.first_player + k) % n for k in range(n)]
    if condition == "stalled":  # every seat in a row could do nothing: nothing can change any more
        return ()
    if condition == "third_coatl":
        return tuple([LastTurn(s, 2) for s in by_order[position + 1:]] + [LastTurn(s, 1) for s in by_order[:position]])
    return tuple(LastTurn(s, 1) for s in by_order[position + 1:] + by_order)


def finish_turn(emit: Emit, rng: Rng) -> None:
    """Close a pending coatl, refill the row, end the turn, check the end and start the next turn."""
    state = emit.state
    assert state is not None and state.turn is not None
    seat = state.turn.seat
    if state.turn.pending is not None:
        emit(CoatlClosed(seat=seat, coatl=state.turn.pending))
    refill_row(emit, rng)
    state = emit(TurnEnded(seat=seat))
    if state.end_condition is None:
        condition = ("third_coatl" if completed(state.players[seat]) >= C.MAX_COMPLETED
                     else "no_body_segments" if body_supply_empty(state)
                     else "stalled" if state.passes >= state.seats else None)
        if condition is not None:
            state = emit(EndTriggered(condition=condition, seat=seat,  # type: ignore[arg-type]
                                      last_turns=last_turns(state, seat, condition)))
    if state.last_turns is None:
        emit(TurnStarted(seat=(seat + 1) % state.seats, actions=1))
    elif state.last_turns:
        emit(TurnStarted(seat=state.last_turns[0].seat, actions=state.last_turns[0].actions))
    else:
        emit(GameFinished(scores=seat_scores(state)))
