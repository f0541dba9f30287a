"""Bot weights (domain/goldmine/bot.py): the lean of the random-play bots, and weighted games that finish."""

import pytest

from domain.goldmine.bot import weights
from domain.goldmine.commands import Move, PlaceTile, Roll, Stay, TakeCoin
from domain.goldmine.game import GAME
from domain.simulate import play_random
from domain.table import Table
from tests.budget import sized
from tests.domain.goldmine.support import ENTRANCE, ScriptedRng, at, cave
from tests.support.rules import when

TABLE = Table(GAME)
# entrance - T-junction north - chamber at (0, -2) opening south; a second chamber east of (0, -1)
CAVE = [("T03#1", 0, -1, 0), ("G1#1", 0, -2, 2), ("G1#2", 1, -1, 3)]
CHAMBER = (0, -2, 0)


def _weighed(state, seat=0):
    commands = GAME.legal(state, seat)
    found = GAME.bot_weights(state, seat, commands)
    assert len(found) == len(commands) and all(isinstance(w, int) and w >= 1 for w in found)
    return dict(zip(commands, found))


def test_one_weight_per_command_and_taking_a_coin_outweighs_everything_else():
    state = when(GAME, cave(CAVE, pirates={0: at(CHAMBER, coins=1), 1: at(CHAMBER, coins=1)}), 0, Stay())[0]
    found = _weighed(state)
    assert TakeCoin() in found and len(found) > 2          # also end the turn, bet and bats
    others = sum(w for c, w in found.items() if c != TakeCoin())
    assert found[TakeCoin()] > 10 * others


def test_a_pirate_on_a_coin_stays_to_take_it_and_otherwise_rolls_towards_one():
    on_coin = _weighed(cave(CAVE, pirates={0: at(CHAMBER)}))
    assert on_coin[Stay()] > 10 * on_coin[Roll()]
    at_entrance = _weighed(cave(CAVE))
    assert at_entrance[Roll()] > 10 * at_entrance[Stay()]
    rolled = _weighed(when(GAME, cave(CAVE), 0, Roll(), ScriptedRng(3))[0])
    best = max(rolled, key=rolled.get)
    assert best in (Move(*CHAMBER), Move(1, -1, 0))        # both chambers are two steps away
    assert rolled[best] > 10 * rolled[Stay()]


def test_a_pirate_carrying_enough_coins_heads_for_the_entrance():
    state = cave(CAVE, pirates={0: at(CHAMBER, coins=10)})
    assert _weighed(state)[Roll()] > 10 * _weighed(state)[Stay()]
    rolled = _weighed(when(GAME, state, 0, Roll(), ScriptedRng(4))[0])
    assert max(rolled, key=rolled.get) == Move(*ENTRANCE)
    assert _weighed(cave(CAVE, pirates={0: at(ENTRANCE, coins=10)}))[Stay()] > 10 * _weighed(cave(CAVE))[Stay()]


def test_a_drawn_chamber_goes_right_next_to_the_explorer_where_it_can_step_on():
    state = cave([("T01#1", 0, -1, 0)], stack=["G1#1"], pirates={0: at((0, -1, 0))})
    state = when(GAME, state, 0, GAME.legal(state, 0)[0])[0]          # explore: draw the chamber
    found = _weighed(state)
    assert max(found, key=found.get) == PlaceTile(0, -2, 2)  # opening south onto the pirate's tunnel


def test_the_weights_are_pure():
    state = when(GAME, cave(CAVE), 0, Roll(), ScriptedRng(3))[0]
    commands = GAME.legal(state, 0)
    assert weights(state, 0, commands) == weights(state, 0, commands)
    assert weights(state, 0, []) == []


WEIGHTED = [({}, 2), ({}, 3), ({}, 4), ({}, 5), ({}, 6), ({"mud": True}, 3), ({"mud": True}, 5),
            ({"mud": True, "five_tiles": True}, 2), ({"mud": True, "five_tiles": True}, 4),
            ({"alliances": True}, 4), ({"alliances": True}, 6), ({"alliances": True, "mud": True}, 6)]


@pytest.mark.slow  # whole games per option set
def test_weighted_bots_finish_their_games_well_before_the_stall_guard():
    # the issue: every game ends with no errors, and hitting the guard (default 200 rounds) is rare
    games = [play_random(TABLE, options, players, f"bot-{players}-{seed}".encode(), alternatives=1,
                         check_views=False, invariant=GAME.invariants if seed == 0 else None)
             for options, players in WEIGHTED for seed in range(sized(1, 3))]  # tests/budget.py
    assert [g.error for g in games] == [None] * len(games)
    assert all(g.outcome is not None for g in games)
    capped = [g for g in games if g.capped or g.outcome.details["capped"]]
    assert len(capped) <= 0.1 * len(games)
