"""The actions of a 10-AP phase and their conditions (tikal.md "Actions and costs", "Placing tiles")."""

import msgspec
import pytest

from domain.tikal.commands import (Bid, BuildCamp, CampMove, DigTreasure, EndTurn, EnterPiece, MovePiece, PlaceTile,
                                   TradeTreasure, UncoverLevel)
from domain.tikal.events import CampBuilt, TileDrawn, TilePlaced, TreasureDug
from domain.tikal.game import GAME
from domain.tikal.rules_place import legal_placements

from tests.domain.tikal.support import at, opening, walk
from tests.support.rules import given, refused, when

CLEARING = (1, -1)
RUINS = TilePlaced(seat=0, tile="A2", q=1, r=-2, rotation=1, tokens=4)  # 1 stone from the clearing


def started(*events, seats: int = 2):
    """Seat 0 has placed A3 on (2,-2) and has 10 AP; `events` then build the position."""
    state, _ = when(GAME, given(GAME, *opening(seats=seats, stack=["A3", "A1", "A4"])), 0, PlaceTile(2, -2, 0))
    for event in events:
        state = GAME.evolve(state, event)
    return state


def test_commands_out_of_turn_or_out_of_phase_are_refused():
    state = given(GAME, *opening(stack=["A3", "A1"]))
    refused(GAME, state, 1, PlaceTile(1, -2, 0), "tikal.not_your_turn")
    refused(GAME, state, 0, EndTurn(), "tikal.wrong_phase")
    refused(GAME, state, 0, PlaceTile(0, 0, 0), "tikal.space_taken")
    refused(GAME, state, 0, PlaceTile(7, -7, 0), "tikal.not_adjacent")
    refused(GAME, state, 0, PlaceTile(9, 9, 0), "tikal.no_such_space")
    refused(GAME, state, 0, PlaceTile(1, -2, 6), "tikal.bad_rotation")
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    refused(GAME, state, 0, Bid(1), "tikal.wrong_phase")


def test_new_pieces_enter_only_on_the_base_camp_or_own_camps_and_camp_moves_cost_one():
    state = started(*walk(0, CLEARING), CampBuilt(seat=1, q=1, r=-1, cost=0))
    refused(GAME, state, 0, EnterPiece(1, -1), "tikal.not_a_camp")
    refused(GAME, state, 0, CampMove(0, 0, 1, -1), "tikal.not_a_camp")
    state = started(*walk(0, CLEARING), CampBuilt(seat=0, q=1, r=-1, cost=0))
    state, events = when(GAME, state, 0, EnterPiece(1, -1))
    state, events = when(GAME, state, 0, CampMove(1, -1, 0, 0))
    assert events[0].cost == 1 and events[0].by_camp and state.ap == 8
    refused(GAME, state, 0, BuildCamp(1, -1), "tikal.camp_exists")


def test_camps_need_a_piece_on_a_clearing_and_at_most_two_are_built():
    state = started(*walk(0, CLEARING), *walk(0, (0, -1)))
    refused(GAME, state, 0, BuildCamp(0, -1), "tikal.not_a_clearing")
    refused(GAME, state, 1, BuildCamp(1, -1), "tikal.not_your_turn")
    state, events = when(GAME, state, 0, BuildCamp(1, -1))
    assert at(state, 1, -1).camp == 0 and state.ap == 5
    full = started(*walk(0, CLEARING), CampBuilt(seat=0, q=2, r=-2, cost=0), CampBuilt(seat=0, q=0, r=0, cost=0))
    refused(GAME, full, 0, BuildCamp(1, -1), "tikal.no_camp_left")


def test_an_emptied_ruins_becomes_a_clearing_for_camps():
    dug = [TreasureDug(seat=0, q=1, r=-2, treasure=k, cost=0) for k in ("T1", "T1", "T1")]
    state = msgspec.structs.replace(started(RUINS, *walk(0, (1, -2), 2), *dug), acted=())  # dug in earlier turns
    state, _ = when(GAME, state, 0, DigTreasure(1, -2))
    assert at(state, 1, -2).kind == "clearing" and at(state, 1, -2).tokens == 0
    refused(GAME, state, 0, DigTreasure(1, -2), "tikal.no_treasure_there")
    state, _ = when(GAME, state, 0, BuildCamp(1, -2))
    GAME.invariants(state)


def test_moves_never_cross_a_volcano_and_need_stones():
    volcano = TilePlaced(seat=0, tile="B1", q=1, r=-2, rotation=0)
    state = started(volcano, *walk(0, CLEARING))
    refused(GAME, state, 0, MovePiece(1, -1, 1, -2), "tikal.no_path")
    refused(GAME, state, 0, MovePiece(1, -1, 1, -1), "tikal.same_space")
    refused(GAME, state, 0, MovePiece(0, 0, 1, -1), "tikal.no_piece_there")


def test_the_level_supply_is_finite():
    """Rules: the next level's number must be in the supply."""
    state = started(*walk(0, (0, -1), 2))
    state = msgspec.structs.replace(state, levels=(0,) + state.levels[1:])
    refused(GAME, state, 0, UncoverLevel(0, -1), "tikal.no_level_left")
    with pytest.raises(AssertionError):
        GAME.invariants(state)


def test_trades_swap_single_tokens_and_cannot_be_refused():
    """Rules: "Если у игрока есть 2 или больше сокровищ одного типа, обменивать их нельзя"."""
    tokens = [RUINS, TreasureDug(seat=0, q=1, r=-2, treasure="T1", cost=0),
              TreasureDug(seat=1, q=1, r=-2, treasure="T1", cost=0), TreasureDug(seat=1, q=1, r=-2, treasure="T2", cost=0)]
    state = started(*tokens)
    refused(GAME, state, 0, TradeTreasure(1, "T1", "T1"), "tikal.bad_trade")
    refused(GAME, state, 0, TradeTreasure(0, "T1", "T2"), "tikal.bad_trade")
    refused(GAME, state, 0, TradeTreasure(1, "T1", "T3"), "tikal.not_single_treasure")
    state, _ = when(GAME, state, 0, TradeTreasure(1, "T1", "T2"))
    assert state.players[0].treasures[:2] == (0, 1) and state.players[1].treasures[:2] == (2, 0)
    refused(GAME, state, 0, TradeTreasure(1, "T2", "T1"), "tikal.not_single_treasure")


def test_a_drawn_tile_with_no_legal_space_may_go_on_any_space_next_to_a_tile():
    """Ruling in tikal.md: the board has as many spaces as tiles, so the last tiles can be forced."""
    state = given(GAME, *opening(stack=["C2"]))
    strict = legal_placements(state)
    assert all(q_r in {(q, r) for q, r, _ in strict} for q_r in [(1, -2)])
    blocked = msgspec.structs.replace(state, board=tuple(  # every neighbour a volcano: no path anywhere
        msgspec.structs.replace(s, kind="volcano") for s in state.board))
    forced = legal_placements(blocked)
    assert len(forced) == 4 * 6  # four empty spaces touch the start spaces
    _, events = when(GAME, blocked, 0, PlaceTile(*forced[0]))
    assert events[0].forced


def test_classic_volcano_next_to_a_volcano_may_not_cut_spaces_off():
    """tikal.md "Edition differences": cut off = not joined to the base camp by free or non-volcano spaces."""
    def position(edition):  # D3 lies on (1,-4); a volcano on (0,-3) would wall in the corner (0,-4)
        return given(GAME, *opening(stack=["A3", "B1"], edition=edition),
                     TilePlaced(seat=0, tile="D3", q=1, r=-4, rotation=0), TileDrawn(seat=1, tile="B1"))
    refused(GAME, position("classic"), 1, PlaceTile(0, -3, 0), "tikal.volcano_cuts_off")
    when(GAME, position("original"), 1, PlaceTile(0, -3, 0))
    when(GAME, position("classic"), 1, PlaceTile(0, -2, 0))  # next to no volcano: no restriction
