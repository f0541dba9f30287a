"""Placing tiles (spec "Placing a tile", "Setup"; rulebook "Разведывание пещеры", "Подготовка карты пещеры")."""

import pytest

from domain.goldmine.board import fits
from domain.goldmine.commands import Explore, PlaceTile
from domain.goldmine.components import ALL_TILES, COINS_TO_WIN
from domain.goldmine.draws import draw_scout
from domain.goldmine.events import FirstPlayerChosen, GameSetUp, TileDrawn, TilePlaced, TileReturned, TilesShuffled
from domain.goldmine.game import GAME
from domain.goldmine.options import GoldmineOptions
from domain.goldmine.state import cells
from domain.kernel import Rng
from tests.domain.goldmine.support import cave
from tests.support.rules import given, refused, rng, then, when

NORTH = (0, -1)


def _fits(state, tile, x, y, rotation):
    return fits(cells(state), tile, x, y, rotation)


def test_a_tile_next_to_the_entrance_must_open_towards_it_on_a_path_that_leads_on():
    # spec: "A tile next to the entrance must open towards it, and that path must lead on"
    state = cave([])
    assert _fits(state, "T01#1", *NORTH, 0)          # straight N-S: opens south onto the entrance, leads north
    assert not _fits(state, "T01#1", *NORTH, 1)      # turned E-W: a wall towards the entrance
    assert not _fits(state, "T05#1", *NORTH, 2)      # dead end facing the entrance: no way on
    assert not _fits(state, "T09#1", *NORTH, 0)      # two dead ends: the southern one leads nowhere
    assert not _fits(state, "G1#1", *NORTH, 2)       # a dead-end chamber cannot hang off the entrance
    assert _fits(state, "T02#1", *NORTH, 1)          # corner E-S: opens south, leads east


def test_shared_sides_match_opening_to_opening_and_wall_to_wall():
    # rulebook: "все линии лазов на соседних плитках точно совпадали ... Стороны, не содержащие лазов,
    # могут также располагаться по соседству"
    state = cave([("T01#1", 0, -1, 0)])
    assert _fits(state, "T01#2", 0, -2, 0)           # opening against the straight's northern opening
    assert not _fits(state, "T01#2", 0, -2, 1)       # wall against an opening
    assert _fits(state, "T01#2", 1, -1, 0)           # wall against the straight's eastern wall
    assert not _fits(state, "T01#2", 1, -1, 1)       # opening against a wall


def test_a_cavern_matches_anything_and_anything_matches_a_cavern():
    state = cave([("T01#1", 0, -1, 0)])
    assert _fits(state, "V1#1", 1, -1, 0)            # the cavern's open side meets the straight's wall
    state = cave([("T01#1", 0, -1, 0), ("V1#1", 1, -1, 0)])
    for rotation in range(4):
        assert _fits(state, "T05#1", 2, -1, rotation)  # a dead end in any rotation next to the cavern


def test_a_tile_goes_on_an_empty_cell_sharing_a_side_with_the_cave():
    state = cave([("T01#1", 0, -1, 0)])
    assert not _fits(state, "V1#1", 0, 0, 0)         # occupied
    assert not _fits(state, "V1#1", 3, 3, 0)         # touches nothing
    assert not _fits(state, "V1#1", 1, 1, 0)         # corner to corner only


def test_placing_where_the_tile_does_not_fit_is_refused_with_a_stable_code():
    state = then(GAME, cave([], stack=["T01#1"]), *GAME.decide(cave([], stack=["T01#1"]), 0, Explore(), rng()))
    refused(GAME, state, 0, PlaceTile(0, -1, 1), "goldmine.tile_does_not_fit")


def test_legal_lists_every_cell_and_rotation_and_each_is_accepted():
    state = then(GAME, cave([], stack=["V1#1"]), *GAME.decide(cave([], stack=["V1#1"]), 0, Explore(), rng()))
    placements = GAME.legal(state, 0)
    assert len(placements) == 16                     # a cavern fits on all 4 sides in all 4 rotations
    for command in placements:
        assert GAME.decide(state, 0, command, rng())


def test_a_drawn_tile_that_fits_nowhere_goes_back_into_the_stack_and_another_is_drawn():
    # rulebook: "Если плитка не может быть размещена, она кладётся случайным образом в любую из стопок"
    state = cave([], stack=["G1#1", "T01#1", "T02#1"])
    events = GAME.decide(state, 0, Explore(), rng())
    assert events[0] == TileDrawn(seat=0, tile="G1#1", source="stack")
    assert isinstance(events[1], TileReturned) and events[1].tile == "G1#1" and events[1].depth in (1, 2)
    assert events[2] == TileDrawn(seat=0, tile="T01#1", source="stack")
    after = then(GAME, state, *events)
    assert after.drawn == "T01#1" and "G1#1" in after.hidden.stack


def test_exploring_is_refused_when_no_tile_left_fits_anywhere():
    state = cave([], stack=["G1#1", "T05#1"])
    assert Explore() not in GAME.legal(state, 0)
    refused(GAME, state, 0, Explore(), "goldmine.nothing_to_explore")


def test_a_gold_chamber_gets_a_coin_when_placed():
    state = cave([("T01#1", 0, -1, 0)], stack=["G1#1"])
    state = when(GAME, state, 0, Explore())[0]
    events = GAME.decide(state, 0, PlaceTile(0, -2, 2), rng())   # dead-end chamber opening south onto the straight
    assert events == [TilePlaced(seat=0, tile="G1#1", x=0, y=-2, rotation=2, coin=True)]
    assert then(GAME, state, *events).board[0].coin is True


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_setup_rolls_for_first_player_lays_the_scout_map_in_turn_and_sets_the_coin_target(seats):
    # spec "Setup": entrance at (0, 0), 20 scout tiles laid in turn from the first player, 3 + 3 tokens
    events = GAME.setup(GoldmineOptions(), seats, Rng(b"setup", seats))
    chosen = next(e for e in events if isinstance(e, FirstPlayerChosen))
    last = chosen.rolls[-1]
    assert last[chosen.seat] == max(last) and last.count(max(last)) == 1
    state = given(GAME, *events)
    assert state.target == COINS_TO_WIN[seats] and state.current == chosen.seat
    placers = []
    while state.phase == "scout":
        placers.append(state.current)
        state = when(GAME, state, state.current, GAME.legal(state, state.current)[0], Rng(b"scout", len(placers)))[0]
    assert placers == [(chosen.seat + i) % seats for i in range(len(placers))]
    assert state.phase == "move" and state.current == chosen.seat
    assert len(state.board) == 1 + len(placers) == 21 and len(state.hidden.scout) == 0
    assert len(state.hidden.stack) == len(ALL_TILES) - len(state.board)
    assert all(p.bets == 3 and p.bats == 3 and (p.x, p.y) == (0, 0) for p in state.pirates)


def _lay_scout_map(state, seed):
    turns = 0
    while state.phase == "scout":
        turns += 1
        state = when(GAME, state, state.current, GAME.legal(state, state.current)[-1], Rng(seed, turns))[0]
    return state


def test_a_scout_tile_that_fits_nowhere_goes_back_and_the_next_one_is_drawn_so_the_map_has_20_tiles():
    # spec "Setup" 2: "A tile that fits nowhere goes back into the stack at a random depth and is replaced
    # by the next one, so the map always has 20 tiles"
    rest = [t for t in ALL_TILES if t not in ("E1#1", "G1#1")]
    events = [GameSetUp(options=GoldmineOptions(), seats=2, target=10),
              TilesShuffled(stack=rest[19:], scout=["G1#1", *rest[:19]]),   # a dead end cannot open the map
              FirstPlayerChosen(rolls=[[6, 1]], seat=0)]
    state = given(GAME, *events)
    drawn = draw_scout(state, Rng(b"scout", 0))
    assert drawn[:2] == [TileDrawn(seat=0, tile="G1#1", source="scout"), TileReturned(tile="G1#1", depth=drawn[1].depth)]
    state = _lay_scout_map(then(GAME, state, *drawn), b"map")
    assert len(state.board) == 21


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_every_scout_map_has_20_tiles(seats):
    for seed in range(6):
        events = GAME.setup(GoldmineOptions(), seats, Rng(b"twenty", seats * 10 + seed))
        state = _lay_scout_map(given(GAME, *events), b"twenty")
        assert len(state.board) == 21 and state.phase == "move"
