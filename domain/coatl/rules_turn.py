"""Cóatl's turn and its action budget, and the small predicates every command's rule is built from.

A turn spends an action budget (1, or 2 in some last turns): the first command of an
action costs one; further commands of a running choose or build action are free.
"""

from __future__ import annotations

from typing import Optional

from domain.coatl.codes import violation as _no
from domain.coatl.commands import Piece
from domain.coatl.state import CoatlState, Player, Turn, can_take_prophecy, free_slots
from domain.kernel import RuleViolation

Refusal = Optional[RuleViolation]


def in_play(state: CoatlState, seat: int) -> Refusal:
    if state.phase == "over":
        return _no("coatl.game_over", "the game is over")
    if state.phase != "play":
        return _no("coatl.wrong_phase", "every seat must first choose its opening hand")
    if state.turn is None or state.turn.seat != seat:
        return _no("coatl.not_your_turn", "it is not your turn")
    return None


def starts_action(turn: Turn, action: str) -> bool:
    """Whether a command of `action` starts a new action (costing one) rather than going on with one."""
    going_on = (action == "choose" and turn.current in ("choose", "foretell")) or (
        action == "build" and turn.current == "build")
    return not going_on


def may_begin(state: CoatlState, action: str) -> Refusal:
    """Whether a command of `action` may be played now, as a new action or as part of the running one."""
    turn = state.turn
    assert turn is not None
    if turn.pending is not None:
        return _no("coatl.completion_pending", "finish the just completed coatl first")
    if not starts_action(turn, action):
        return None
    if turn.current == "foretell" and can_take_prophecy(state, turn.seat):
        return _no("coatl.must_choose", "Foretelling goes on with choosing prophecy cards")
    if turn.actions_left <= 0:
        return _no("coatl.no_action_left", "no action is left this turn")
    return None


def has_token(player: Player, token: str) -> Refusal:
    return None if token in player.tokens else _no("coatl.no_token", f"no {token} token")


def coatl_index(player: Player, index: int) -> Refusal:
    return None if 0 <= index < len(player.coatls) else _no("coatl.no_such_coatl", f"no coatl {index}")


def on_board(player: Player, piece: Piece) -> Refusal:
    if piece in player.board:
        return None
    return _no("coatl.not_on_board", f"no {piece.color} {piece.kind} on the board")


def in_hand(state: CoatlState, seat: int, card: int) -> Refusal:
    return None if card in state.hidden.hands[seat] else _no("coatl.not_in_hand", f"card {card} is not in the hand")


def room(player: Player, pieces: int) -> Refusal:
    return None if free_slots(player) >= pieces else _no("coatl.board_full", "not enough free board slots")
