"""Movement (spec "A turn: movement, then one action", "Rulings"; rulebook "Перемещение", "Тайный ход")."""

import pytest

from domain.goldmine.commands import Challenge, Explore, Move, PlaceTile, Roll, SecretPassage, Stay
from domain.goldmine.events import DiceRolled, PirateEscaped, PirateMoved
from domain.goldmine.game import GAME
from tests.domain.goldmine.support import ENTRANCE, ScriptedRng, at, cave
from tests.support.rules import refused, rng, when

# T06 at rotation 0 has two separate paths: 0 = N-E and 1 = S-W.
FORK = [("T06#1", 0, -1, 0), ("T01#1", 1, -1, 1), ("T01#2", -1, -1, 1)]
MUDDY = [("T01m#1", 0, -1, 0), ("T01#1", 0, -2, 0)]
SECRETS = [("T01s#1", 0, -1, 0), ("T01s#2", 0, 1, 0), ("T01#1", 0, -2, 0), ("T01#2", 0, -3, 0)]


def _moves(state, seat=0):
    return {(c.x, c.y, c.path) for c in GAME.legal(state, seat) if isinstance(c, Move)}


def test_a_pirate_never_jumps_between_separate_paths_on_one_tile():
    # rulebook: "Пираты не могут перепрыгивать на соседний лаз, даже если он находится на той же плитке"
    state = when(GAME, cave(FORK), 0, Roll(), ScriptedRng(6))[0]
    assert _moves(state) == {(0, -1, 1), (-1, -1, 0)}
    refused(GAME, state, 0, Move(1, -1, 0), "goldmine.too_far")


def test_a_roll_allows_any_position_up_to_the_die_and_stopping_early():
    state = when(GAME, cave(MUDDY + [("T01#2", 0, -3, 0)]), 0, Roll(), ScriptedRng(2))[0]
    assert _moves(state) == {(0, -1, 0), (0, -2, 0)}
    assert Stay() in GAME.legal(state, 0)
    refused(GAME, state, 0, Move(0, -3, 0), "goldmine.too_far")


def test_with_mud_a_pirate_entering_a_puddle_stops_there():
    # rulebook "Лужи с грязью": "Встретив на своём пути лужу, пират должен остановиться"
    assert _moves(when(GAME, cave(MUDDY, mud=True), 0, Roll(), ScriptedRng(6))[0]) == {(0, -1, 0)}
    assert _moves(when(GAME, cave(MUDDY), 0, Roll(), ScriptedRng(6))[0]) == {(0, -1, 0), (0, -2, 0)}


def test_a_pirate_standing_in_mud_moves_normally_next_turn():
    state = cave(MUDDY, mud=True, pirates={0: at((0, -1, 0))})
    assert _moves(when(GAME, state, 0, Roll(), ScriptedRng(6))[0]) == {ENTRANCE, (0, -2, 0)}


def test_mud_also_stops_a_pirate_moved_by_bats():
    state = cave(MUDDY, mud=True, pirates={0: at((0, -2, 0))})
    state = when(GAME, state, 0, Stay())[0]
    state = when(GAME, state, 0, Challenge("bats", 1), ScriptedRng(6, 1, 6, 1, 1, 6, 5))[0]
    assert GAME.to_act(state) == frozenset({0}) and state.mover == 1
    assert _moves(state) == {(0, -1, 0)}


@pytest.mark.parametrize("dice", [(3, 3), (6, 6), (3, 4), (2, 5)])
def test_a_double_or_a_seven_opens_the_secret_passage_to_any_other_entrance(dice):
    state = cave(SECRETS, pirates={0: at((0, -1, 0))})
    events = GAME.decide(state, 0, SecretPassage(), ScriptedRng(*dice))
    assert events == [DiceRolled(seat=0, dice=list(dice), purpose="secret")]
    after = when(GAME, state, 0, SecretPassage(), ScriptedRng(*dice))[0]
    assert after.phase == "secret" and _moves(after) == {(0, 1, 0)}
    refused(GAME, after, 0, Move(0, -2, 0), "goldmine.not_a_secret_passage")


@pytest.mark.parametrize("dice,reach", [
    ((1, 5), {ENTRANCE, (0, -2, 0)}),
    ((6, 2), {ENTRANCE, (0, -2, 0), (0, -3, 0), (0, 1, 0)}),
])
def test_otherwise_the_secret_passage_roll_moves_up_to_the_lower_die(dice, reach):
    state = when(GAME, cave(SECRETS, pirates={0: at((0, -1, 0))}), 0, SecretPassage(), ScriptedRng(*dice))[0]
    assert state.phase == "roll_move" and state.die == min(dice) and _moves(state) == reach


def test_the_secret_passage_needs_the_turn_to_start_on_an_entrance():
    state = cave(SECRETS)
    assert SecretPassage() not in GAME.legal(state, 0)
    refused(GAME, state, 0, SecretPassage(), "goldmine.not_on_secret_passage")


def test_after_exploring_the_pirate_may_step_onto_the_new_tile_if_its_path_connects():
    state = when(GAME, cave([], stack=["T01#1", "V1#4"]), 0, Explore())[0]
    state = when(GAME, state, 0, PlaceTile(0, -1, 0))[0]
    assert _moves(state) == {(0, -1, 0)} and Stay() in GAME.legal(state, 0)
    state = when(GAME, cave([("T01#1", 0, -1, 0)], stack=["T01#2", "V1#4"], pirates={0: at((0, -1, 0))}), 0, Explore())[0]
    state = when(GAME, state, 0, PlaceTile(0, 1, 0))[0]       # south of the entrance, not next to the pirate
    assert _moves(state) == set()
    refused(GAME, state, 0, Move(0, 1, 0), "goldmine.not_connected")


def test_reaching_the_entrance_with_enough_coins_wins_at_once():
    # rulebook "Победа в игре": the first to get out with the needed coins wins
    state = when(GAME, cave(MUDDY, pirates={0: at((0, -2, 0), coins=10)}), 0, Roll(), ScriptedRng(3))[0]
    events = GAME.decide(state, 0, Move(0, 0, 0), rng())
    assert events[-1] == PirateEscaped(seats=[0])
    outcome = GAME.outcome(when(GAME, state, 0, Move(0, 0, 0))[0])
    assert outcome is not None and outcome.winners == [0] and not outcome.details["capped"]


def test_passing_through_the_entrance_with_enough_coins_also_wins():
    # spec ruling: "its movement ends on (or passes through) the entrance"
    state = when(GAME, cave(SECRETS, pirates={0: at((0, -1, 0), coins=10)}), 0, Roll(), ScriptedRng(2))[0]
    assert GAME.decide(state, 0, Move(0, 1, 0), rng())[-1] == PirateEscaped(seats=[0])
    short = when(GAME, cave(SECRETS, pirates={0: at((0, -2, 0), coins=10)}), 0, Roll(), ScriptedRng(1))[0]
    assert not any(isinstance(e, PirateEscaped) for e in GAME.decide(short, 0, Move(0, -1, 0), rng()))


def test_too_few_coins_at_the_entrance_does_not_win():
    state = when(GAME, cave(MUDDY, pirates={0: at((0, -1, 0), coins=9)}), 0, Roll(), ScriptedRng(1))[0]
    assert GAME.decide(state, 0, Move(0, 0, 0), rng()) == [PirateMoved(seat=0, x=0, y=0, path=0, by=0)]


def test_a_pirate_moved_onto_the_entrance_by_bats_wins_only_in_its_own_next_turn():
    state = cave(MUDDY, pirates={1: at((0, -1, 0), coins=10)})
    state = when(GAME, state, 0, Stay())[0]
    state = when(GAME, state, 0, Challenge("bats", 1), ScriptedRng(6, 1, 6, 1, 1, 6, 2))[0]
    events = GAME.decide(state, 0, Move(0, 0, 0), rng())
    assert events == [PirateMoved(seat=1, x=0, y=0, path=0, by=0)]
    state = when(GAME, when(GAME, state, 0, Move(0, 0, 0))[0], 0, GAME.legal(when(GAME, state, 0, Move(0, 0, 0))[0], 0)[-1])[0]
    assert state.current == 1 and GAME.outcome(state) is None
    assert GAME.decide(state, 1, Stay(), rng())[-1] == PirateEscaped(seats=[1])
