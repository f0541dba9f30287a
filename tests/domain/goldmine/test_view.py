"""Views: every face-up tile shows its printed data, and nothing hidden leaks (spec "Components",
"Hidden information"; issue 11 section 2)."""

import msgspec
import pytest

from domain.goldmine.components import CATALOGUE, face
from domain.goldmine.events import TileDrawn
from domain.goldmine.game import GAME
from domain.goldmine.options import GoldmineOptions
from domain.goldmine.view import GoldmineView
from domain.simulate import play_random
from domain.table import Table
from tests.domain.goldmine.support import at, cave
from tests.support.rules import started

TABLE = Table(GAME)


def test_tiles_on_the_board_show_their_sides_chambers_passages_and_mud_beside_the_id():
    state = cave([("G1#1", 0, -1, 2), ("T01s#1", 0, 1, 0), ("T01m#1", 1, 0, 1)], mud=True)
    shown = msgspec.json.decode(msgspec.json.encode(GAME.view(state, 0)))
    tiles = {cell["tile"]["id"]: cell for cell in shown["board"]}
    assert tiles["E1#1"]["tile"]["kind"] == "entrance"
    assert tiles["G1#1"]["rotation"] == 2 and tiles["G1#1"]["coin"] is True
    assert tiles["G1#1"]["tile"]["kind"] == "gold" and any(p["chamber"] for p in tiles["G1#1"]["tile"]["paths"])
    assert tiles["T01s#1"]["tile"]["paths"][0] == {"sides": ["N", "S"], "chamber": False, "secret": True,
                                                  "mud": False}
    assert any(p["mud"] for p in tiles["T01m#1"]["tile"]["paths"])
    assert shown["kind"] == "goldmine" and shown["seat"] == 0 and shown["to_act"] == [0]
    assert msgspec.json.decode(msgspec.json.encode(GAME.view(state, None)), type=GoldmineView).seat is None


def test_five_tiles_hands_and_the_drawn_tile_show_their_printed_data():
    state = started(GAME, GoldmineOptions(mud=True, five_tiles=True), 3)
    assert state.phase == "scout" and GAME.view(state, None).drawn == face(state.drawn)
    hands = GAME.view(state, 1).hands
    assert [[t.id for t in hand] for hand in hands] == [list(hand) for hand in state.hands]
    assert hands[0][0].kind == "cavern" and all(t == face(t.id) for hand in hands for t in hand)


def test_the_catalogue_lists_every_tile_of_the_box_with_its_printed_data():
    assert len(CATALOGUE.tiles) == 100 and CATALOGUE.coins == 28
    kinds = [t.kind for t in CATALOGUE.tiles]
    assert (kinds.count("entrance"), kinds.count("cavern"), kinds.count("tunnel"), kinds.count("gold")) == \
        (1, 4, 67, 28)
    assert sum(any(p.secret for p in t.paths) for t in CATALOGUE.tiles) == 15


def test_a_scores_entry_is_the_coins_each_pirate_holds():
    state = cave([], pirates={1: at((0, 0, 0), coins=3)})
    assert GAME.view(state, 1).scores == [0, 3]


@pytest.mark.parametrize("options,players", [({}, 2), ({"mud": True, "five_tiles": True}, 3),
                                             ({"alliances": True}, 6)])
def test_no_view_or_redacted_event_reveals_the_stack_order_or_undrawn_tiles(options, players):
    # spec "Hidden information": the stack order and the 20 scout tiles before they are drawn
    played = play_random(TABLE, {**options, "max_rounds": 20}, players, b"secret", check_views=False)
    assert played.error is None
    state, seen = None, set()
    for event in played.events:
        state = TABLE.evolve(state, event)
        if isinstance(event, TileDrawn):
            seen.add(event.tile)
        if state.game is None or state.status != "active":
            continue
        hidden = state.game.hidden
        order = [*hidden.stack, *hidden.scout]
        secrets = [f'"{t}"'.encode() for t in order if t not in seen]
        pairs = [f'"{a}","{b}"'.encode() for a, b in zip(order, order[1:])]
        for seat in [None, *range(players)]:
            shown = msgspec.json.encode(TABLE.view(state, seat)) + msgspec.json.encode(
                TABLE.redact(event, seat, public=False))
            leaks = [s for s in secrets + pairs if s in shown]
            assert not leaks, f"seat {seat} sees {leaks[:3]} in {type(event).__name__}"
