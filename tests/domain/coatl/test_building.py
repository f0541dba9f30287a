"""The build action: starting, extending, playing prophecies, completing, temples (spec: A turn 3)."""

from msgspec.structs import replace

from domain.coatl.commands import (AddPiece, CloseCoatl, EndTurn, PlayProphecy, PlayTemple, StartCoatl,
                                   TakePieces)
from domain.coatl.events import CoatlClosed, CoatlCompleted, TemplePlayed
from domain.coatl.game import GAME
from tests.domain.coatl.builders import card, coatl, in_play, piece, rig
from tests.support.rules import refused, when

BLUE_COUNT, BLUE_COUNT_2 = card(4, 0), card(4, 1)
BLUE_RUN, YELLOW_COUNT, RED_COUNT, BLUE_PAIRS = card(14), card(0), card(1), card(9)


def test_a_coatl_is_started_with_any_board_piece_but_never_a_third_incomplete_one():
    state = rig(in_play(), 0, board="bY tR")
    after, _ = when(GAME, state, 0, StartCoatl(piece=piece("tR")))
    assert after.players[0].coatls[0].pieces == (piece("tR"),) and after.players[0].board == (piece("bY"),)
    two = rig(state, 0, coatls=(coatl("bB"), coatl("hK")))
    refused(GAME, two, 0, StartCoatl(piece=piece("bY")), "coatl.too_many_incomplete")
    refused(GAME, state, 0, StartCoatl(piece=piece("hG")), "coatl.not_on_board")


def test_heads_go_only_at_the_head_end_tails_only_at_the_tail_end_bodies_at_either_open_end():
    state = rig(in_play(), 0, board="hY tR bG", coatls=(coatl("bB"),))
    refused(GAME, state, 0, AddPiece(coatl=0, piece=piece("hY"), end="tail"), "coatl.wrong_end")
    refused(GAME, state, 0, AddPiece(coatl=0, piece=piece("tR"), end="head"), "coatl.wrong_end")
    after, _ = when(GAME, state, 0, AddPiece(coatl=0, piece=piece("bG"), end="head"))
    assert [p.color for p in after.players[0].coatls[0].pieces] == ["green", "blue"]
    headed = rig(state, 0, coatls=(coatl("hK bB"),))
    refused(GAME, headed, 0, AddPiece(coatl=0, piece=piece("bG"), end="head"), "coatl.end_closed")
    assert AddPiece(coatl=0, piece=piece("bG"), end="tail") in GAME.legal(headed, 0)


def test_a_head_and_a_tail_never_close_a_coatl_without_a_body_segment():
    """Rulebook: to complete a coatl it needs 1 head, 1 tail and at least 1 body segment."""
    state = rig(in_play(), 0, board="tR", coatls=(coatl("hY"),), hand=(RED_COUNT,))
    refused(GAME, state, 0, AddPiece(coatl=0, piece=piece("tR"), end="tail"), "coatl.needs_body")


def test_a_prophecy_card_is_played_only_beside_a_coatl_that_meets_its_first_level():
    """Rulebook, 'Розіграти карту пророцтва': a coatl with 3 blue pieces may take the blue-count card."""
    state = rig(in_play(), 0, coatls=(coatl("bB bB bB"), coatl("bB bB")), hand=(BLUE_COUNT, BLUE_RUN))
    legal = GAME.legal(state, 0)
    assert PlayProphecy(card=BLUE_COUNT, coatl=0) in legal and PlayProphecy(card=BLUE_RUN, coatl=0) in legal
    refused(GAME, state, 0, PlayProphecy(card=BLUE_COUNT, coatl=1), "coatl.requirement_not_met")
    refused(GAME, state, 0, PlayProphecy(card=YELLOW_COUNT, coatl=0), "coatl.not_in_hand")
    after, _ = when(GAME, state, 0, PlayProphecy(card=BLUE_COUNT, coatl=0))
    assert after.players[0].coatls[0].cards == (BLUE_COUNT,) and after.hidden.hands[0] == (BLUE_RUN,)
    assert GAME.view(after, 1).players[0].coatls[0].value == 2


def test_a_coatl_never_carries_two_identical_faces():
    """The colour-count faces are printed twice; both copies never go beside one coatl."""
    state = rig(in_play(), 0, coatls=(coatl("bB bB bB", cards=(BLUE_COUNT,)),), hand=(BLUE_COUNT_2,))
    refused(GAME, state, 0, PlayProphecy(card=BLUE_COUNT_2, coatl=0), "coatl.identical_prophecy")


def test_a_coatl_never_carries_more_than_four_prophecy_cards():
    cards = (card(0), card(1), card(2), card(3))
    state = rig(in_play(), 0, coatls=(coatl("bY bY bY bB bB bB", cards=cards),), hand=(BLUE_COUNT,))
    refused(GAME, state, 0, PlayProphecy(card=BLUE_COUNT, coatl=0), "coatl.too_many_prophecies")


def test_completing_needs_a_card_beside_the_coatl_or_one_in_hand_it_meets():
    state = rig(in_play(), 0, board="tB", coatls=(coatl("hB bB"),), hand=(YELLOW_COUNT,))
    refused(GAME, state, 0, AddPiece(coatl=0, piece=piece("tB"), end="tail"), "coatl.no_prophecy_for_completion")
    with_card = rig(state, 0, hand=(YELLOW_COUNT, BLUE_COUNT))
    assert AddPiece(coatl=0, piece=piece("tB"), end="tail") in GAME.legal(with_card, 0)
    played = rig(state, 0, coatls=(coatl("hB bB bB", cards=(BLUE_COUNT,)),), hand=())
    assert AddPiece(coatl=0, piece=piece("tB"), end="tail") in GAME.legal(played, 0)


def test_a_completed_coatl_takes_its_prophecies_then_an_optional_temple_then_is_closed():
    state = rig(in_play(), 0, board="tB bR", coatls=(coatl("hB bB"),), hand=(BLUE_COUNT, BLUE_PAIRS),
                temples=(3, 2))
    state, events = when(GAME, state, 0, AddPiece(coatl=0, piece=piece("tB"), end="tail"))
    assert events[-1] == CoatlCompleted(seat=0, coatl=0) and state.turn.pending == 0
    refused(GAME, state, 0, EndTurn(), "coatl.needs_prophecy")
    refused(GAME, state, 0, CloseCoatl(), "coatl.needs_prophecy")
    refused(GAME, state, 0, TakePieces(slot="head", index=0), "coatl.completion_pending")
    refused(GAME, state, 0, StartCoatl(piece=piece("bR")), "coatl.completion_pending")
    refused(GAME, state, 0, PlayTemple(temple=2), "coatl.needs_prophecy")
    state, _ = when(GAME, state, 0, PlayProphecy(card=BLUE_COUNT, coatl=0))
    refused(GAME, state, 0, PlayTemple(temple=3), "coatl.temple_requirement_not_met")  # no blue / 10 pieces
    refused(GAME, state, 0, PlayTemple(temple=4), "coatl.temple_not_available")
    state, events = when(GAME, state, 0, PlayTemple(temple=2))  # no green: met
    assert events == [TemplePlayed(seat=0, coatl=0, temple=2, pile=None), CoatlClosed(seat=0, coatl=0)]
    done = state.players[0].coatls[0]
    assert done.status == "closed" and done.temple == 2 and state.hidden.temples[0] == (3,)
    assert GAME.view(state, None).players[0].coatls[0].value == 2 + 3 and GAME.view(state, None).players[0].score == 5
    refused(GAME, state, 0, PlayProphecy(card=BLUE_PAIRS, coatl=0), "coatl.coatl_closed")
    state, _ = when(GAME, state, 0, StartCoatl(piece=piece("bR")))


def test_a_shared_temple_comes_from_the_top_of_a_pile_and_reveals_the_next():
    state = rig(in_play(), 0, coatls=(coatl("hB bB tB", cards=(BLUE_COUNT,), status="completing"),), temples=())
    state = replace(state, turn=replace(state.turn, pending=0, current="build", actions_left=0),
                    hidden=replace(state.hidden, piles=((2, 7), (5,))))
    assert PlayTemple(temple=2) in GAME.legal(state, 0) and PlayTemple(temple=7) not in GAME.legal(state, 0)
    after, events = when(GAME, state, 0, PlayTemple(temple=2))
    assert events[0] == TemplePlayed(seat=0, coatl=0, temple=2, pile=0, new_top=7)
    assert after.hidden.piles == ((7,), (5,)) and [t.id for t in GAME.view(after, 1).pile_tops] == [7, 5]


def test_ending_the_turn_closes_a_completed_coatl_without_a_temple():
    state = rig(in_play(), 0, coatls=(coatl("hB bB tB", cards=(BLUE_COUNT,), status="completing"),))
    state = replace(state, turn=replace(state.turn, pending=0, current="build", actions_left=0))
    after, events = when(GAME, state, 0, EndTurn())
    assert events[0] == CoatlClosed(seat=0, coatl=0) and after.players[0].coatls[0].status == "closed"


def test_a_player_completes_at_most_three_coatls():
    done = tuple(coatl("hB bB tB", cards=(BLUE_COUNT,), status="closed") for _ in range(3))
    state = rig(in_play(), 0, board="tY", coatls=done + (coatl("hY bY bY"),), hand=(YELLOW_COUNT,))
    refused(GAME, state, 0, AddPiece(coatl=3, piece=piece("tY"), end="tail"), "coatl.coatl_limit")
    refused(GAME, state, 0, AddPiece(coatl=0, piece=piece("tY"), end="tail"), "coatl.coatl_complete")
    refused(GAME, state, 0, AddPiece(coatl=7, piece=piece("tY"), end="tail"), "coatl.no_such_coatl")


def test_building_steps_are_free_within_one_build_action():
    state = rig(in_play(), 0, board="bB bB bB", hand=(BLUE_COUNT,))
    state, _ = when(GAME, state, 0, StartCoatl(piece=piece("bB")))
    state, _ = when(GAME, state, 0, AddPiece(coatl=0, piece=piece("bB"), end="head"))
    state, _ = when(GAME, state, 0, AddPiece(coatl=0, piece=piece("bB"), end="tail"))
    state, _ = when(GAME, state, 0, PlayProphecy(card=BLUE_COUNT, coatl=0))
    assert state.turn.actions_left == 0 and state.turn.current == "build"
    refused(GAME, state, 0, TakePieces(slot="head", index=0), "coatl.no_action_left")
    state, _ = when(GAME, state, 0, EndTurn())
    assert state.turn.seat == 1
