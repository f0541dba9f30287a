"""The rulebook's worked examples (tikal.md "Examples from the rulebook"), on this board's start spaces.

Board arithmetic (tikal-components.json): base camp (0,0) has paths of 2 stones
to the north temple (0,-1), 1 to the clearing (1,-1) and 2 to the south-east
temple (1,0).
"""

from domain.tikal.commands import DigTreasure, EndTurn, EnterPiece, MovePiece, PlaceGuard, PlaceTile, UncoverLevel
from domain.tikal.events import PieceEntered, PieceMoved, TileDrawn, TilePlaced
from domain.tikal.game import GAME
from domain.tikal.state import path_costs

from tests.domain.tikal.support import at, opening
from tests.support.rules import given, refused, when

BASE, TEMPLE_N, CLEARING = (0, 0), (0, -1), (1, -1)


def first_turn_state():
    # A2 is a ruins tile with 4 masks; turned once clockwise its south edge is stoneless, so
    # clearing (1 stone on its north edge) -> ruins costs 1.
    state = given(GAME, *opening(stack=["A2", "A1", "A3"]))
    state, events = when(GAME, state, 0, PlaceTile(1, -2, 1))
    assert isinstance(events[0], TilePlaced) and events[0].tokens == 4
    return state


def test_first_turn_spends_exactly_ten_action_points_and_an_eleventh_is_refused():
    """tikal.md: ruins next to the clearing; leader in (1), walk there (1+1), dig (3), second dig refused,
    two explorers in (2), one walks a 2-stone path to a temple (2): 10 AP in all."""
    state = first_turn_state()
    assert at(state, 1, -2).tokens == 4 and state.ap == 10
    state, _ = when(GAME, state, 0, EnterPiece(0, 0, leader=True))
    state, events = when(GAME, state, 0, MovePiece(0, 0, 1, -2, leader=True))
    assert events[0].cost == 2 and state.ap == 7
    state, events = when(GAME, state, 0, DigTreasure(1, -2))
    assert events[0].treasure == "T1" and state.players[0].treasures[0] == 1 and at(state, 1, -2).tokens == 3
    refused(GAME, state, 0, DigTreasure(1, -2), "tikal.needs_fresh_piece")
    state, _ = when(GAME, state, 0, EnterPiece(0, 0))
    state, _ = when(GAME, state, 0, EnterPiece(0, 0))
    state, events = when(GAME, state, 0, MovePiece(0, 0, 0, -1))
    assert events[0].cost == 2 and state.ap == 0
    refused(GAME, state, 0, EnterPiece(0, 0), "tikal.not_enough_action_points")
    assert GAME.legal(state, 0) == [EndTurn()]


def test_second_player_brings_two_explorers_to_a_temple_and_uncovers_two_levels():
    """tikal.md: 2 AP for two explorers, 4 AP moving both over a 2-stone path, 4 AP for two levels."""
    state = first_turn_state()
    state, _ = when(GAME, state, 0, EndTurn())
    assert state.current == 1 and state.hand == "A1"
    state, _ = when(GAME, state, 1, PlaceTile(2, -2, 1))
    for _ in range(2):
        state, _ = when(GAME, state, 1, EnterPiece(0, 0))
    for _ in range(2):
        state, events = when(GAME, state, 1, MovePiece(0, 0, 0, -1))
        assert events[0].cost == 2
    state, events = when(GAME, state, 1, UncoverLevel(0, -1))
    state, events = when(GAME, state, 1, UncoverLevel(0, -1))
    assert events[0].value == 3 and at(state, 0, -1).value == 3 and state.ap == 0
    assert state.levels[0] == 3 - 1 and state.levels[1] == 6 - 1  # one level 2 and one level 3 used


def test_a_third_level_on_one_temple_in_one_turn_is_refused_even_with_a_third_piece():
    """Rulebook: "Больше двух ступеней одной пирамиды изучить за один ход нельзя"."""
    state = given(GAME, *opening(stack=["A1", "A3"]),
                  *[PieceEntered(seat=0, q=0, r=0, leader=False, cost=0) for _ in range(3)],
                  *[PieceMoved(seat=0, from_q=0, from_r=0, to_q=0, to_r=-1, leader=False, cost=0) for _ in range(3)])
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    state, _ = when(GAME, state, 0, UncoverLevel(0, -1))
    state, _ = when(GAME, state, 0, UncoverLevel(0, -1))
    assert state.ap == 6
    refused(GAME, state, 0, UncoverLevel(0, -1), "tikal.third_level_this_turn")


def test_a_guard_is_refused_on_a_tie_in_strength_and_allowed_with_strict_majority():
    """Rulebook: the leader counts as three explorers; a guard needs more strength than every other player."""
    walk = dict(from_q=0, from_r=0, to_q=0, to_r=-1, cost=0)
    state = given(GAME, *opening(stack=["A1", "A3"]),
                  PieceEntered(seat=0, q=0, r=0, leader=True, cost=0), PieceMoved(seat=0, leader=True, **walk),
                  *[PieceEntered(seat=1, q=0, r=0, leader=False, cost=0) for _ in range(3)],
                  *[PieceMoved(seat=1, leader=False, **walk) for _ in range(3)],
                  PieceEntered(seat=0, q=0, r=0, leader=False, cost=0))
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    refused(GAME, state, 0, PlaceGuard(0, -1), "tikal.not_majority")
    state, _ = when(GAME, state, 0, MovePiece(0, 0, 0, -1))
    state, events = when(GAME, state, 0, PlaceGuard(0, -1))
    assert events[0].guard_is_leader is False and events[0].leader_removed is True
    temple = at(state, 0, -1)
    assert temple.guard == 0 and temple.explorers == (0, 3) and temple.leaders == (False, False)
    assert state.players[0].leader == "gone" and state.players[0].removed == 1
    assert state.ap == 3
    refused(GAME, state, 0, UncoverLevel(0, -1), "tikal.temple_guarded")


def test_a_three_stone_path_costs_three_but_a_two_stone_detour_is_taken():
    """Rulebook: "Можно выбрать альтернативный маршрут B и потратить только 2 ОД"."""
    state = given(GAME, *opening(stack=["A1", "A3", "C2"]),
                  TilePlaced(seat=0, tile="A1", q=2, r=-2, rotation=1),  # temple: SW edge 2 stones, NW 1
                  PieceEntered(seat=0, q=0, r=0, leader=False, cost=0),
                  PieceMoved(seat=0, from_q=0, from_r=0, to_q=1, to_r=-1, leader=False, cost=0))
    assert path_costs(state, CLEARING)[(2, -2)] == 3  # clearing NE 1 + temple SW 2, no detour yet
    state = given(GAME, *opening(stack=["A1", "A3", "C2"]),
                  TilePlaced(seat=0, tile="A1", q=2, r=-2, rotation=1),
                  TilePlaced(seat=0, tile="A3", q=1, r=-2, rotation=4),  # clearing: S 0, SE 0 stones
                  PieceEntered(seat=0, q=0, r=0, leader=False, cost=0),
                  PieceMoved(seat=0, from_q=0, from_r=0, to_q=1, to_r=-1, leader=False, cost=0))
    _, events = when(GAME, state, 0, MovePiece(1, -1, 2, -2))
    assert events[0].cost == 2


def test_a_volcano_may_go_next_to_a_stoneless_edge_where_other_tiles_may_not():
    """Rules: a tile needs a path to a neighbour; volcanoes ignore the path rule."""
    base = opening(stack=["C2", "C5", "B1"])
    placed = TilePlaced(seat=0, tile="C2", q=1, r=-2, rotation=0)  # only its south edge has stones
    state = given(GAME, *base, placed, TileDrawn(seat=1, tile="C5"))
    refused(GAME, state, 1, PlaceTile(2, -3, 0), "tikal.tile_needs_path")  # (2,-3) touches only C2's stoneless NE edge
    turned, _ = when(GAME, state, 1, PlaceTile(2, -3, 1))  # turned once: its SW edge carries the 3 stones
    assert at(turned, 2, -3).stones[4] == 3
    volcano = given(GAME, *base, placed, TileDrawn(seat=1, tile="B1"))
    volcano, events = when(GAME, volcano, 1, PlaceTile(2, -3, 0))
    assert at(volcano, 2, -3).kind == "volcano" and events[0].forced is False
