"""Opening hands, taking pieces and choosing prophecy cards (spec: Setup 5, A turn 1-2)."""

import pytest
from msgspec.structs import replace

from domain.coatl.commands import CloseCoatl, EndTurn, KeepProphecies, PlayTemple, TakePieces, TakeProphecy
from domain.coatl.events import (DeckReshuffled, Disc, DiscRefilled, EndTriggered, OpeningHandKept,
                                 OpeningHandsSettled,
                                 RowRefilled, TurnEnded, TurnStarted)
from domain.coatl.game import GAME
from domain.coatl.state import Bags
from domain.kernel import Rng, RuleViolation
from domain.coatl.options import CoatlOptions
from tests.domain.coatl.builders import card, coatl, in_play, rig
from tests.support.rules import refused, started, when


def test_opening_hands_are_3_4_5_6_in_turn_order_and_every_seat_decides_at_once():
    """Setup 7: deal 3/4/5/6 cards to the 1st/2nd/3rd/4th player; each keeps at most 3."""
    state = started(GAME, CoatlOptions(random_first_player=True), 4, b"deal")
    sizes = {(seat - state.first_player) % 4: len(state.hidden.dealt[seat]) for seat in range(4)}
    assert sizes == {0: 3, 1: 4, 2: 5, 3: 6}
    assert GAME.to_act(state) == frozenset({0, 1, 2, 3})
    assert len(GAME.legal(state, (state.first_player + 3) % 4)) == 1 + 6 + 15 + 20


def test_keep_decisions_stay_secret_until_all_have_decided_then_the_first_player_starts():
    state = started(GAME, CoatlOptions(), 2, b"deal")
    dealt = state.hidden.dealt[1]
    state, events = when(GAME, state, 1, KeepProphecies(cards=tuple(sorted(dealt)[:2])))
    assert GAME.to_act(state) == frozenset({0})
    assert GAME.redact(events[0], 0) == OpeningHandKept(seat=1)
    assert GAME.view(state, 0).players[1].hand_size is None and GAME.view(state, 0).players[1].hand is None
    refused(GAME, state, 1, KeepProphecies(cards=()), "coatl.already_decided")
    refused(GAME, state, 0, KeepProphecies(cards=state.hidden.dealt[0][:1] * 2), "coatl.not_dealt")
    refused(GAME, started(GAME, CoatlOptions(), 2, b"deal"), 1, KeepProphecies(cards=dealt), "coatl.keep_limit")
    state, events = when(GAME, state, 0, KeepProphecies(cards=()))
    assert events[1:] == [OpeningHandsSettled(hand_sizes=(0, 2)), TurnStarted(seat=0, actions=1)]
    assert state.hidden.hands == ((), tuple(sorted(dealt)[:2])) and len(state.hidden.discard) == 5


def test_kept_opening_cards_are_a_set_named_in_any_order_and_recorded_in_increasing_order():
    state = started(GAME, CoatlOptions(), 2, b"deal")
    two = tuple(sorted(state.hidden.dealt[1])[:2])
    after, events = when(GAME, state, 1, KeepProphecies(cards=two[::-1]))  # refused as coatl.not_dealt before
    assert events[0] == OpeningHandKept(seat=1, kept=two, discarded=events[0].discarded)
    assert after == when(GAME, state, 1, KeepProphecies(cards=two))[0]


def test_taking_a_body_slot_takes_both_segments_onto_the_board():
    state = in_play()
    body = state.disc.bodies[0]
    state, events = when(GAME, state, 0, TakePieces(slot="body", index=0))
    assert sorted(p.color for p in state.players[0].board) == sorted(body)
    assert state.disc.bodies[0] == () and isinstance(events[-1], TurnStarted) and state.turn.seat == 1


def test_a_board_holds_at_most_8_pieces():
    """Take pieces: you need room for all you take."""
    state = rig(in_play(), 0, board="bY bY bY bY bY bY bY")
    refused(GAME, state, 0, TakePieces(slot="body", index=0), "coatl.board_full")
    assert TakePieces(slot="head", index=0) in GAME.legal(state, 0)
    assert TakePieces(slot="body", index=0) not in GAME.legal(state, 0)


def test_empty_slots_are_not_taken():
    state = in_play()
    state = replace(state, disc=replace(state.disc, heads=(None, "red")))
    refused(GAME, state, 0, TakePieces(slot="head", index=0), "coatl.empty_slot")
    refused(GAME, state, 0, TakePieces(slot="head", index=5), "coatl.no_such_slot")


def test_the_disc_is_refilled_when_it_has_no_heads_and_no_tails_left():
    state = in_play()
    state = replace(state, disc=replace(state.disc, heads=(None, None), tails=(None, "red")),
                    hidden=replace(state.hidden, bags=replace(state.hidden.bags, tail=(3, 2, 3, 3, 3))))
    after, events = when(GAME, state, 0, TakePieces(slot="tail", index=1))
    refill = [e for e in events if isinstance(e, DiscRefilled)]
    assert len(refill) == 1 and None not in after.disc.heads and None not in after.disc.tails


def test_the_disc_is_not_refilled_while_it_has_body_segments_and_a_head_or_tail():
    state = in_play()
    after, events = when(GAME, state, 0, TakePieces(slot="head", index=0))
    assert not any(isinstance(e, DiscRefilled) for e in events) and after.disc.heads[0] is None


def test_short_bags_fill_what_they_can_and_body_slots_only_with_two():
    """Rulebook: if the bags run short, fill every slot you can (body slots always with 2)."""
    state = in_play()
    empty_disc = Disc(heads=(None, None), tails=(None, None), bodies=(("red", "red"),) + ((),) * 5)
    state = replace(state, disc=empty_disc, hidden=replace(state.hidden, bags=Bags(
        head=(1, 0, 0, 0, 0), tail=(0, 0, 0, 0, 0), body=(0, 2, 0, 0, 0))))
    after, events = when(GAME, state, 0, TakePieces(slot="body", index=0))
    assert after.disc == Disc(heads=("yellow", None), tails=(None, None), bodies=(("red", "red"),) + ((),) * 5)


def test_choosing_prophecy_cards_goes_up_to_a_hand_of_5_and_the_row_is_refilled_at_turn_end():
    state = rig(in_play(), 0, hand=(50, 51, 52))
    first, second = state.row[0], state.row[1]
    state, _ = when(GAME, state, 0, TakeProphecy(card=first))
    deck_top = state.hidden.deck[0]
    state, _ = when(GAME, state, 0, TakeProphecy(card=None))
    assert state.hidden.hands[0] == (50, 51, 52, first, deck_top)
    refused(GAME, state, 0, TakeProphecy(card=second), "coatl.hand_limit")
    state, events = when(GAME, state, 0, EndTurn())
    assert len(state.row) == 6 and isinstance(events[0], RowRefilled) and isinstance(events[1], TurnEnded)


def test_the_discards_are_reshuffled_when_the_deck_runs_out():
    state = in_play()
    state = replace(state, hidden=replace(state.hidden, deck=()))
    after, events = when(GAME, state, 0, TakeProphecy(card=None))
    assert isinstance(events[1], DeckReshuffled) and GAME.redact(events[1], 0).deck is None
    assert after.hidden.hands[0][0] == events[1].deck[0]
    empty = replace(state, hidden=replace(state.hidden, discard=()))
    refused(GAME, empty, 0, TakeProphecy(card=None), "coatl.deck_empty")


def test_only_the_seat_whose_turn_it_is_acts():
    state = in_play()
    refused(GAME, state, 1, TakePieces(slot="head", index=0), "coatl.not_your_turn")
    refused(GAME, state, 0, KeepProphecies(cards=()), "coatl.wrong_phase")
    assert GAME.legal(state, 1) == [] and GAME.to_act(state) == frozenset({0})


def test_one_action_per_turn():
    state = in_play()
    state, _ = when(GAME, state, 0, TakeProphecy(card=state.row[0]))
    refused(GAME, state, 0, TakePieces(slot="head", index=0), "coatl.no_action_left")
    assert all(isinstance(c, (TakeProphecy, EndTurn)) for c in GAME.legal(state, 0))


def test_view_shows_own_hand_and_temples_and_others_only_their_sizes():
    state = rig(in_play(), 1, hand=(7, 8), temples=(3, 9))
    mine, theirs, spectator = GAME.view(state, 1), GAME.view(state, 0), GAME.view(state, None)
    assert [c.id for c in mine.players[1].hand] == [7, 8] and [t.id for t in mine.players[1].temples] == [3, 9]
    assert theirs.players[1].hand is None and theirs.players[1].hand_size == 2
    assert theirs.players[1].temples is None and theirs.players[1].temple_count == 2
    assert all(p.hand is None for p in spectator.players)


def test_a_turn_is_one_action_so_a_seat_passes_only_when_it_can_do_nothing():
    """Ruling: 'each player chooses and performs one action'; a pass is allowed only when none is possible."""
    state = in_play()
    refused(GAME, state, 0, EndTurn(), "coatl.must_act")
    assert EndTurn() not in GAME.legal(state, 0)


def stuck(state, seat):
    """A full board of tails, two head-ended coatls no hand card fits, a full hand, no tokens."""
    blocked = (coatl("hY bY"), coatl("hR bR"))
    return rig(state, seat, board="tB tB tB tB tB tB tB tB", coatls=blocked, hand=(card(2), card(3), card(12),
                                                                                    card(13), card(7)), tokens=())


def test_when_every_seat_in_a_row_can_only_pass_the_game_ends():
    """Ruling: a full round of forced passes means nothing can change any more: the game ends (stalled)."""
    state = stuck(stuck(in_play(), 0), 1)
    assert GAME.legal(state, 0) == [EndTurn()]
    state, _ = when(GAME, state, 0, EndTurn())
    assert state.passes == 1 and state.phase == "play"
    state, events = when(GAME, state, 1, EndTurn())
    assert events[-2] == EndTriggered(condition="stalled", seat=1, last_turns=())
    assert state.phase == "over" and GAME.outcome(state).details["end_condition"] == "stalled"


def test_bad_seat_counts_are_refused():
    with pytest.raises(RuleViolation) as exc:
        GAME.setup(CoatlOptions(), 5, Rng(b"s", 0))
    assert exc.value.code == "coatl.bad_options"


def test_row_cards_must_be_in_the_row_and_temples_wait_for_a_completed_coatl():
    state = in_play()
    missing = next(c for c in range(54) if c not in state.row)
    refused(GAME, state, 0, TakeProphecy(card=missing), "coatl.not_in_row")
    refused(GAME, state, 0, CloseCoatl(), "coatl.not_completing")
    refused(GAME, state, 0, PlayTemple(temple=state.hidden.temples[0][0]), "coatl.not_completing")
