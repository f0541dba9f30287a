"""Finding a treasure, the share, curses (every option), amulets appearing and the end
(spec, *Finding a treasure*, *End*; rulebook, "Сбор сокровищ", "Дележка сокровищ", "Карты проклятий")."""

import pytest
from msgspec.structs import replace

from domain.kernel import RuleViolation
from domain.tobago.commands import CollectTreasure, EndTurn, PassCard, StartHunt, TakeCard
from domain.tobago.components import CURSE
from domain.tobago.events import CandidateRemoved, CluePlayed, CurseStruck, TreasuresDrawn
from domain.tobago.game import GAME
from domain.tobago.rules import to_act
from domain.tobago.state import TobagoState, candidates
from domain.tobago.island import bits
from tests.domain.tobago.support import fold, given, when

HANDS = ["C02", "C03", "C04", "C05", "C30", "C06", "C08", "C09", "C28", "C10", "C11", "C12"]
TARGET = 101  # the only jungle hex next to a palm and to the ocean once hex 32 is removed


def ready(treasures=None, amulets=(0, 0, 0), piles=((), (), ()), **kw) -> TobagoState:
    """Seat 0 on the located white treasure: map 0 holds C01 (seat 0), C30 (seat 1), C28 (seat 2)."""
    state = given(3, ["C01", "C13", "C07"] + HANDS, treasures, **kw)
    from domain.tobago.commands import PlaceAtv
    for seat, h in enumerate((TARGET, 0, 1)):
        state = when(state, seat, PlaceAtv(hex=h)).state
    state = fold([CluePlayed(seat=1, map=0, card="C30"), CluePlayed(seat=2, map=0, card="C28"),
                  CandidateRemoved(seat=0, map=0, hex=32)], state)
    players = tuple(replace(p, amulets=a) for p, a in zip(state.players, amulets))
    private = tuple(replace(p, treasures=tuple(t)) for p, t in zip(state.hidden.private, piles))
    return replace(state, players=players, amulet_supply=21 - sum(amulets),
                   hidden=replace(state.hidden, private=private))


def test_collecting_needs_one_candidate_and_the_atv_on_it():
    state = ready()
    assert bits(candidates(state, 0)) == (TARGET,)
    with pytest.raises(RuleViolation) as exc:
        GAME.decide(state, 0, CollectTreasure(map=1), None)
    assert exc.value.code == "tobago.treasure_not_located"
    moved = replace(state, players=(replace(state.players[0], atv=0),) + state.players[1:])
    with pytest.raises(RuleViolation) as exc:
        GAME.decide(moved, 0, CollectTreasure(map=0), None)
    assert exc.value.code == "tobago.not_on_treasure"


def test_each_seat_draws_one_card_per_rose_and_the_finder_one_more():
    played = when(ready(), 0, CollectTreasure(map=0))
    draws = [(e.seat, e.count, e.extra) for e in played.events if isinstance(e, TreasuresDrawn)]
    assert draws == [(0, 2, False), (1, 1, False), (2, 1, False), (0, 1, True)]
    assert played.state.share.roses == (0, 2, 1, 0)  # finder's rose at the bottom, then clues bottom-up


def test_share_offers_from_the_bottom_rose_up_and_a_taker_gives_back_that_rose():
    # two roses of the finder (seat 0) and one each of seats 2 and 1, in that order from the bottom
    state = when(ready(), 0, CollectTreasure(map=0)).state
    assert to_act(state) == {0}
    state = when(state, 0, PassCard()).state
    assert to_act(state) == {2}
    state = when(state, 2, PassCard()).state
    assert to_act(state) == {1}
    state = when(state, 1, PassCard()).state  # nobody took it: discarded, next card offered at the bottom
    assert to_act(state) == {0} and state.share.revealed == 2
    card = state.share.card
    state = when(state, 0, TakeCard()).state
    assert state.hidden.private[0].treasures == (card,)
    assert state.share.roses == (2, 1, 0) and to_act(state) == {2}


def test_share_stops_when_roses_run_out_and_the_last_taker_starts_the_new_hunt():
    state = when(ready(), 0, CollectTreasure(map=0)).state
    for seat in (0, 2, 1, 0):
        assert to_act(state) == {seat}
        state = when(state, seat, TakeCard()).state
    assert state.phase == "new_hunt" and state.hunter == 0 and state.maps[0].slots == ()
    assert [len(p.treasures) for p in state.hidden.private] == [2, 1, 1]
    assert state.hidden.treasure_discard == state.hidden.treasure_discard[:1]  # the fifth card is discarded
    hand = state.hidden.private[0].hand
    assert {c.card for c in GAME.legal(state, 0)} == set(hand)
    played = when(state, 0, StartHunt(card=hand[0]))
    assert played.state.phase == "turn" and played.state.maps[0].slots[0].card == hand[0]
    assert len(played.state.hidden.private[0].hand) == 4 and played.state.turn.seat == 0
    # collected before acting: the turn's action is still to come
    assert not played.state.turn.acted and EndTurn() not in GAME.legal(played.state, 0)


def test_amulets_appear_where_the_statues_gaze_and_the_statues_turn():
    state = when(ready(), 0, CollectTreasure(map=0)).state
    for seat in (0, 2, 1, 0):
        state = when(state, seat, TakeCard()).state
    from domain.tobago.clues import board
    geo = board(state.island, state.landmarks).geo
    expected = {geo.gaze_target(s, f) for s, f in zip(state.landmarks.statues, (0, 2, 3))}
    assert set(state.amulets) == expected and state.facing == (1, 3, 4)
    assert state.amulet_supply == 21 - len(expected)


def _cursed_first(state: TobagoState):
    """Collect with a seed whose shuffled share pile reveals the curse first."""
    for n in range(200):
        played = when(state, 0, CollectTreasure(map=0), seed=b"curse%d" % n)
        reveal = [e for e in played.events if type(e).__name__ == "CardRevealed"]
        if reveal[0].card == CURSE:
            return played
    raise AssertionError("no seed revealed the curse first")


CURSED = dict(treasures=[CURSE, 6, 5, 4, 3] + [2] * 10, amulets=(0, 1, 0), piles=((), (), (5, 3)), curse_cards=1)


def test_standard_curse_stops_the_share_amulet_or_best_treasure_lost_finder_hunts():
    played = _cursed_first(ready(**CURSED))
    curse = next(e for e in played.events if isinstance(e, CurseStruck))
    assert (curse.amulet_losers, curse.treasure_losers, curse.lost_values, curse.stops) == ([1], [2], [5], True)
    state = played.state
    assert state.players[1].amulets == 0 and state.hidden.private[2].treasures == (3,)
    assert state.phase == "new_hunt" and state.hunter == 0 and state.curses_out == 1
    assert 5 in state.hidden.treasure_discard and state.hidden.share_pile == ()


def test_curse_variant_continue_applies_the_penalty_and_the_share_goes_on():
    played = _cursed_first(ready(curse_effect="continue", **CURSED))
    state = played.state
    assert state.phase == "share" and to_act(state) == {0} and state.share.roses == (0, 2, 1, 0)
    assert state.players[1].amulets == 0 and state.hidden.private[2].treasures == (3,)


def test_curse_variant_amulet_holders_keep_sharing_others_leave_and_lose_their_best_card():
    played = _cursed_first(ready(curse_effect="amulet_holders", **CURSED))
    curse = next(e for e in played.events if isinstance(e, CurseStruck))
    assert curse.leaving == [0, 2] and curse.amulet_losers == [1]
    assert played.state.share.roses == (1,) and to_act(played.state) == {1}


def test_returning_curse_is_shuffled_back_into_the_treasure_deck():
    played = _cursed_first(ready(curse_returns=True, **CURSED))
    assert CURSE in played.state.hidden.treasure_deck and played.state.curses_out == 0
    assert "TreasureDeckReshuffled" in [type(e).__name__ for e in played.events]


def test_one_curse_card_and_depth_21_shuffle_it_into_the_bottom_21():
    from domain.kernel import Rng
    from domain.tobago.setup import setup
    from domain.tobago.state import TobagoOptions
    for n in range(20):
        deck = setup(TobagoOptions(curse_cards=1, curse_depth=21), 2, Rng(b"d%d" % n, 0))[1].treasure_deck
        assert deck.count(CURSE) == 1 and deck.index(CURSE) >= len(deck) - 22 and len(deck) == 40


def test_the_game_ends_after_the_share_in_which_the_deck_runs_out_reshuffling_discards_if_needed():
    state = ready(treasures=[6, 5])
    state = replace(state, hidden=replace(state.hidden, treasure_discard=(4, 4, 3, 3, 2)))
    played = when(state, 0, CollectTreasure(map=0))
    assert "TreasureDeckReshuffled" in [type(e).__name__ for e in played.events]
    state = played.state
    assert state.ending and GAME.outcome(state) is None
    for seat in (0, 2, 1, 0):
        state = when(state, seat, TakeCard()).state
    assert state.phase == "over"
    outcome = GAME.outcome(state)
    gold = [sum(p.treasures) for p in state.hidden.private]
    assert outcome.scores == gold and outcome.winners == [s for s, g in enumerate(gold) if g == max(gold)]
