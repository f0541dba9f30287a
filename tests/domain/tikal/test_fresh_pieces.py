"""A different piece for each level or dig, counted by piece (tikal.md "Actions and costs").

"Uncover a temple level: a different one of your pieces on that temple for each level
uncovered there this turn (a piece that uncovered a level cannot uncover another on the
same temple this turn, even after leaving and coming back)"; "Dig a treasure: a different
one of your pieces on that ruins tile for each token dug there this turn". Board arithmetic:
base camp (0,0) to the north temple (0,-1) is 2 stones, to the south-east temple (1,0) 2,
and the clearing (1,-1) to the ruins A2 turned once on (1,-2) is 1.
"""

from domain.tikal.commands import DigTreasure, MovePiece, PlaceTile, UncoverLevel
from domain.tikal.events import LevelUncovered, PieceEntered, PieceMoved
from domain.tikal.game import GAME

from tests.domain.tikal.support import at, opening, walk
from tests.support.rules import given, refused, then, when

BASE, TEMPLE_N, TEMPLE_SE, CLEARING, RUINS = (0, 0), (0, -1), (1, 0), (1, -1), (1, -2)


def temple_turn():
    """Seat 0 to act with 10 AP: explorer 1 (A) on the north temple, explorer 2 (B) on the base camp."""
    state = given(GAME, *opening(stack=["A1", "A3"]), *walk(0, TEMPLE_N), PieceEntered(seat=0, q=0, r=0, leader=False,
                                                                                        cost=0))
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    assert at(state, *TEMPLE_N).ids[0] == (1,) and at(state, *BASE).ids[0] == (2,)
    return state


def ruins_turn():
    """Seat 0 to act with 10 AP on the ruins A2 (4 tokens): explorer 1 (A) on it, explorer 2 (B) on the clearing."""
    state = given(GAME, *opening(stack=["A2", "A3"]), *walk(0, CLEARING, 2))
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 1))
    return then(GAME, state, PieceMoved(seat=0, from_q=1, from_r=-1, to_q=1, to_r=-2, leader=False, cost=0))


def test_a_second_piece_that_walks_on_after_the_first_left_may_uncover_the_next_level():
    state = temple_turn()
    state, events = when(GAME, state, 0, UncoverLevel(*TEMPLE_N))
    assert events == [LevelUncovered(seat=0, q=0, r=-1, value=2, cost=2, piece=1)]
    state, _ = when(GAME, state, 0, MovePiece(*TEMPLE_N, *BASE, explorer=1))  # A walks off: named, it acted
    state, events = when(GAME, state, 0, MovePiece(*BASE, *TEMPLE_N))  # B, fresh, walks on unnamed
    assert events[0].explorer == 2
    state, events = when(GAME, state, 0, UncoverLevel(*TEMPLE_N))
    assert events[0].piece == 2 and at(state, *TEMPLE_N).value == 3 and state.ap == 2


def test_a_piece_that_uncovered_a_level_may_not_uncover_another_there_after_leaving_and_coming_back():
    state = temple_turn()
    state, _ = when(GAME, state, 0, UncoverLevel(*TEMPLE_N))
    state, _ = when(GAME, state, 0, MovePiece(*TEMPLE_N, *BASE, explorer=1))
    state, _ = when(GAME, state, 0, MovePiece(*BASE, *TEMPLE_N, explorer=1))  # A comes back
    refused(GAME, state, 0, UncoverLevel(*TEMPLE_N), "tikal.needs_fresh_piece")
    state, _ = when(GAME, state, 0, MovePiece(*BASE, *TEMPLE_N))  # B joins A: B has not acted there
    state, events = when(GAME, state, 0, UncoverLevel(*TEMPLE_N))
    assert events[0].piece == 2 and state.ap == 0


def test_a_piece_that_uncovered_one_temple_may_uncover_another():
    state = temple_turn()
    state, _ = when(GAME, state, 0, UncoverLevel(*TEMPLE_N))
    state, _ = when(GAME, state, 0, MovePiece(*TEMPLE_N, *BASE, explorer=1))
    state, _ = when(GAME, state, 0, MovePiece(*BASE, *TEMPLE_SE, explorer=1))
    state, events = when(GAME, state, 0, UncoverLevel(*TEMPLE_SE))
    assert events[0].piece == 1 and at(state, *TEMPLE_SE).value == 2


def test_a_piece_that_dug_may_not_dig_there_again_but_a_piece_that_walks_on_after_it_left_may():
    state = ruins_turn()
    state, events = when(GAME, state, 0, DigTreasure(*RUINS))
    assert events[0].piece == 1
    state, _ = when(GAME, state, 0, MovePiece(*RUINS, *CLEARING, explorer=1))
    state, _ = when(GAME, state, 0, MovePiece(*CLEARING, *RUINS, explorer=1))
    refused(GAME, state, 0, DigTreasure(*RUINS), "tikal.needs_fresh_piece")
    state, _ = when(GAME, state, 0, MovePiece(*CLEARING, *RUINS))
    state, events = when(GAME, state, 0, DigTreasure(*RUINS))
    assert events[0].piece == 2 and at(state, *RUINS).tokens == 2 and state.ap == 1


def test_the_leader_is_a_different_piece_from_the_explorer_that_dug():
    state = ruins_turn()
    state = then(GAME, state, *walk(0, RUINS, leader=True))
    state, _ = when(GAME, state, 0, DigTreasure(*RUINS))
    state, events = when(GAME, state, 0, DigTreasure(*RUINS))
    assert events[0].piece == 0  # the leader
    assert [(m.q, m.r, m.piece) for m in state.acted] == [(1, -2, 1), (1, -2, 0)]


def test_only_pieces_that_acted_are_named_in_moves_and_an_unnamed_move_walks_a_fresh_explorer():
    state = temple_turn()
    state, _ = when(GAME, state, 0, UncoverLevel(*TEMPLE_N))
    offered = [c for c in GAME.legal(state, 0) if isinstance(c, MovePiece) and (c.from_q, c.from_r) == TEMPLE_N]
    assert offered and all(c.explorer == 1 for c in offered)  # A acted: it is named; no fresh explorer there
    refused(GAME, state, 0, MovePiece(*TEMPLE_N, *BASE), "tikal.no_piece_there")
    refused(GAME, state, 0, MovePiece(*BASE, *TEMPLE_N, explorer=2), "tikal.no_piece_there")  # B is fresh: unnamed
    assert MovePiece(*BASE, *TEMPLE_N) in GAME.legal(state, 0)


def test_events_written_before_pieces_had_ids_still_replay():
    """New event fields have defaults: an old stream names no piece and folds to the same board."""
    state = given(GAME, *opening(stack=["A1", "A3"]), *walk(0, TEMPLE_N, 2))
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    old = then(GAME, state, LevelUncovered(seat=0, q=0, r=-1, value=2, cost=2))
    assert [m.piece for m in old.acted] == [1] and at(old, *TEMPLE_N).ids[0] == (1, 2)
    GAME.invariants(old)
