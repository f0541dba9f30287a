"""Sacrifice tokens: Perfect Choice, Foretelling, Priest's Duty (spec: A turn 4)."""

from msgspec.structs import replace

from domain.coatl.commands import (DiscardProphecy, EndTurn, Foretell, PerfectChoice, PriestsDuty, TakePieces,
                                   TakeProphecy)
from domain.coatl.events import DiscRefilled, ForetellingUsed, PriestsDutyUsed, RowRefilled
from domain.coatl.game import GAME
from domain.coatl.state import Bags
from tests.domain.coatl.builders import in_play, piece, rig
from tests.support.rules import refused, when


def test_tokens_are_off_when_the_option_is_off():
    state = in_play(sacrifice_tokens=False)
    refused(GAME, state, 0, Foretell(), "coatl.no_token")
    assert not any(isinstance(c, (Foretell, PerfectChoice, PriestsDuty)) for c in GAME.legal(state, 0))


def test_perfect_choice_takes_named_pieces_from_the_bag_then_refills_every_empty_slot():
    state = in_play()
    state = replace(state, disc=replace(state.disc, heads=(None, "red")))
    after, events = when(GAME, state, 0, PerfectChoice(kind="body", colors=("green", "green")))
    assert sorted(after.players[0].board) == [piece("bG"), piece("bG")]
    assert sum(after.hidden.bags.body) == sum(state.hidden.bags.body) - 2
    assert any(isinstance(e, DiscRefilled) for e in events) and None not in after.disc.heads
    assert "perfect_choice" not in after.players[0].tokens and after.turn.seat == 1


def test_perfect_choice_needs_the_pieces_in_the_bag_and_room_on_the_board():
    state = in_play()
    state = replace(state, hidden=replace(state.hidden, bags=Bags(head=(0, 1, 1, 1, 1), tail=(1,) * 5,
                                                                  body=(1, 4, 4, 4, 4))))
    refused(GAME, state, 0, PerfectChoice(kind="head", colors=("yellow",)), "coatl.not_in_bag")
    refused(GAME, state, 0, PerfectChoice(kind="body", colors=("yellow", "yellow")), "coatl.not_in_bag")
    refused(GAME, state, 0, PerfectChoice(kind="tail", colors=("yellow", "red")), "coatl.bad_pieces")
    assert PerfectChoice(kind="body", colors=("yellow", "red")) in GAME.legal(state, 0)
    full = rig(state, 0, board="bR bR bR bR bR bR bR")
    refused(GAME, full, 0, PerfectChoice(kind="body", colors=("red", "red")), "coatl.board_full")
    used = rig(state, 0, tokens=("foretell",))
    refused(GAME, used, 0, PerfectChoice(kind="tail", colors=("red",)), "coatl.no_token")


def test_foretelling_replaces_the_row_then_discards_from_the_hand_then_chooses():
    state = rig(in_play(), 0, hand=(40, 41, 42, 43, 44))
    old_row = state.row
    state, events = when(GAME, state, 0, Foretell())
    assert events[1] == ForetellingUsed(seat=0, discarded_row=old_row) and isinstance(events[2], RowRefilled)
    assert len(state.row) == 6 and not set(state.row) & set(old_row)
    refused(GAME, state, 0, TakeProphecy(card=state.row[0]), "coatl.hand_limit")
    state, _ = when(GAME, state, 0, DiscardProphecy(card=41))
    redacted = GAME.redact(when(GAME, state, 0, DiscardProphecy(card=42))[1][0], 1)
    assert redacted.card is None
    state, _ = when(GAME, state, 0, TakeProphecy(card=state.row[0]))
    refused(GAME, state, 0, DiscardProphecy(card=40), "coatl.cannot_discard")
    refused(GAME, state, 0, TakePieces(slot="head", index=0), "coatl.no_action_left")
    state, _ = when(GAME, state, 0, EndTurn())
    assert len(state.hidden.hands[0]) == 5 and len(state.row) == 6 and "foretell" not in state.players[0].tokens


def test_discarding_from_the_hand_is_only_part_of_foretelling():
    state = rig(in_play(), 0, hand=(40,))
    refused(GAME, state, 0, DiscardProphecy(card=40), "coatl.cannot_discard")


def test_priests_duty_takes_a_shared_temple_as_a_secret_personal_temple():
    state = replace(in_play(), hidden=replace(in_play().hidden, piles=((2, 9), (5,))))
    state = rig(state, 0, temples=(7,))
    after, events = when(GAME, state, 0, PriestsDuty(pile=0))
    assert events[1] == PriestsDutyUsed(seat=0, pile=0, temple=2, new_top=9)
    assert after.hidden.temples[0] == (7, 2) and after.hidden.piles == ((9,), (5,)) and after.turn.seat == 1
    assert GAME.redact(events[1], 1).temple is None and GAME.redact(events[1], 0).temple == 2
    assert GAME.view(after, 1).players[0].temple_count == 2 and GAME.view(after, 1).players[0].temples is None
    empty = replace(state, hidden=replace(state.hidden, piles=((), (5,))))
    refused(GAME, empty, 0, PriestsDuty(pile=0), "coatl.temple_not_available")
    refused(GAME, state, 0, PriestsDuty(pile=2), "coatl.no_such_pile")


def test_priests_duty_is_listed_for_a_pile_with_a_temple_only():
    """The fast listing (rules_listing) offers the duty on a pile exactly when decide accepts it: the one
    check of an empty pile that no golden playthrough reaches (the random-play listing runs do)."""
    state = replace(in_play(), hidden=replace(in_play().hidden, piles=((), (5,))))
    duties = [c for c in GAME.legal(state, 0) if isinstance(c, PriestsDuty)]
    assert duties == [PriestsDuty(pile=1)]
    when(GAME, state, 0, duties[0])
    both = replace(state, hidden=replace(state.hidden, piles=((2,), (5,))))
    assert [c for c in GAME.legal(both, 0) if isinstance(c, PriestsDuty)] == [PriestsDuty(pile=0), PriestsDuty(pile=1)]


def test_perfect_choice_colours_are_a_multiset_any_order_is_the_same_choice():
    """coatl.md, Perfect Choice: "take 1 head, or 1 tail, or 2 body segments of colours you name" --
    a choice of colours, not an order (issue 24: ["blue","green"] was refused)."""
    state = in_play()
    _, written_backwards = when(GAME, state, 0, PerfectChoice(kind="body", colors=("blue", "green")))
    _, in_data_order = when(GAME, state, 0, PerfectChoice(kind="body", colors=("green", "blue")))
    assert written_backwards == in_data_order
    bodies = [c.colors for c in GAME.legal(state, 0) if isinstance(c, PerfectChoice) and c.kind == "body"]
    assert len(bodies) == len({tuple(sorted(c)) for c in bodies}) == 15  # each pair of 5 colours once
