"""The stable RuleViolation codes of Cóatl, each with its meaning (documented in `GAME.codes`), and `violation`."""

from __future__ import annotations

from domain.kernel import RuleViolation

CODES: dict[str, str] = {
    "coatl.bad_options": "the options do not fit the number of seats",
    "coatl.game_over": "the game is over",
    "coatl.wrong_phase": "this command belongs to another phase (opening hands or play)",
    "coatl.not_your_turn": "another seat must act",
    "coatl.already_decided": "this seat has already chosen its opening hand",
    "coatl.keep_limit": "keep at most 3 cards of the opening hand",
    "coatl.not_dealt": "these cards were not dealt to this seat, or are named twice",
    "coatl.no_action_left": "this turn has no action left; end it",
    "coatl.completion_pending": "finish the just completed coatl (prophecies, temple, close) first",
    "coatl.no_such_slot": "the disc has no such slot",
    "coatl.empty_slot": "that disc slot is empty",
    "coatl.board_full": "not enough free slots on the board (8 at most)",
    "coatl.hand_limit": "the hand would exceed 5 prophecy cards",
    "coatl.deck_empty": "no prophecy card is left in the deck nor the discards",
    "coatl.not_in_row": "that prophecy card is not in the row",
    "coatl.not_in_hand": "that prophecy card is not in the hand",
    "coatl.not_on_board": "that piece is not on the board",
    "coatl.too_many_incomplete": "a player never has more than 2 incomplete coatls",
    "coatl.no_such_coatl": "the player has no such coatl",
    "coatl.coatl_complete": "pieces are only added to an incomplete coatl",
    "coatl.coatl_closed": "the coatl is closed: no more cards beside it",
    "coatl.end_closed": "that end of the coatl already has its head or tail",
    "coatl.wrong_end": "a head goes at the head end, a tail at the tail end",
    "coatl.needs_body": "a coatl needs a body segment between its head and its tail",
    "coatl.coatl_limit": "a player completes at most 3 coatls",
    "coatl.no_prophecy_for_completion": "completing needs a prophecy card beside the coatl or one in hand it meets",
    "coatl.too_many_prophecies": "a coatl carries at most 4 prophecy cards",
    "coatl.identical_prophecy": "a coatl never carries two cards with the same face",
    "coatl.requirement_not_met": "the coatl does not meet the card's first level",
    "coatl.not_completing": "no coatl has just been completed",
    "coatl.needs_prophecy": "a completed coatl needs at least one prophecy card",
    "coatl.temple_not_available": "that temple card is neither yours nor on top of a shared pile",
    "coatl.temple_requirement_not_met": "the coatl meets none of the temple card's requirements",
    "coatl.no_token": "that sacrifice token is not available (used, or the option is off)",
    "coatl.bad_pieces": "Perfect Choice takes 1 head, 1 tail or 2 body segments (the colours in any order)",
    "coatl.not_in_bag": "the bag does not hold these pieces",
    "coatl.cannot_discard": "cards are discarded from the hand only during Foretelling, before choosing",
    "coatl.no_such_pile": "there are two shared temple piles, 0 and 1",
    "coatl.must_choose": "Foretelling goes on with choosing prophecy cards: while one can be taken, take at "
                         "least one before anything else or the end of the turn",
    "coatl.must_act": "a turn may end without an action only when no action is possible",
}


def violation(code: str, message: str) -> RuleViolation:
    """The refusal with a documented `code` (every predicate of the rules builds its refusals here)."""
    assert code in CODES, code
    return RuleViolation(code, message)
