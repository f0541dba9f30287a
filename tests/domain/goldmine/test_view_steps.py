"""The view's `steps_left`: the tile-steps the pirate to move may take now (spec "A turn: movement, then
one action"), never the die of a move already made."""

from domain.goldmine.commands import Challenge, Explore, Move, PlaceTile, Roll, SecretPassage, Stay
from domain.goldmine.game import GAME
from tests.domain.goldmine.support import ScriptedRng, at, cave
from tests.support.rules import when

MUDDY = [("T01m#1", 0, -1, 0), ("T01#1", 0, -2, 0)]
SECRETS = [("T01s#1", 0, -1, 0), ("T01s#2", 0, 1, 0), ("T01#1", 0, -2, 0), ("T01#2", 0, -3, 0)]


def test_a_rolled_move_offers_the_die_and_nothing_once_the_pirate_has_moved():
    state = cave(MUDDY)
    assert GAME.view(state, 0).steps_left == 0  # before choosing a movement nothing is rolled
    state = when(GAME, state, 0, Roll(), ScriptedRng(2))[0]
    assert GAME.view(state, 1).steps_left == 2
    state = when(GAME, state, 0, Move(0, -1, 0))[0]
    seen = GAME.view(state, None)
    assert state.phase == "action" and seen.die == 2 and seen.steps_left == 0  # the die stays, the steps are spent


def test_the_secret_passage_takes_no_steps_and_its_failed_roll_offers_the_lower_die():
    opened = when(GAME, cave(SECRETS, pirates={0: at((0, -1, 0))}), 0, SecretPassage(), ScriptedRng(3, 4))[0]
    assert opened.phase == "secret" and GAME.view(opened, 0).steps_left == 0
    failed = when(GAME, cave(SECRETS, pirates={0: at((0, -1, 0))}), 0, SecretPassage(), ScriptedRng(6, 2))[0]
    assert GAME.view(failed, 0).steps_left == 2


def test_after_exploring_one_step_is_offered_only_when_the_new_tile_connects():
    state = when(GAME, cave([], stack=["T01#1", "V1#4"]), 0, Explore())[0]
    state = when(GAME, state, 0, PlaceTile(0, -1, 0))[0]
    assert state.phase == "step" and GAME.view(state, 0).steps_left == 1
    state = when(GAME, cave([("T01#1", 0, -1, 0)], stack=["T01#2", "V1#4"], pirates={0: at((0, -1, 0))}), 0,
                 Explore())[0]
    state = when(GAME, state, 0, PlaceTile(0, 1, 0))[0]  # south of the entrance, not next to the pirate
    assert state.phase == "step" and GAME.view(state, 0).steps_left == 0


def test_bats_give_the_winner_the_bats_die_to_move_the_loser():
    state = cave(MUDDY, mud=True, pirates={0: at((0, -2, 0))})
    state = when(GAME, state, 0, Stay())[0]
    state = when(GAME, state, 0, Challenge("bats", 1), ScriptedRng(6, 1, 6, 1, 1, 6, 5))[0]
    assert state.phase == "bats_move" and GAME.view(state, 1).steps_left == 5
