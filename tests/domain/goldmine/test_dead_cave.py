"""Dead caves end the game (spec "Rulings": "When nobody can win any more (no tile of the stack fits
anywhere, nobody holds the target, every coin left on the board lies where no pirate can walk or pass by a
secret passage, and no bet can still move a coin), the game ends at once, ranked as under the stall guard,
with `details.dead_cave` in the outcome")."""

from msgspec.structs import replace

from domain.goldmine.commands import Stay
from domain.goldmine.events import DeadCaveFound, Stayed
from domain.goldmine.game import GAME
from tests.domain.goldmine.support import ENTRANCE, at, cave
from tests.support.rules import refused, when

# a straight tunnel north of the entrance; a chamber beside it opening east, away from every pirate
WALLED = [("T01#1", 0, -1, 0), ("G1#1", 1, -1, 1)]
# the chamber at (0, -4) is reached only by the secret passage from (0, -1) to (0, -3)
BEHIND_SECRET = [("T01s#1", 0, -1, 0), ("T01s#2", 0, -3, 0), ("G1#1", 0, -4, 2)]


def _found(state):
    events = when(GAME, state, 0, Stay())[1]
    return any(isinstance(e, DeadCaveFound) for e in events)


def test_a_cave_where_no_coin_can_be_reached_and_no_tile_fits_ends_the_game_at_once():
    state = cave(WALLED, stack=[], pirates={1: at(ENTRANCE, coins=2)})
    after, events = when(GAME, state, 0, Stay())
    assert events == [Stayed(seat=0), DeadCaveFound(turns=0)]
    assert after.over and GAME.to_act(after) == frozenset() and GAME.legal(after, 0) == []
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.details["dead_cave"] is True and outcome.details["capped"] is False
    assert outcome.winners == [1] and outcome.ranks == [2, 1]           # most coins first, as under the cap
    refused(GAME, after, 0, Stay(), "goldmine.game_over")


def test_a_tile_that_still_fits_keeps_the_cave_alive():
    assert not _found(cave(WALLED, stack=["T01#2"]))


def test_a_coin_behind_a_secret_passage_keeps_the_cave_alive():
    assert not _found(cave(BEHIND_SECRET, stack=[]))
    plain = [("T01#1", 0, -1, 0), *BEHIND_SECRET[1:]]                  # the same cave without the passage
    assert _found(cave(plain, stack=[]))


def test_a_bet_that_could_put_a_coin_on_a_reachable_chamber_keeps_the_cave_alive():
    empty = [("T01#1", 0, -1, 0), ("G1#1", 0, -2, 2)]
    rivals = {0: at(ENTRANCE, coins=1), 1: at(ENTRANCE, coins=1)}
    state = cave(empty, stack=[], pirates=rivals)
    state = replace(state, board=tuple(replace(c, coin=False) for c in state.board))
    assert not _found(state)
    spent = {0: at(ENTRANCE, coins=1, bets=0), 1: at(ENTRANCE, coins=1, bets=0)}
    state = replace(state, pirates=tuple(replace(p, **spent[s]) for s, p in enumerate(state.pirates)))
    assert _found(state)


def test_a_pirate_holding_the_target_can_still_win():
    assert not _found(cave(WALLED, stack=[], pirates={1: at((0, -1, 0), coins=10)}))
