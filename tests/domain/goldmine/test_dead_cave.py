"""Dead caves end the game (spec "Rulings": "When nobody can win any more (no tile of the stack fits
anywhere, nobody holds the target, every coin left on the board lies where no pirate can walk or pass by a
secret passage, and no bet can still move a coin), the game ends at once, ranked as under the stall guard,
with `details.dead_cave` in the outcome")."""

from domain.goldmine.commands import Stay, TakeCoin
from domain.goldmine.events import CoinTaken, DeadCaveFound
from domain.goldmine.game import GAME
from tests.domain.goldmine.support import ENTRANCE, at, cave
from tests.support.rules import refused, when

# seat 0 stands on the last reachable coin, in a chamber east of the entrance
LAST_COIN = ("G1#2", 1, 0, 3)
ON_IT = at((1, 0, 0), bets=0)
# a straight tunnel north of the entrance; a chamber beside it opening east, away from every pirate
WALLED = [LAST_COIN, ("T01#1", 0, -1, 0), ("G1#1", 1, -1, 1)]
# the chamber at (0, -4) is reached only by the secret passage from (0, -1) to (0, -3)
BEHIND_SECRET = [LAST_COIN, ("T01s#1", 0, -1, 0), ("T01s#2", 0, -3, 0), ("G1#1", 0, -4, 2)]


def _take_last_coin(state):
    """Seat 0 stays and takes the coin it stands on: the decision after which the cave may be dead."""
    state = when(GAME, state, 0, Stay())[0]
    return when(GAME, state, 0, TakeCoin())


def _found(state):
    return any(isinstance(e, DeadCaveFound) for e in _take_last_coin(state)[1])


def test_a_cave_where_no_coin_can_be_reached_and_no_tile_fits_ends_the_game_at_once():
    state = cave(WALLED, stack=[], pirates={0: ON_IT, 1: at(ENTRANCE, coins=2, bets=0)})
    after, events = _take_last_coin(state)
    assert events == [CoinTaken(seat=0, x=1, y=0), DeadCaveFound(turns=0)]
    assert after.over and GAME.to_act(after) == frozenset() and GAME.legal(after, 0) == []
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.details["dead_cave"] is True and outcome.details["capped"] is False
    assert outcome.winners == [1] and outcome.ranks == [2, 1]           # most coins first, as under the cap
    refused(GAME, after, 0, Stay(), "goldmine.game_over")


def test_a_tile_that_still_fits_keeps_the_cave_alive():
    assert not _found(cave(WALLED, stack=["T01#2"], pirates={0: ON_IT}))


def test_a_coin_behind_a_secret_passage_keeps_the_cave_alive():
    assert not _found(cave(BEHIND_SECRET, stack=[], pirates={0: ON_IT}))
    plain = [LAST_COIN, ("T01#1", 0, -1, 0), *BEHIND_SECRET[2:]]       # the same cave without the passage
    assert _found(cave(plain, stack=[], pirates={0: ON_IT}))


def test_a_bet_that_could_put_a_coin_on_a_reachable_chamber_keeps_the_cave_alive():
    rivals = {0: at((1, 0, 0)), 1: at(ENTRANCE, coins=1)}
    assert not _found(cave(WALLED, stack=[], pirates=rivals))
    spent = {0: ON_IT, 1: at(ENTRANCE, coins=1, bets=0)}
    assert _found(cave(WALLED, stack=[], pirates=spent))


def test_a_pirate_holding_the_target_can_still_win():
    assert not _found(cave(WALLED, stack=[], pirates={0: ON_IT, 1: at((0, -1, 0), coins=10)}))



def test_reaching_is_mutual_so_pirates_of_one_region_may_share_its_search():
    """The dead-cave check searches a region once for every pirate in it (`rules_action.dead_cave`): that
    holds only if whoever one pirate reaches reaches it back, on foot and by secret passage alike."""
    import hashlib

    from domain.goldmine.rules_action import _reach
    from domain.goldmine.state import cells, position
    from domain.kernel import Rng
    from domain.simulate import pick, start_table
    from domain.table import Table

    table, checked = Table(GAME), 0
    for game in range(6):
        seed = hashlib.sha256(b"mutual %d" % game).digest()
        state, _ = start_table(table, {}, 2 + game % 3, seed)
        bot = Rng(seed, 0)
        for _ in range(400):
            if state.status != "active":
                break
            board, starts = cells(state.game), [position(p) for p in state.game.pirates]
            regions = [_reach(board, [start]) for start in starts]
            for a, region in enumerate(regions):
                for b, other in enumerate(starts):
                    if other in region:
                        assert regions[b] == region, (game, a, b)
                        checked += a != b
            seat = min(table.to_act(state))
            state = table.fold(table.play(state, seat, pick(bot, table.legal(state, seat), None)), state)
    assert checked > 100  # pirates did share regions, often
