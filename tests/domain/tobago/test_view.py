"""What a seat sees (spec, *Hidden information*; DESIGN, "Views"): every face-up component with its printed
data inline -- clue cards on the maps and in the viewer's own hand, treasure cards when revealed in a share
and in the viewer's own pile, amulets on the island -- and nothing secret of another seat."""

import msgspec
from msgspec.structs import replace

from domain.simulate import play_random
from domain.table import Table
from domain.tobago.commands import CollectTreasure, PlaceAtv
from domain.tobago.components import CATALOGUE, CLUES, ClueCard, TreasureCard
from domain.tobago.events import CandidateRemoved, CluePlayed, CurseStruck, DecksShuffled, TreasuresDrawn
from domain.tobago.game import GAME
from domain.tobago.view import TobagoView
from tests.domain.tobago.support import table
from tests.support.rules import then, when

DECK = ["C01", "C13", "C07", "C02", "C03", "C04", "C05", "C30", "C06", "C08", "C09", "C28", "C10", "C11", "C12"]


def placed() -> object:
    state = table(3, DECK)
    for seat, h in enumerate((101, 0, 1)):
        state = when(GAME, state, seat, PlaceAtv(hex=h))[0]
    return state


def test_clue_cards_on_the_maps_and_in_the_own_hand_carry_what_the_clue_says():
    view = GAME.view(placed(), 1)
    assert isinstance(view, TobagoView) and view.seat == 1
    assert msgspec.json.decode(msgspec.json.encode(view))["kind"] == "tobago"
    top = view.maps[0].clues[0]
    assert top.card == ClueCard(id="C01", relation="in", target="jungle", big=False, text="in the jungle")
    assert (top.seat, top.roses) == (0, 1)
    assert [c.id for c in view.private.hand] == DECK[7:11]
    assert all(c == CLUES[c.id] for c in view.private.hand) and all(c.text for c in view.private.hand)
    assert view.maps[2].clues[0].card.text == "in the big jungle"  # C07, the brown map's starting clue
    assert {c.id for c in CATALOGUE.clue_cards} == set(CLUES) and len(CATALOGUE.clue_cards) == 52


def test_a_revealed_share_card_and_the_own_treasure_pile_show_their_gold():
    state = then(GAME, placed(), CluePlayed(seat=1, map=0, card="C30"), CluePlayed(seat=2, map=0, card="C28"),
                 CandidateRemoved(seat=0, map=0, hex=32))
    state = when(GAME, state, 0, CollectTreasure(map=0))[0]
    card = GAME.view(state, None).share.card
    assert card is not None and card.kind in ("treasure", "curse") and card.gold == state.share.card
    state = replace(state, hidden=replace(state.hidden, private=(
        replace(state.hidden.private[0], treasures=(3, 6)),) + state.hidden.private[1:]))
    mine = GAME.view(state, 0)
    assert mine.private.treasures == [TreasureCard(kind="treasure", gold=3), TreasureCard(kind="treasure", gold=6)]
    assert mine.private.gold == 9 and mine.scores[0] == 9
    assert GAME.view(state, 1).scores[0] is None and GAME.view(state, 1).players[0].treasure_count == 2


def test_amulets_on_the_island_show_the_powers_they_grant():
    state = replace(placed(), amulets=(5,), amulet_supply=20)
    (amulet,) = GAME.view(state, None).amulets
    assert amulet.hex == 5 and set(amulet.powers) == {"clue", "step", "remove", "exchange"}
    advanced = replace(state, options=replace(state.options, advanced_amulets=True))
    assert {"double", "swap"} <= set(GAME.view(advanced, None).amulets[0].powers)


def test_views_and_redacted_events_hide_every_other_seats_secrets():
    tables = Table(GAME)
    result = play_random(tables, {"curse_effect": "amulet_holders"}, 3, b"secret", check_views=False, alternatives=0)
    assert result.error is None
    state = None
    for event in result.events:
        state = tables.evolve(state, event)
        if state.game is None or state.status != "active":
            continue
        game = state.game
        for seat in (None, 0, 1, 2):
            view = GAME.view(game, seat)
            text = msgspec.json.encode(view).decode()
            others = [c for s, p in enumerate(game.hidden.private) if s != seat for c in p.hand]
            assert not any(f'"{c}"' in text for c in others)
            assert (view.private is None) == (seat is None)
            redacted = tables.redact(event, seat, public=False)
            if isinstance(event, DecksShuffled):
                assert redacted.clue_deck is None and redacted.treasure_deck is None
            if isinstance(event, TreasuresDrawn) and (event.seat != seat or event.extra):
                assert redacted.cards is None
            if isinstance(event, CurseStruck):
                assert all(v is None for s, v in zip(redacted.treasure_losers, redacted.lost_values) if s != seat)

