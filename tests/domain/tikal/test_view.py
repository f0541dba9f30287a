"""What a front end draws from: the view's envelope and every face-up tile with its printed data.

tikal.md: the tiles are laid face up; a drawn tile is shown to all, the auction's revealed
tiles lie face up, and every placed tile shows its type, path stones, temple value and masks.
"""

import msgspec

from domain.tikal.commands import Bid, EndTurn, EnterPiece, Pass, PlaceTile
from domain.tikal.components import TileSpec
from domain.tikal.events import AuctionOpened, TilesRevealed
from domain.tikal.game import GAME

from tests.domain.tikal.support import opening
from tests.support.rules import given, when

A2 = TileSpec(id="A2", letter="A", kind="ruins", stones=(0, 0, 0, 2, 0, 1), masks=4)


def test_the_tile_in_hand_shows_its_printed_type_stones_value_and_masks():
    view = GAME.view(given(GAME, *opening(stack=["A2", "A1"])), 1)
    assert view.hand == A2
    shown = msgspec.json.decode(msgspec.json.encode(view))
    assert shown["kind"] == "tikal" and shown["seat"] == 1 and shown["to_act"] == [0] and shown["scores"] == [0, 0]
    assert shown["hand"] == {"id": "A2", "letter": "A", "kind": "ruins", "stones": [0, 0, 0, 2, 0, 1], "value": 0,
                             "masks": 4}


def test_a_placed_tile_shows_its_printed_face_its_turn_and_its_stones_as_turned():
    state, _ = when(GAME, given(GAME, *opening(stack=["A2", "A1"])), 0, PlaceTile(1, -2, 1))
    space = next(s for s in GAME.view(state, None).board if (s.q, s.r) == (1, -2))
    assert space.tile == A2 and space.rotation == 1 and space.stones == (1, 0, 0, 0, 2, 0) and space.tokens == 4
    temple = next(s for s in GAME.view(state, None).board if (s.q, s.r) == (0, -1))
    assert temple.tile.kind == "temple" and temple.tile.value == 1 and temple.tile.id == "start_temple_n"


def test_the_auction_row_shows_each_revealed_tile_printed():
    state = given(GAME, *opening(seats=2, stack=["A2", "A1", "A3"], variant="auction", start_score=20),
                  TilesRevealed(tiles=["A2", "A1"]), AuctionOpened(bidders=[0, 1]))
    row = GAME.view(state, 0).revealed
    assert row[0] == A2 and row[1].id == "A1" and row[1].kind == "temple" and row[1].stones == (0, 0, 0, 2, 1, 0)
    assert GAME.view(state, 0).scores == [20, 20] and GAME.view(state, 0).phase == "auction"


def test_the_printed_start_spaces_and_the_classic_volcano_show_their_printed_data():
    board = GAME.view(given(GAME, *opening(stack=["A2", "A1"], edition="classic")), None).board
    printed = {(s.q, s.r): s.tile for s in board}
    assert printed[(0, 0)] == TileSpec(id="base_camp", letter="", kind="base_camp", stones=(1, 1, 1, 0, 0, 0))
    assert printed[(4, -1)].id == "printed_volcano" and printed[(4, -1)].kind == "volcano"
    assert all(s.stones == s.tile.stones and s.rotation == 0 for s in board)


def test_ap_left_counts_the_whole_turn_while_the_tile_is_still_to_be_placed():
    """tikal.md, A turn: draw and place the tile, then spend up to 10 AP. While the tile is in hand none of
    the turn's 10 AP is spent, so the view says 10 (it said 0); the rulebook's first turn then spends them."""
    state = given(GAME, *opening(stack=["A2", "A1", "A3"]))
    assert state.phase == "place" and GAME.view(state, 0).ap_left == 10
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 1))
    assert GAME.view(state, None).ap_left == 10
    state, _ = when(GAME, state, 0, EnterPiece(0, 0, leader=True))
    assert GAME.view(state, 1).ap_left == 9
    state, _ = when(GAME, state, 0, EndTurn())
    assert state.phase == "place" and state.current == 1 and GAME.view(state, 1).ap_left == 10


def test_ap_left_is_zero_while_an_auction_runs_and_ten_for_the_tile_its_winner_takes():
    """tikal.md, auction variant: bids spend no action points; the winner takes a tile, places it, and
    then takes his 10-AP turn."""
    state = given(GAME, *opening(seats=2, stack=["A2", "A1", "A3"], variant="auction", start_score=20),
                  TilesRevealed(tiles=["A2", "A1"]), AuctionOpened(bidders=[0, 1]))
    assert state.phase == "auction" and GAME.view(state, 0).ap_left == 0
    state, _ = when(GAME, state, 0, Bid(1))
    state, _ = when(GAME, state, 1, Pass())
    assert state.phase == "take" and GAME.view(state, 0).ap_left == 10
