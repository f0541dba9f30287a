"""Both end conditions with the exact last turns, and the winner (spec: End of the game)."""

import pytest
from msgspec.structs import replace

from domain.coatl.commands import AddPiece, EndTurn, TakePieces
from domain.coatl.events import EndTriggered, GameFinished, TurnStarted
from domain.coatl.game import GAME
from domain.coatl.state import Bags, Turn
from domain.kernel import Rng, RuleViolation
from tests.domain.coatl.builders import card, coatl, in_play, piece, rig
from tests.support.rules import when

BLUE_COUNT = card(4)
DONE = coatl("hB bB tB", cards=(BLUE_COUNT,), status="closed")


def about_to_complete_third(seats, seat, **options):
    """`seat`'s turn, holding two completed coatls and one that a tail completes."""
    state = in_play(seats, **options)
    state = rig(state, seat, board="tB", coatls=(DONE, DONE, coatl("hB bB bB", cards=(card(14),))))
    return replace(state, turn=Turn(seat=seat, actions_left=1))


def schedule(events):
    (trigger,) = [e for e in events if isinstance(e, EndTriggered)]
    return trigger.condition, [(t.seat, t.actions) for t in trigger.last_turns]


def play_out(state):
    """Spend every remaining action taking pieces; the (seat, actions) of each turn played."""
    turns = []
    while state.phase != "over":
        seat = state.turn.seat
        turns.append((seat, state.turn.actions_left))
        while state.turn is not None and state.turn.seat == seat:
            take = next(c for c in GAME.legal(state, seat) if isinstance(c, TakePieces))
            state, _ = when(GAME, state, seat, take)
    return turns, state


@pytest.mark.parametrize("seats, seat, expected", [
    (2, 0, [(1, 2)]),
    (2, 1, [(0, 1)]),
    (3, 0, [(1, 2), (2, 2)]),
    (3, 1, [(2, 2), (0, 1)]),
    (3, 2, [(0, 1), (1, 1)]),
    (4, 1, [(2, 2), (3, 2), (0, 1)]),  # the rulebook's example: the 2nd player completes his third coatl
    (4, 3, [(0, 1), (1, 1), (2, 1)]),
])
def test_a_third_coatl_gives_later_seats_two_actions_earlier_seats_one_and_its_builder_none(seats, seat, expected):
    """End A: players after him (before the first player) take 2 actions, players before him 1, he none."""
    state = about_to_complete_third(seats, seat)
    state, _ = when(GAME, state, seat, AddPiece(coatl=2, piece=piece("tB"), end="tail"))
    state, events = when(GAME, state, seat, EndTurn())
    assert schedule(events) == ("third_coatl", expected)
    turns, state = play_out(state)
    assert turns == expected
    assert state.phase == "over" and GAME.outcome(state) is not None


def test_the_first_player_token_decides_who_comes_after_the_finisher():
    state = in_play(3, seed=b"first", random_first_player=True)
    first = state.first_player
    finisher = (first + 1) % 3
    state = about_to_complete_third(3, finisher, random_first_player=True)
    state = replace(state, first_player=first)
    state, _ = when(GAME, state, finisher, AddPiece(coatl=2, piece=piece("tB"), end="tail"))
    _, events = when(GAME, state, finisher, EndTurn())
    assert schedule(events)[1] == [((first + 2) % 3, 2), (first, 1)]


def test_two_actions_may_be_the_same_action_twice_and_then_the_turn_ends():
    state = about_to_complete_third(2, 0)
    state, _ = when(GAME, state, 0, AddPiece(coatl=2, piece=piece("tB"), end="tail"))
    state, _ = when(GAME, state, 0, EndTurn())
    assert state.turn == Turn(seat=1, actions_left=2)
    state, _ = when(GAME, state, 1, TakePieces(slot="head", index=0))
    assert state.turn.seat == 1 and state.turn.actions_left == 1
    state, events = when(GAME, state, 1, TakePieces(slot="tail", index=0))
    assert isinstance(events[-1], GameFinished) and state.phase == "over"


def test_another_third_coatl_during_the_last_turns_changes_nothing():
    state = about_to_complete_third(3, 0)
    state, _ = when(GAME, state, 0, AddPiece(coatl=2, piece=piece("tB"), end="tail"))
    state, _ = when(GAME, state, 0, EndTurn())
    state = rig(state, 1, board="tB", coatls=(DONE, DONE, coatl("hB bB bB", cards=(card(14),))))
    state, _ = when(GAME, state, 1, AddPiece(coatl=2, piece=piece("tB"), end="tail"))
    state, events = when(GAME, state, 1, EndTurn())
    assert not any(isinstance(e, EndTriggered) for e in events)
    assert events[-1] == TurnStarted(seat=2, actions=2)
    assert state.last_turns == ()


def last_body_segments(seats, seat):
    """`seat`'s turn; the disc holds the last two body segments and the bag none."""
    state = in_play(seats)
    bags = state.hidden.bags
    disc = replace(state.disc, bodies=(("red", "red"),) + ((),) * 5)
    return replace(state, turn=Turn(seat=seat, actions_left=1), disc=disc,
                   hidden=replace(state.hidden, bags=Bags(head=bags.head, tail=bags.tail, body=(0,) * 5)))


@pytest.mark.parametrize("seats, seat, expected", [
    (2, 0, [(1, 1), (0, 1), (1, 1)]),
    (2, 1, [(0, 1), (1, 1)]),
    (3, 1, [(2, 1), (0, 1), (1, 1), (2, 1)]),
    (3, 2, [(0, 1), (1, 1), (2, 1)]),
    (4, 0, [(1, 1), (2, 1), (3, 1), (0, 1), (1, 1), (2, 1), (3, 1)]),
    (4, 2, [(3, 1), (0, 1), (1, 1), (2, 1), (3, 1)]),
])
def test_running_out_of_body_segments_ends_the_round_then_gives_everybody_one_more_turn(seats, seat, expected):
    """End B: play on until all had the same number of turns, then each player takes one more turn."""
    state = last_body_segments(seats, seat)
    state, events = when(GAME, state, seat, TakePieces(slot="body", index=0))
    assert schedule(events) == ("no_body_segments", expected)
    turns, state = play_out(state)
    assert turns == expected and state.phase == "over"


def test_no_command_is_accepted_once_the_game_is_over():
    state = last_body_segments(2, 1)
    state, _ = when(GAME, state, 1, TakePieces(slot="body", index=0))
    _, state = play_out(state)
    with pytest.raises(RuleViolation) as exc:
        GAME.decide(state, 0, EndTurn(), Rng(b"x", 0))
    assert exc.value.code == "coatl.game_over" and GAME.to_act(state) == frozenset() and GAME.legal(state, 0) == []


def finished(*coatls_by_seat):
    state = in_play(len(coatls_by_seat))
    for seat, coatls in enumerate(coatls_by_seat):
        state = rig(state, seat, coatls=coatls)
    return replace(state, phase="over", turn=None)


def test_most_points_win_and_incomplete_coatls_score_nothing():
    blue = coatl("hB bB tB", cards=(BLUE_COUNT,), status="closed")
    outcome = GAME.outcome(finished((blue,), (coatl("bB bB bB", cards=(BLUE_COUNT,)),)))
    assert outcome.scores == [2, 0] and outcome.winners == [0]


def test_ties_go_to_more_cards_beside_completed_coatls_then_the_best_coatl_then_are_shared():
    """Rulebook: tie -> most cards beside completed coatls -> the single best coatl -> shared."""
    two_cards = coatl("hB bB tB", cards=(BLUE_COUNT, card(15)), status="closed")  # 2 + 0
    one_card = coatl("hB bB tB", cards=(BLUE_COUNT,), status="closed")  # 2
    by_cards = GAME.outcome(finished((two_cards,), (one_card,)))
    assert by_cards.scores == [2, 2] and by_cards.winners == [0]
    small = coatl("hB bB tB", cards=(BLUE_COUNT,), status="closed")  # 2
    big = coatl("hB bB bB tB", cards=(BLUE_COUNT,), status="closed")  # 3
    tiny = coatl("hY bG tY", cards=(card(15),), status="closed")  # 1
    by_best = GAME.outcome(finished((small, small), (big, tiny)))
    assert by_best.scores == [4, 4] and by_best.winners == [1] and by_best.details["best_coatl"] == [2, 3]
    shared = GAME.outcome(finished((big, tiny), (tiny, big)))
    assert shared.winners == [0, 1] and shared.ranks == [1, 1]


def test_the_rulebook_example_scores_17_in_the_view_and_the_outcome():
    """Rulebook, 'Приклад підрахунку очок': 11 pieces, cards 28, 9, 4 and temple 2."""
    example = coatl("hB bB bY bB bB bR bR bB bB bY tY", cards=(card(28), card(9), card(4)), status="closed",
                    temple=2)
    state = finished((example,), ())
    assert GAME.view(state, 1).players[0].coatls[0].value == 17
    assert GAME.outcome(state).scores == [17, 0]
