"""Actions: coins, bets, bats, alliances, the turn cap (spec "Action", "Variants"; rulebook
"Как собирать монеты", "Столкновение пиратов", "Союзы")."""

import pytest
from msgspec.structs import replace

from domain.goldmine.commands import Challenge, EndTurn, Explore, Move, PassCoins, PlaceCoin, Roll, Stay, TakeCoin
from domain.goldmine.events import ChallengeResolved, CoinPlaced, CoinsPassed, PirateEscaped, TurnCapReached
from domain.goldmine.game import GAME
from domain.goldmine.state import GoldmineOptions
from domain.kernel import Rng, RuleViolation
from tests.domain.goldmine.support import ENTRANCE, ScriptedRng, at, decide, fold, given, play

# entrance - straight north - chamber at (0, -2) opening south; a second chamber west of (0, -1)
CAVE = [("T03#1", 0, -1, 0), ("G1#1", 0, -2, 2), ("G1#2", 1, -1, 3)]
WIN, LOSE, TIE = (6, 1), (1, 6), (4, 4)


def _empty_chambers(state):
    return replace(state, board=tuple(replace(c, coin=False) for c in state.board))


def _acting(state):
    """Seat 0 stays, so its action phase begins."""
    return play(state, 0, Stay())


def _code(state, seat, command):
    with pytest.raises(RuleViolation) as exc:
        decide(state, seat, command)
    return exc.value.code


def test_a_pirate_takes_the_coin_of_the_chamber_where_its_movement_ends():
    state = _acting(given(CAVE, pirates={0: at((0, -2, 0))}))
    assert TakeCoin() in GAME.legal(state, 0)
    state = play(state, 0, TakeCoin())
    assert state.pirates[0].coins == 1 and not next(c for c in state.board if c.tile == "G1#1").coin
    assert GAME.legal(state, 0) == [EndTurn()]
    assert _code(_acting(given(CAVE)), 0, TakeCoin()) == "goldmine.no_coin_here"


@pytest.mark.parametrize("rolls,winner", [
    ((TIE, TIE, LOSE), 0),     # the challenger wins tied rolls
    ((TIE, LOSE, WIN), 0),
    ((LOSE, TIE, LOSE), 1),
    ((LOSE, LOSE, TIE), 1),
])
def test_best_of_three_with_the_challenger_winning_ties(rolls, winner):
    # rulebook: "Если ничья, побеждает зачинщик"
    state = _acting(given(CAVE))
    dice = [d for pair in rolls for d in pair] + [3]
    event = decide(state, 0, Challenge("bats", 1), ScriptedRng(*dice))[0]
    assert isinstance(event, ChallengeResolved) and event.winner == winner
    assert event.rolls == [list(pair) for pair in rolls] and event.die == 3


def test_a_bet_needs_both_pirates_on_one_tile_holding_coins_and_a_token():
    both = {0: at(ENTRANCE, coins=1), 1: at(ENTRANCE, coins=1)}
    assert Challenge("bet", 1) in GAME.legal(_acting(given(CAVE, pirates=both)), 0)
    apart = {0: at(ENTRANCE, coins=1), 1: at((0, -1, 0), coins=1)}
    assert _code(_acting(given(CAVE, pirates=apart)), 0, Challenge("bet", 1)) == "goldmine.not_same_tile"
    broke = {0: at(ENTRANCE, coins=1)}
    assert _code(_acting(given(CAVE, pirates=broke)), 0, Challenge("bet", 1)) == "goldmine.no_coins"
    spent = {0: at(ENTRANCE, coins=1, bets=0), 1: at(ENTRANCE, coins=1)}
    assert _code(_acting(given(CAVE, pirates=spent)), 0, Challenge("bet", 1)) == "goldmine.no_token_left"
    assert _code(_acting(given(CAVE)), 0, Challenge("bats", 0)) == "goldmine.bad_target"


def test_a_won_bet_puts_the_losers_coin_on_a_free_chamber_then_the_challenger_moves():
    # rulebook "Пари": the winner puts one of the loser's coins on a chamber with no coin and no duelist
    duel = {0: at((0, -2, 0), coins=2), 1: at((0, -2, 0), coins=1)}
    state = _acting(_empty_chambers(given(CAVE, pirates=duel)))
    state = play(state, 0, Challenge("bet", 1), ScriptedRng(*WIN, *WIN, *LOSE, 4))
    assert state.phase == "bet_coin" and GAME.to_act(state) == frozenset({0})
    assert GAME.legal(state, 0) == [PlaceCoin(1, -1)]   # not the duelists' own chamber
    assert _code(state, 0, PlaceCoin(0, -2)) == "goldmine.not_a_free_chamber"
    assert decide(state, 0, PlaceCoin(1, -1)) == [CoinPlaced(loser=1, x=1, y=-1)]
    state = play(state, 0, PlaceCoin(1, -1))
    assert state.pirates[1].coins == 0 and state.phase == "bonus" and state.die == 4
    state = play(state, 0, GAME.legal(state, 0)[0])
    assert state.phase == "after_bonus" and EndTurn() in GAME.legal(state, 0)


def test_a_defender_who_wins_the_bet_chooses_where_the_challengers_coin_goes():
    duel = {0: at((0, -2, 0), coins=2), 1: at((0, -2, 0), coins=1)}
    state = _acting(_empty_chambers(given(CAVE, pirates=duel)))
    state = play(state, 0, Challenge("bet", 1), ScriptedRng(*LOSE, *LOSE, *WIN))
    assert GAME.to_act(state) == frozenset({1}) and GAME.legal(state, 0) == []
    assert _code(state, 0, PlaceCoin(1, -1)) == "goldmine.not_your_turn"
    state = play(state, 1, PlaceCoin(1, -1))
    assert state.pirates[0].coins == 1 and state.phase == "done" and GAME.legal(state, 0) == [EndTurn()]


def test_with_no_free_chamber_the_bet_coin_stays_with_the_loser():
    duel = {0: at((0, -2, 0), coins=2), 1: at((0, -2, 0), coins=1)}
    state = _acting(given(CAVE, pirates=duel))                 # the other chamber still holds its coin
    event = decide(state, 0, Challenge("bet", 1), ScriptedRng(*LOSE, *LOSE, *WIN))[0]
    assert isinstance(event, ChallengeResolved) and not event.coin_moves
    assert play(state, 0, Challenge("bet", 1), ScriptedRng(*LOSE, *LOSE, *WIN)).phase == "done"


def test_a_defender_who_wins_bats_moves_the_challenger():
    state = _acting(given(CAVE, pirates={1: at((0, -2, 0))}))
    state = play(state, 0, Challenge("bats", 1), ScriptedRng(*LOSE, *LOSE, *WIN, 1))
    assert GAME.to_act(state) == frozenset({1}) and state.mover == 0
    moves = GAME.legal(state, 1)
    state = play(state, 1, moves[0])
    assert (state.pirates[0].x, state.pirates[0].y) == (0, -1) and state.pirates[0].bats == 2


ALLY = {"alliances": True}


def test_allies_on_one_path_pass_coins_and_may_not_challenge_each_other():
    # rulebook "Союзы": "Находясь на одном и том же пути на одной клетке, союзники могут передавать ... монеты"
    state = _acting(given(CAVE, seats=4, pirates={0: at(ENTRANCE, coins=3)}, **ALLY))
    assert [c for c in GAME.legal(state, 0) if isinstance(c, PassCoins)] == [PassCoins(1), PassCoins(2),
                                                                             PassCoins(3)]
    assert decide(state, 0, PassCoins(2)) == [CoinsPassed(seat=0, to=2, amount=2)]
    after = play(state, 0, PassCoins(2))
    assert (after.pirates[0].coins, after.pirates[2].coins) == (1, 2)
    assert _code(state, 0, Challenge("bats", 2)) == "goldmine.bad_target"
    apart = _acting(given(CAVE, seats=4, pirates={0: at(ENTRANCE, coins=3), 2: at((0, -1, 0))}, **ALLY))
    assert _code(apart, 0, PassCoins(1)) == "goldmine.no_partner_here"


def test_a_team_wins_when_both_partners_stand_on_the_entrance_with_the_team_target():
    coins = {0: at((0, -1, 0), coins=6), 2: at(ENTRANCE, coins=6)}
    state = given(CAVE, seats=4, pirates=coins, **ALLY)
    state = replace(state, target=12)
    state = play(state, 0, Roll(), ScriptedRng(1))
    assert decide(state, 0, Move(0, 0, 0))[-1] == PirateEscaped(seats=[0, 2])
    outcome = GAME.outcome(play(state, 0, Move(0, 0, 0)))
    assert outcome is not None and outcome.winners == [0, 2]
    alone = replace(state, pirates=tuple(replace(p, x=0, y=-2) if s == 2 else p
                                         for s, p in enumerate(state.pirates)))
    assert not any(isinstance(e, PirateEscaped) for e in decide(alone, 0, Move(0, 0, 0)))


def test_the_turn_cap_ends_the_game_by_coins_and_says_so():
    state = _acting(given(CAVE, pirates={1: at(ENTRANCE, coins=2)}, turn_cap=3))
    state = replace(state, turns=2)
    events = decide(state, 0, EndTurn())
    assert events[-1] == TurnCapReached(turns=3)
    outcome = GAME.outcome(play(state, 0, EndTurn()))
    assert outcome is not None and outcome.winners == [1] and outcome.details["capped"] is True


@pytest.mark.parametrize("options,seats", [
    ({"five_tiles": True, "mud": True}, 5),
    ({"five_tiles": True}, 3),
    ({"alliances": True}, 5),
    ({"alliances": True}, 2),
    ({"turn_cap": -1}, 2),
])
def test_variants_are_refused_for_player_counts_they_do_not_support(options, seats):
    with pytest.raises(RuleViolation) as exc:
        GAME.setup(GoldmineOptions(**options), seats, Rng(b"x", 0))
    assert exc.value.code == "goldmine.bad_options"


def test_five_tiles_deals_a_cavern_two_secret_and_two_mud_tiles_and_one_may_be_explored():
    events = GAME.setup(GoldmineOptions(mud=True, five_tiles=True), 3, Rng(b"five", 0))
    state = fold(None, events)
    for hand in state.hands:
        assert len(hand) == 5 and hand[0].startswith("V1")
    while state.phase == "scout":
        state = play(state, state.current, GAME.legal(state, state.current)[0])
    explores = [c for c in GAME.legal(state, state.current) if isinstance(c, Explore)]
    assert len(explores) >= 2 and explores[0].tile is None
    cavern = state.hands[state.current][0]
    state = play(state, state.current, Explore(tile=cavern))
    assert state.drawn == cavern and cavern not in state.hands[state.current]
