"""The view a front end draws from: every face-up card carries its printed data, not only its id
(spec: Setup 3-4, "the rest form two face-up piles", "reveal a row of 6"; issue 11 section 2)."""

import msgspec
from msgspec.structs import replace

from domain.coatl import components as C
from domain.coatl.game import GAME
from domain.coatl.view import CoatlView
from tests.domain.coatl.builders import card, coatl, in_play, rig


def printed_prophecy(card_id):
    face = C.PROPHECIES[C.CARD_TYPE[card_id]]
    return {"id": card_id, "type": face.type, "card_color": face.card_color, "kind": face.kind,
            "pattern": face.pattern, "points": face.points, "promo": face.promo}


def printed_temple(temple):
    face = C.TEMPLES[temple]
    return {"id": temple, "type": temple, "requirements": face.requirements,
            "points_by_requirements_met": face.points_by_requirements_met, "promo": face.promo}


def fields(struct):
    return {f: getattr(struct, f) for f in struct.__struct_fields__}


def test_every_face_up_prophecy_and_temple_card_shows_its_printed_data():
    beside = coatl("hB bB tB", cards=(card(4), card(9)), status="closed", temple=7)
    state = rig(in_play(), 0, hand=(card(14), card(49)), temples=(3,), coatls=(beside,))
    state = replace(state, hidden=replace(state.hidden, piles=((2, 9), (5,))))
    view = GAME.view(state, 0)
    assert [fields(c) for c in view.row] == [printed_prophecy(c) for c in state.row]
    me = view.players[0]
    assert [fields(c) for c in me.hand] == [printed_prophecy(card(14)), printed_prophecy(card(49))]
    assert [fields(t) for t in me.temples] == [printed_temple(3)]
    assert [fields(c) for c in me.coatls[0].cards] == [printed_prophecy(card(4)), printed_prophecy(card(9))]
    assert fields(me.coatls[0].temple) == printed_temple(7)
    assert [fields(t) for t in view.pile_tops] == [printed_temple(2), printed_temple(5)]


def test_the_view_is_one_envelope_with_the_callers_seat_and_a_published_type():
    state = rig(in_play(3), 1, hand=(card(5),))
    wire = msgspec.json.encode(GAME.view(state, 1))
    decoded = msgspec.json.decode(wire, type=GAME.view_type)
    assert isinstance(decoded, CoatlView) and decoded.seat == 1 and decoded.to_act == [0]
    data = msgspec.json.decode(wire)
    assert data["kind"] == "coatl" and data["scores"] == [0, 0, 0] and data["phase"] == "play"
    assert data["players"][1]["hand"] == [{"id": card(5), "type": 5, "card_color": "black", "kind": "isolated_pair",
                                           "pattern": ["NOT yellow", "yellow", "yellow", "NOT yellow"],
                                           "points": {"1": 2, "2": 5}, "promo": False}]
    assert data["players"][0]["hand"] is None and GAME.view(state, None).seat is None


def test_an_opening_hand_size_is_the_deal_until_the_choice_then_the_kept_cards_or_null_for_the_others():
    """Setup 5: the fourth player is dealt 6 and keeps at most 3, in secret. Once seat 1 kept 2 of its 4,
    its own view says 2 (it said 4: more than the rules let it hold) and the others' say null, not 4."""
    from domain.coatl.commands import KeepProphecies
    from domain.coatl.options import CoatlOptions
    from tests.support.rules import started, when

    state = started(GAME, CoatlOptions(), 2, b"deal")
    assert [p.hand_size for p in GAME.view(state, None).players] == [3, 4]
    state, _ = when(GAME, state, 1, KeepProphecies(cards=tuple(sorted(state.hidden.dealt[1])[:2])))
    own = GAME.view(state, 1).players[1]
    assert own.hand_size == 2 == len(own.hand) and own.dealt is not None and len(own.dealt) == 4
    assert GAME.view(state, 0).players[1].hand_size is None and GAME.view(state, None).players[1].hand_size is None
    assert GAME.view(state, 1).players[0].hand_size == 3  # seat 0 has not chosen: its deal is public
    state, _ = when(GAME, state, 0, KeepProphecies(cards=()))
    assert [p.hand_size for p in GAME.view(state, None).players] == [0, 2]
