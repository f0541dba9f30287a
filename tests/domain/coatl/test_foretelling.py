"""Foretelling, as the rulebook words it (translated): "Discard the whole row of prophecy cards (the 6 face-up
cards), then refill it with new cards. Discard any number of prophecy cards from your hand, then
perform the action 'Choose prophecy cards'" — and choosing is "take one or more cards from the row
and/or the top of the deck, up to a hand of 5" (spec: A turn 2 and 4).
"""

from msgspec.structs import replace

from domain.coatl.commands import DiscardProphecy, EndTurn, Foretell, StartCoatl, TakePieces, TakeProphecy
from domain.coatl.game import GAME
from domain.coatl.state import Turn
from tests.domain.coatl.builders import in_play, piece, rig
from tests.support.rules import refused, when


def foretold(hand, tokens=("foretell",), actions=1, **rigged):
    """Seat 0 has just used Foretelling (by default its last sacrifice token) holding `hand`."""
    state = rig(in_play(), 0, hand=hand, tokens=tokens, **rigged)
    state = replace(state, turn=Turn(seat=0, actions_left=actions))
    state, _ = when(GAME, state, 0, Foretell())
    return state


def test_foretellings_discards_are_offered_when_it_used_the_last_sacrifice_token():
    """"Discard any number of prophecy cards from your hand": legal offers each discard, token or not."""
    state = foretold(hand=(40, 41, 42))
    assert state.players[0].tokens == ()
    offers = GAME.legal(state, 0)
    assert {DiscardProphecy(card=c) for c in (40, 41, 42)} <= set(offers)
    state, _ = when(GAME, state, 0, DiscardProphecy(card=41))
    state, _ = when(GAME, state, 0, DiscardProphecy(card=40))
    assert state.hidden.hands[0] == (42,) and state.hidden.discard[-2:] == (41, 40)


def test_foretelling_goes_on_with_choosing_so_the_turn_cannot_end_before_a_card_is_taken():
    """"...then perform the action 'Choose prophecy cards'", which takes one or more cards."""
    state = foretold(hand=(40,))
    refused(GAME, state, 0, EndTurn(), "coatl.must_choose")
    state, _ = when(GAME, state, 0, TakeProphecy(card=state.row[0]))
    assert len(state.hidden.hands[0]) == 2
    state, _ = when(GAME, state, 0, TakeProphecy(card=None))
    state, _ = when(GAME, state, 0, EndTurn())
    assert len(state.hidden.hands[0]) == 3 and state.turn.seat == 1


def test_with_a_full_hand_and_nothing_discarded_foretelling_may_end_the_turn_at_once():
    """Choosing fills the hand up to 5 cards: with 5 cards kept there is nothing to take."""
    state = foretold(hand=(40, 41, 42, 43, 44))
    assert EndTurn() in GAME.legal(state, 0) and DiscardProphecy(card=44) in GAME.legal(state, 0)
    refused(GAME, state, 0, TakeProphecy(card=None), "coatl.hand_limit")
    discarded, _ = when(GAME, state, 0, DiscardProphecy(card=44))
    refused(GAME, discarded, 0, EndTurn(), "coatl.must_choose")
    ended, _ = when(GAME, state, 0, EndTurn())
    assert ended.turn.seat == 1 and ended.hidden.hands[0] == (40, 41, 42, 43, 44)


def test_a_second_action_of_a_last_turn_waits_until_foretelling_has_chosen():
    """Foretelling is one whole action: its choice comes before the next action of a two-action turn."""
    state = foretold(hand=(40,), actions=2, board="bY")
    refused(GAME, state, 0, TakePieces(slot="body", index=0), "coatl.must_choose")
    refused(GAME, state, 0, StartCoatl(piece=piece("bY")), "coatl.must_choose")
    state, _ = when(GAME, state, 0, TakeProphecy(card=state.row[0]))
    state, _ = when(GAME, state, 0, StartCoatl(piece=piece("bY")))
    assert state.turn.actions_left == 0 and len(state.players[0].coatls) == 1
