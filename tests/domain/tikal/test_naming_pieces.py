"""Commands name the piece that acts (issue 24; tikal.md "Actions and costs": "a different one of your pieces
on that temple for each level", "one of your pieces there becomes the guard"; Tikal Classic rulebook,
"Placer un gardien": "placer un des ME qui se trouve au pied du temple (Chef ou Explorateur)")."""

import msgspec

from domain.tikal.commands import DigTreasure, MovePiece, PlaceGuard, PlaceTile, UncoverLevel
from domain.tikal.components import TREASURE_PER_KIND, TREASURE_SCORES
from domain.tikal.events import PieceEntered, PieceMoved, TreasureDug
from domain.tikal.game import GAME

from tests.domain.tikal.support import at, opening
from tests.support.rules import given, refused, when

WALK = dict(from_q=0, from_r=0, to_q=0, to_r=-1, cost=0)


def leader_and_explorers_on_the_north_temple(explorers: int = 2):
    state = given(GAME, *opening(stack=["A1", "A3"]),
                  PieceEntered(seat=0, q=0, r=0, leader=True, cost=0), PieceMoved(seat=0, leader=True, **WALK),
                  *[e for _ in range(explorers) for e in (PieceEntered(seat=0, q=0, r=0, leader=False, cost=0),
                                                          PieceMoved(seat=0, leader=False, **WALK))])
    return when(GAME, state, 0, PlaceTile(1, -2, 0))[0]


def test_uncovering_names_the_leader_or_an_explorer_and_the_event_records_that_piece():
    state = leader_and_explorers_on_the_north_temple()
    offered = [c for c in GAME.legal(state, 0) if isinstance(c, UncoverLevel)]
    assert offered == [UncoverLevel(0, -1, leader=True), UncoverLevel(0, -1, explorer=1),
                       UncoverLevel(0, -1, explorer=2)]
    state, events = when(GAME, state, 0, UncoverLevel(0, -1, leader=True))
    assert events[0].piece == 0
    refused(GAME, state, 0, UncoverLevel(0, -1, leader=True), "tikal.needs_fresh_piece")
    state, events = when(GAME, state, 0, UncoverLevel(0, -1, explorer=2))
    assert events[0].piece == 2


def test_an_explorer_that_acted_elsewhere_is_offered_by_its_id():
    state = leader_and_explorers_on_the_north_temple()
    state, _ = when(GAME, state, 0, UncoverLevel(0, -1, explorer=1))
    state, _ = when(GAME, state, 0, MovePiece(0, -1, 0, 0, explorer=1))
    assert MovePiece(0, 0, 0, -1, explorer=1) in GAME.legal(state, 0)


def test_an_unnamed_uncover_keeps_the_recorded_default_so_old_games_replay():
    state = leader_and_explorers_on_the_north_temple()
    _, events = when(GAME, state, 0, UncoverLevel(0, -1))
    assert events[0].piece == 1  # state.actor: an explorer before the leader, the lowest id
    old = msgspec.json.decode(b'{"type":"tikal.UncoverLevel","q":0,"r":-1}', type=GAME.command_type)
    assert old == UncoverLevel(0, -1) and GAME.decide(state, 0, old, None) == events


def test_naming_a_piece_that_is_not_there_is_refused():
    state = leader_and_explorers_on_the_north_temple(explorers=1)
    refused(GAME, state, 0, UncoverLevel(0, -1, explorer=7), "tikal.needs_fresh_piece")
    refused(GAME, state, 0, UncoverLevel(0, -1, leader=True, explorer=1), "tikal.needs_fresh_piece")


def test_the_leader_may_become_the_guard_though_explorers_stand_beside_him():
    state = leader_and_explorers_on_the_north_temple(explorers=1)
    assert [c for c in GAME.legal(state, 0) if isinstance(c, PlaceGuard)] == \
        [PlaceGuard(0, -1, leader=True), PlaceGuard(0, -1, leader=False)]
    after, events = when(GAME, state, 0, PlaceGuard(0, -1, leader=True))
    assert events[0].guard_is_leader is True and events[0].explorers_removed == 1 and not events[0].leader_removed
    assert after.players[0].leader == "gone"
    space = next(s for s in GAME.view(after, None).board if (s.q, s.r) == (0, -1))
    assert space.guard == 0 and space.guard_is_leader is True


def test_an_unnamed_guard_keeps_the_recorded_default_an_explorer_when_one_is_there():
    state = leader_and_explorers_on_the_north_temple(explorers=1)
    _, events = when(GAME, state, 0, PlaceGuard(0, -1))
    assert events == GAME.decide(state, 0, PlaceGuard(0, -1, leader=False), None)
    assert events[0].guard_is_leader is False and events[0].leader_removed is True
    assert at(GAME.evolve(state, events[0]), 0, -1).guard_leader is False


def test_held_treasures_carry_their_printed_data_and_points():
    state = leader_and_explorers_on_the_north_temple()
    for _ in range(2):
        state = GAME.evolve(state, TreasureDug(seat=0, q=0, r=-1, treasure="T3", cost=0))
    held = GAME.view(state, 1).treasures_held[0]
    assert len(held) == 1 and held[0].treasure.id == "T3" and held[0].count == 2
    assert held[0].treasure.copies == TREASURE_PER_KIND and held[0].points == TREASURE_SCORES[2] == 3
    assert held[0].treasure.set_scores == {1: 1, 2: 3, 3: 6}


def test_digging_names_its_piece_too():
    state = leader_and_explorers_on_the_north_temple()
    assert DigTreasure(0, -1, leader=True) not in GAME.legal(state, 0)  # a temple has no treasure
