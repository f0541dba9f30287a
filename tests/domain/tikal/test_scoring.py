"""Scoring rounds (tikal.md "Scoring rounds", "Winner"): volcano and final rounds, temples, treasure sets."""

from domain.tikal.commands import EndTurn, EnterPiece, MovePiece, PlaceGuard, PlaceTile
from domain.tikal.events import (GameFinished, PhaseStarted, PlayerScored, ScoringRoundEnded, TileDrawn,
                                 TilePlaced, TreasureDug)
from domain.tikal.game import GAME
from domain.tikal.state import Player, treasure_points

from tests.domain.tikal.support import opening, walk
from tests.support.rules import given, refused, when

TEMPLE_N = (0, -1)


def test_treasure_sets_score_one_three_and_six():
    """Rules: 1 token of a kind 1 point, 2 tokens 3, 3 tokens 6."""
    assert treasure_points(Player(score=0, explorers=0, treasures=(1, 0, 0, 0, 0, 0, 0, 0))) == 1
    assert treasure_points(Player(score=0, explorers=0, treasures=(0, 2, 0, 0, 0, 0, 0, 0))) == 3
    assert treasure_points(Player(score=0, explorers=0, treasures=(0, 0, 3, 0, 0, 0, 0, 0))) == 6
    assert treasure_points(Player(score=0, explorers=0, treasures=(1, 2, 3, 0, 0, 0, 0, 1))) == 11


def test_a_volcano_scores_the_same_temple_for_several_players_as_majorities_change():
    """Rulebook: "одна пирамида может принести победные очки нескольким игрокам"; the drawer plays and
    scores first, then the others to his left; then he places the volcano and takes his normal turn."""
    state = given(GAME, *opening(stack=["B1", "A1"]), *walk(0, TEMPLE_N, 2))
    assert state.round == "volcano" and state.current == 0 and state.ap == 10 and state.hand == "B1"
    state, events = when(GAME, state, 0, EndTurn())
    assert events[1] == PlayerScored(seat=0, temples=1, treasures=0, points=1, number=1)
    assert events[2] == PhaseStarted(seat=1)
    state, _ = when(GAME, state, 1, EnterPiece(0, 0, leader=True))
    state, _ = when(GAME, state, 1, MovePiece(0, 0, 0, -1, leader=True))  # 3 strength against 2
    state, events = when(GAME, state, 1, EndTurn())
    assert events[1] == PlayerScored(seat=1, temples=1, treasures=0, points=1, number=1)
    assert events[2] == ScoringRoundEnded(kind="volcano", number=1)
    assert state.phase == "place" and state.current == 0 and state.hand == "B1" and state.scorings == 1
    assert [p.score for p in state.players] == [1, 1]
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    assert state.ap == 10 and state.round is None
    state, events = when(GAME, state, 0, EndTurn())
    assert events[-1] == TileDrawn(seat=1, tile="A1")


def test_a_guarded_temple_scores_only_for_its_guard_and_treasures_count_too():
    """Rules: a guarded temple is its owner's for every scoring and scores for nobody else."""
    state = given(GAME, *opening(stack=["B1", "A1"]), *walk(0, TEMPLE_N, 2), *walk(1, TEMPLE_N, 5))
    refused(GAME, state, 0, PlaceGuard(0, -1), "tikal.not_majority")
    state = given(GAME, *opening(stack=["B1", "A1"]), *walk(0, TEMPLE_N, 2))
    state, _ = when(GAME, state, 0, PlaceGuard(0, -1))
    state, _ = when(GAME, state, 0, EndTurn())
    state, _ = when(GAME, state, 1, EnterPiece(0, 0, leader=True))
    state, _ = when(GAME, state, 1, MovePiece(0, 0, 0, -1, leader=True))
    state, events = when(GAME, state, 1, EndTurn())
    assert events[1].temples == 0 and state.players[0].score == 1


def test_the_final_round_starts_left_of_the_last_placer_who_scores_last_and_the_game_ends():
    """Rulebook: "Игрок, сыгравший последний жетон территории и победные очки подсчитывает последним"."""
    state = given(GAME, *opening(seats=3, stack=["A1"]), *walk(2, TEMPLE_N, 1))
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    state, events = when(GAME, state, 0, EndTurn())
    assert events[-1].kind == "final" and events[-1].order == [1, 2, 0]
    for seat in (1, 2):
        state, events = when(GAME, state, seat, EndTurn())
        assert isinstance(events[1], PlayerScored) and events[1].seat == seat
    assert GAME.outcome(state) is None
    state, events = when(GAME, state, 0, EndTurn())
    assert isinstance(events[-2], ScoringRoundEnded) and events[-2].kind == "final"
    assert events[-1] == GameFinished(scores=[0, 0, 1], scorings=1)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [2] and GAME.to_act(state) == frozenset()
    assert GAME.legal(state, 0) == []
    refused(GAME, state, 0, EndTurn(), "tikal.game_over")


def test_ties_go_to_the_highest_controlled_temple_then_to_the_most_treasures():
    """Rulebook: "побеждает игрок, под контролем которого находится самая высокая пирамида"; then treasures;
    classic counts only guarded temples."""
    ending = [TilePlaced(seat=0, tile="A2", q=1, r=-2, rotation=1, tokens=4),
              TreasureDug(seat=2, q=1, r=-2, treasure="T1", cost=0), GameFinished(scores=[0, 0, 0], scorings=4)]
    state = given(GAME, *opening(seats=3, stack=["A1"]), *walk(1, TEMPLE_N, 1), *ending)
    assert GAME.outcome(state).ranks == [3, 1, 2]
    GAME.invariants(state)
    classic = given(GAME, *opening(seats=3, stack=["A1"], edition="classic"), *walk(1, TEMPLE_N, 1), *ending)
    assert GAME.outcome(classic).ranks == [2, 2, 1]
    shared = given(GAME, *opening(seats=2, stack=["A1"]), GameFinished(scores=[0, 0], scorings=4))
    assert GAME.outcome(shared).winners == [0, 1]
