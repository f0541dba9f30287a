"""Cóatl rules of the build action: starting and extending coatls, prophecy cards beside them,
and the temple card (or plain closing) that ends a completed coatl.

Each predicate returns the RuleViolation that refuses its command, or None; `rules.refusal`
finds them by command type, so `decide` and `legal` share them.
"""

from __future__ import annotations

from typing import Optional

from domain.coatl import components as C
from domain.coatl.codes import violation as _no
from domain.coatl.commands import AddPiece, Piece, PlayProphecy, PlayTemple
from domain.coatl.rules_turn import Refusal, coatl_index, in_hand, may_begin, on_board
from domain.coatl.scoring import prophecy_met, temple_points
from domain.coatl.state import Coatl, CoatlState, Player, card_types, completed, incomplete, is_complete


def extended(coatl: Coatl, piece: Piece, end: str) -> tuple[Piece, ...]:
    """The coatl's pieces after adding `piece` at `end`."""
    return (piece,) + coatl.pieces if end == "head" else coatl.pieces + (piece,)


def _fits(coatl: Coatl, piece: Piece, end: str) -> Refusal:
    if (coatl.pieces[0] if end == "head" else coatl.pieces[-1]).kind == end:
        return _no("coatl.end_closed", f"the {end} end is closed")
    if piece.kind != "body" and piece.kind != end:
        return _no("coatl.wrong_end", f"a {piece.kind} goes at the {piece.kind} end")
    kinds = {p.kind for p in extended(coatl, piece, end)}
    if {"head", "tail"} <= kinds and "body" not in kinds:
        return _no("coatl.needs_body", "a coatl needs a body segment between head and tail")
    return None


def prophecy_refusal(coatl: Coatl, card: int, pieces: Optional[tuple[Piece, ...]] = None) -> Refusal:
    """Whether `card` may go beside `coatl` (with `pieces` instead of its own when given)."""
    if len(coatl.cards) >= C.MAX_PROPHECIES_PER_COATL:
        return _no("coatl.too_many_prophecies", "a coatl carries at most 4 prophecy cards")
    if C.CARD_TYPE[card] in card_types(coatl.cards):
        return _no("coatl.identical_prophecy", "this coatl already carries that face")
    if not prophecy_met(C.CARD_TYPE[card], [p.color for p in (pieces or coatl.pieces)]):
        return _no("coatl.requirement_not_met", "the coatl does not meet the card's first level")
    return None


def start_refusal(player: Player, piece: Piece) -> Refusal:
    if len(incomplete(player)) >= C.MAX_INCOMPLETE:
        return _no("coatl.too_many_incomplete", "two coatls are incomplete already")
    return on_board(player, piece)


def add_refusal(state: CoatlState, seat: int, player: Player, cmd: AddPiece) -> Refusal:
    refusal = may_begin(state, "build") or coatl_index(player, cmd.coatl)
    if refusal is not None:
        return refusal
    coatl = player.coatls[cmd.coatl]
    if coatl.status != "open":
        return _no("coatl.coatl_complete", "the coatl is complete")
    refusal = on_board(player, cmd.piece) or _fits(coatl, cmd.piece, cmd.end)
    new = extended(coatl, cmd.piece, cmd.end)
    if refusal is not None or not is_complete(new):
        return refusal
    if completed(player) >= C.MAX_COMPLETED:
        return _no("coatl.coatl_limit", "a player completes at most 3 coatls")
    if not coatl.cards and all(prophecy_refusal(coatl, card, new) for card in state.hidden.hands[seat]):
        return _no("coatl.no_prophecy_for_completion", "no prophecy card for this coatl")
    return None


def play_refusal(state: CoatlState, seat: int, player: Player, cmd: PlayProphecy) -> Refusal:
    assert state.turn is not None
    if state.turn.pending is None:
        refusal = may_begin(state, "build")
    elif state.turn.pending != cmd.coatl:
        refusal = _no("coatl.completion_pending", "finish the just completed coatl first")
    else:
        refusal = None
    refusal = refusal or coatl_index(player, cmd.coatl)
    if refusal is not None:
        return refusal
    if player.coatls[cmd.coatl].status == "closed":
        return _no("coatl.coatl_closed", "the coatl is closed")
    return in_hand(state, seat, cmd.card) or prophecy_refusal(player.coatls[cmd.coatl], cmd.card)


def temple_source(state: CoatlState, seat: int, temple: int) -> Optional[int]:
    """None for the seat's own temple card, else the shared pile it tops (see `_temple_available`)."""
    if temple in state.hidden.temples[seat]:
        return None
    return next(pile for pile, cards in enumerate(state.hidden.piles) if cards and cards[0] == temple)


def _temple_available(state: CoatlState, seat: int, temple: int) -> Refusal:
    tops = [cards[0] for cards in state.hidden.piles if cards]
    if temple in state.hidden.temples[seat] or temple in tops:
        return None
    return _no("coatl.temple_not_available", f"temple {temple} is not available")


def pending_ready(state: CoatlState, player: Player) -> Refusal:
    """Whether a just completed coatl awaits its temple or its closing (it has a prophecy card)."""
    assert state.turn is not None
    if state.turn.pending is None:
        return _no("coatl.not_completing", "no coatl has just been completed")
    if not player.coatls[state.turn.pending].cards:
        return _no("coatl.needs_prophecy", "the completed coatl needs a prophecy card first")
    return None


def temple_refusal(state: CoatlState, seat: int, player: Player, cmd: PlayTemple) -> Refusal:
    refusal = pending_ready(state, player) or _temple_available(state, seat, cmd.temple)
    if refusal is not None:
        return refusal
    coatl = player.coatls[state.turn.pending]  # type: ignore[union-attr, index]
    if temple_points(cmd.temple, [p.color for p in coatl.pieces], card_types(coatl.cards)) == 0:
        return _no("coatl.temple_requirement_not_met", "the coatl meets none of the temple's requirements")
    return None
