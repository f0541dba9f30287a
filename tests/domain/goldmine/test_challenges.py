"""Actions: coins, bets, bats, alliances, the turn cap (spec "Action", "Variants"; rulebook
"Как собирать монеты", "Столкновение пиратов", "Союзы")."""

import pytest
from msgspec.structs import replace

from domain.goldmine.commands import (Challenge, EndTurn, Explore, LeaveCoin, Move, PassCoins, PlaceCoin, Roll, Stay,
                                      TakeCoin)
from domain.goldmine.events import (ChallengeResolved, CoinLeft, CoinPlaced, CoinsPassed, PirateEscaped,
                                    TurnCapReached)
from domain.goldmine.game import GAME
from domain.goldmine.options import GoldmineOptions
from domain.kernel import Rng, RuleViolation
from tests.domain.goldmine.support import ENTRANCE, ScriptedRng, at, cave
from tests.support.rules import given, refused, rng, when

# entrance - straight north - chamber at (0, -2) opening south; a second chamber west of (0, -1)
CAVE = [("T03#1", 0, -1, 0), ("G1#1", 0, -2, 2), ("G1#2", 1, -1, 3)]
WIN, LOSE, TIE = (6, 1), (1, 6), (4, 4)


def _empty_chambers(state):
    return replace(state, board=tuple(replace(c, coin=False) for c in state.board))


def _acting(state):
    """Seat 0 stays, so its action phase begins."""
    return when(GAME, state, 0, Stay())[0]


def test_a_pirate_takes_the_coin_of_the_chamber_where_its_movement_ends():
    state = _acting(cave(CAVE, pirates={0: at((0, -2, 0))}))
    assert TakeCoin() in GAME.legal(state, 0)
    state = when(GAME, state, 0, TakeCoin())[0]
    assert state.pirates[0].coins == 1 and not next(c for c in state.board if c.tile == "G1#1").coin
    assert GAME.legal(state, 0) == [EndTurn()]
    refused(GAME, _acting(cave(CAVE)), 0, TakeCoin(), "goldmine.no_coin_here")


@pytest.mark.parametrize("rolls,winner", [
    ((TIE, TIE, LOSE), 0),     # the challenger wins tied rolls
    ((TIE, LOSE, WIN), 0),
    ((LOSE, TIE, LOSE), 1),
    ((LOSE, LOSE, TIE), 1),
])
def test_best_of_three_with_the_challenger_winning_ties(rolls, winner):
    # rulebook: "Если ничья, побеждает зачинщик"
    state = _acting(cave(CAVE))
    dice = [d for pair in rolls for d in pair] + [3]
    event = GAME.decide(state, 0, Challenge("bats", 1), ScriptedRng(*dice))[0]
    assert isinstance(event, ChallengeResolved) and event.winner == winner
    assert event.rolls == [list(pair) for pair in rolls] and event.die == 3


def test_a_bet_needs_both_pirates_on_one_tile_holding_coins_and_a_token():
    both = {0: at(ENTRANCE, coins=1), 1: at(ENTRANCE, coins=1)}
    assert Challenge("bet", 1) in GAME.legal(_acting(cave(CAVE, pirates=both)), 0)
    apart = {0: at(ENTRANCE, coins=1), 1: at((0, -1, 0), coins=1)}
    refused(GAME, _acting(cave(CAVE, pirates=apart)), 0, Challenge("bet", 1), "goldmine.not_same_tile")
    broke = {0: at(ENTRANCE, coins=1)}
    refused(GAME, _acting(cave(CAVE, pirates=broke)), 0, Challenge("bet", 1), "goldmine.no_coins")
    spent = {0: at(ENTRANCE, coins=1, bets=0), 1: at(ENTRANCE, coins=1)}
    refused(GAME, _acting(cave(CAVE, pirates=spent)), 0, Challenge("bet", 1), "goldmine.no_token_left")
    refused(GAME, _acting(cave(CAVE)), 0, Challenge("bats", 0), "goldmine.bad_target")


def test_a_won_bet_puts_the_losers_coin_on_a_free_chamber_then_the_challenger_moves():
    # rulebook "Пари": the winner puts one of the loser's coins on a chamber with no coin and no duelist
    duel = {0: at((0, -2, 0), coins=2), 1: at((0, -2, 0), coins=1)}
    state = _acting(_empty_chambers(cave(CAVE, pirates=duel)))
    state = when(GAME, state, 0, Challenge("bet", 1), ScriptedRng(*WIN, *WIN, *LOSE, 4))[0]
    assert state.phase == "bet_coin" and GAME.to_act(state) == frozenset({0})
    assert GAME.legal(state, 0) == [PlaceCoin(1, -1), LeaveCoin()]   # not the duelists' own chamber
    refused(GAME, state, 0, PlaceCoin(0, -2), "goldmine.not_a_free_chamber")
    assert GAME.decide(state, 0, PlaceCoin(1, -1), rng()) == [CoinPlaced(loser=1, x=1, y=-1, by=0)]
    state = when(GAME, state, 0, PlaceCoin(1, -1))[0]
    assert state.pirates[1].coins == 0 and state.phase == "bonus" and state.die == 4
    state = when(GAME, state, 0, GAME.legal(state, 0)[0])[0]
    assert state.phase == "after_bonus" and EndTurn() in GAME.legal(state, 0)


def test_a_bet_winner_may_leave_the_losers_coin_where_it_is():
    # rulebook "Пари": the winner "может взять" (may take) one of the loser's coins; spec: "may take"
    duel = {0: at((0, -2, 0), coins=2), 1: at((0, -2, 0), coins=1)}
    state = _acting(_empty_chambers(cave(CAVE, pirates=duel)))
    state = when(GAME, state, 0, Challenge("bet", 1), ScriptedRng(*WIN, *WIN, *LOSE, 4))[0]
    state, events = when(GAME, state, 0, LeaveCoin())
    assert events == [CoinLeft(loser=1, by=0)]
    assert state.pirates[1].coins == 1 and state.phase == "bonus" and state.die == 4
    assert not any(c.coin for c in state.board)
    refused(GAME, state, 0, LeaveCoin(), "goldmine.wrong_phase")


def test_a_defender_who_wins_the_bet_chooses_where_the_challengers_coin_goes():
    duel = {0: at((0, -2, 0), coins=2), 1: at((0, -2, 0), coins=1)}
    state = _acting(_empty_chambers(cave(CAVE, pirates=duel)))
    state = when(GAME, state, 0, Challenge("bet", 1), ScriptedRng(*LOSE, *LOSE, *WIN))[0]
    assert GAME.to_act(state) == frozenset({1}) and GAME.legal(state, 0) == []
    refused(GAME, state, 0, PlaceCoin(1, -1), "goldmine.not_your_turn")
    state = when(GAME, state, 1, PlaceCoin(1, -1))[0]
    assert state.pirates[0].coins == 1 and state.phase == "done" and GAME.legal(state, 0) == [EndTurn()]


def test_with_no_free_chamber_the_bet_coin_stays_with_the_loser():
    duel = {0: at((0, -2, 0), coins=2), 1: at((0, -2, 0), coins=1)}
    state = _acting(cave(CAVE, pirates=duel))                 # the other chamber still holds its coin
    event = GAME.decide(state, 0, Challenge("bet", 1), ScriptedRng(*LOSE, *LOSE, *WIN))[0]
    assert isinstance(event, ChallengeResolved) and not event.coin_moves
    assert when(GAME, state, 0, Challenge("bet", 1), ScriptedRng(*LOSE, *LOSE, *WIN))[0].phase == "done"


def test_a_defender_who_wins_bats_moves_the_challenger():
    state = _acting(cave(CAVE, pirates={1: at((0, -2, 0))}))
    state = when(GAME, state, 0, Challenge("bats", 1), ScriptedRng(*LOSE, *LOSE, *WIN, 1))[0]
    assert GAME.to_act(state) == frozenset({1}) and state.mover == 0
    moves = GAME.legal(state, 1)
    state = when(GAME, state, 1, moves[0])[0]
    assert (state.pirates[0].x, state.pirates[0].y) == (0, -1) and state.pirates[0].bats == 2


ALLY = {"alliances": True}


def test_allies_on_one_path_pass_coins_and_may_not_challenge_each_other():
    # rulebook "Союзы": "Находясь на одном и том же пути на одной клетке, союзники могут передавать ... монеты"
    state = _acting(cave(CAVE, seats=4, pirates={0: at(ENTRANCE, coins=3)}, **ALLY))
    assert [c for c in GAME.legal(state, 0) if isinstance(c, PassCoins)] == [PassCoins(1), PassCoins(2),
                                                                             PassCoins(3)]
    assert GAME.decide(state, 0, PassCoins(2), rng()) == [CoinsPassed(seat=0, to=2, amount=2)]
    after = when(GAME, state, 0, PassCoins(2))[0]
    assert (after.pirates[0].coins, after.pirates[2].coins) == (1, 2)
    refused(GAME, state, 0, Challenge("bats", 2), "goldmine.bad_target")
    apart = _acting(cave(CAVE, seats=4, pirates={0: at(ENTRANCE, coins=3), 2: at((0, -1, 0))}, **ALLY))
    refused(GAME, apart, 0, PassCoins(1), "goldmine.no_partner_here")


def test_a_team_wins_when_both_partners_stand_on_the_entrance_with_the_team_target():
    coins = {0: at((0, -1, 0), coins=6), 2: at(ENTRANCE, coins=6)}
    state = cave(CAVE, seats=4, pirates=coins, **ALLY)
    state = replace(state, target=12)
    state = when(GAME, state, 0, Roll(), ScriptedRng(1))[0]
    assert GAME.decide(state, 0, Move(0, 0, 0), rng())[-1] == PirateEscaped(seats=[0, 2])
    outcome = GAME.outcome(when(GAME, state, 0, Move(0, 0, 0))[0])
    assert outcome is not None and outcome.winners == [0, 2]
    alone = replace(state, pirates=tuple(replace(p, x=0, y=-2) if s == 2 else p
                                         for s, p in enumerate(state.pirates)))
    assert not any(isinstance(e, PirateEscaped) for e in GAME.decide(alone, 0, Move(0, 0, 0), rng()))


def test_the_stall_guard_ends_the_game_after_max_rounds_by_coins_and_says_so():
    state = _acting(cave(CAVE, pirates={1: at(ENTRANCE, coins=2)}, max_rounds=2))  # two seats: four turns
    assert not any(isinstance(e, TurnCapReached) for e in GAME.decide(replace(state, turns=2), 0, EndTurn(), rng()))
    state = replace(state, turns=3)
    events = GAME.decide(state, 0, EndTurn(), rng())
    assert events[-1] == TurnCapReached(turns=4)
    outcome = GAME.outcome(when(GAME, state, 0, EndTurn())[0])
    assert outcome is not None and outcome.winners == [1] and outcome.details["capped"] is True


@pytest.mark.parametrize("options,seats", [
    ({"five_tiles": True, "mud": True}, 5),
    ({"five_tiles": True}, 3),
    ({"alliances": True}, 5),
    ({"alliances": True}, 2),
    ({"max_rounds": -1}, 2),
])
def test_variants_are_refused_for_player_counts_they_do_not_support(options, seats):
    with pytest.raises(RuleViolation) as exc:
        GAME.setup(GoldmineOptions(**options), seats, Rng(b"x", 0))
    assert exc.value.code == "goldmine.bad_options"


def test_five_tiles_deals_a_cavern_two_secret_and_two_mud_tiles_and_one_may_be_explored():
    events = GAME.setup(GoldmineOptions(mud=True, five_tiles=True), 3, Rng(b"five", 0))
    state = given(GAME, *events)
    for hand in state.hands:
        assert len(hand) == 5 and hand[0].startswith("V1")
    while state.phase == "scout":
        state = when(GAME, state, state.current, GAME.legal(state, state.current)[0])[0]
    explores = [c for c in GAME.legal(state, state.current) if isinstance(c, Explore)]
    assert len(explores) >= 2 and explores[0].tile is None
    cavern = state.hands[state.current][0]
    state = when(GAME, state, state.current, Explore(tile=cavern))[0]
    assert state.drawn == cavern and cavern not in state.hands[state.current]


def test_a_game_stored_with_the_old_turn_cap_option_still_replays_with_the_guard_in_rounds():
    """Logs written before the option was renamed keep decoding: 500 turns at 3 seats is 167 rounds."""
    import msgspec

    from domain.table import Table

    table = Table(GAME)
    events = table.create({}, 3, b"old-log")
    game = table.fold(events)
    for seat in range(3):
        joined = table.join(game, f"p{seat}", f"P{seat}", seat)
        game, events = table.fold(joined, game), events + joined
    events += table.start(game, None, 0)
    stored = [(table.event_type(e), msgspec.json.encode(table.event_data(e))) for e in events]
    assert any(t == "goldmine.GameSetUp" for t, _ in stored)
    legacy = []
    for type_, data in stored:
        raw = msgspec.json.decode(data)
        if "options" in raw:
            raw["options"] = {**{k: v for k, v in raw["options"].items() if k != "max_rounds"}, "turn_cap": 500}
        legacy.append((type_, raw))
    state = table.fold([table.decode_event_json(t, msgspec.json.encode(d)) for t, d in legacy])
    assert state.options.max_rounds == 167 and state.game.options.max_rounds == 167
    assert table.fold([table.decode_event(t, d) for t, d in legacy]) == state
    with pytest.raises(msgspec.ValidationError):  # an unknown option is still refused on the way in
        msgspec.convert({"turn_cap": 5, "bogus": 1}, GoldmineOptions)
