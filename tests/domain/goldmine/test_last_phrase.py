"""The view's `last` phrase names the seat that sent the command (issue 44 item 4): the bats winner who
moves or leaves the loser's pirate, the bet's winner who places or leaves the loser's coin, and an
Explore is described as the explore itself, not as the command before it."""

import pytest
from msgspec.structs import replace

from domain.goldmine.commands import Challenge, Explore, LeaveCoin, PlaceCoin, Stay
from domain.goldmine.game import GAME
from domain.kernel import describe, own_result
from tests.domain.goldmine.support import ENTRANCE, ScriptedRng, at, cave
from tests.support.rules import when

CAVE = [("T03#1", 0, -1, 0), ("G1#1", 0, -2, 2), ("G1#2", 1, -1, 3)]
WIN, LOSE = (6, 1), (1, 6)


def _last(state, events):
    """What the table would show after `events` from `state`: the latest one that is a command's own result."""
    last = None
    for event in events:
        last = event if own_result(GAME.phrases, state, event) else last
        state = GAME.evolve(state, event)
    return describe(GAME.phrases, last) if last is not None else None


def _bats_won_by_the_defender():
    """Seat 0 challenges seat 1 with bats and loses: seat 1 now moves seat 0's pirate."""
    state = when(GAME, cave(CAVE, pirates={1: at((0, -2, 0))}), 0, Stay())[0]
    state = when(GAME, state, 0, Challenge("bats", 1), ScriptedRng(*LOSE, *LOSE, *WIN, 1))[0]
    assert state.mover == 0 and GAME.to_act(state) == frozenset({1})
    return state


def _bet_won_by_the_defender():
    """Seat 0 bets against seat 1 on one chamber and loses: seat 1 decides where seat 0's coin goes."""
    duel = {0: at((0, -2, 0), coins=2), 1: at((0, -2, 0), coins=1)}
    state = cave(CAVE, pirates=duel)
    state = replace(state, board=tuple(replace(c, coin=False) for c in state.board))  # a free chamber for the coin
    state = when(GAME, state, 0, Stay())[0]
    state = when(GAME, state, 0, Challenge("bet", 1), ScriptedRng(*LOSE, *LOSE, *WIN))[0]
    assert GAME.to_act(state) == frozenset({1})
    return state


def _bats_move(state):
    return next(c for c in GAME.legal(state, 1) if type(c).__name__ == "Move")


@pytest.mark.parametrize("lost,command,event,acted_upon", [
    (_bats_won_by_the_defender, _bats_move, "goldmine.PirateMoved", "seat 0's pirate"),
    (_bats_won_by_the_defender, lambda _: Stay(), "goldmine.Stayed", "seat 0's pirate"),
    (_bet_won_by_the_defender, lambda _: PlaceCoin(1, -1), "goldmine.CoinPlaced", "seat 0's coin"),
    (_bet_won_by_the_defender, lambda _: LeaveCoin(), "goldmine.CoinLeft", "seat 0's coin"),
], ids=["bats Move", "bats Stay", "PlaceCoin", "LeaveCoin"])
def test_the_winner_who_decides_for_the_loser_is_named_as_the_sender(lost, command, event, acted_upon):
    state = lost()
    last = _last(state, when(GAME, state, 1, command(state))[1])
    assert last.seat == 1 and last.event == event and acted_upon in last.text


def test_an_explore_is_described_as_the_explore():
    state = cave([], stack=["T01#1", "V1#4"], pirates={1: at(ENTRANCE)})
    last = _last(state, when(GAME, state, 0, Explore())[1])
    assert last is not None and last.seat == 0 and last.event == "goldmine.TileDrawn" and "T01#1" in last.text
