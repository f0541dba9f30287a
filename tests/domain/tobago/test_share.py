"""Finding a treasure, the share, curses (every option), amulets appearing and the end
(spec, *Finding a treasure*, *End*; rulebook, "Сбор сокровищ", "Дележка сокровищ", "Карты проклятий")."""

from msgspec.structs import replace

from domain.kernel import Rng
from domain.tobago.commands import CollectTreasure, EndTurn, PassCard, PlaceAtv, StartHunt, TakeCard
from domain.tobago.components import CURSE
from domain.tobago.events import CandidateRemoved, CluePlayed, CurseStruck, TreasuresDrawn
from domain.tobago.game import GAME
from domain.tobago.rules import to_act
from domain.tobago.island import bits
from domain.tobago.options import TobagoOptions
from domain.tobago.state import TobagoState, candidates
from tests.domain.tobago.support import table
from tests.support.rules import refused, rng, then, when

HANDS = ["C02", "C03", "C04", "C05", "C30", "C06", "C08", "C09", "C28", "C10", "C11", "C12"]
TARGET = 101  # the only jungle hex next to a palm and to the ocean once hex 32 is removed


def ready(treasures=None, amulets=(0, 0, 0), piles=((), (), ()), **kw) -> TobagoState:
    """Seat 0 on the located white treasure: map 0 holds C01 (seat 0), C30 (seat 1), C28 (seat 2)."""
    state = table(3, ["C01", "C13", "C07"] + HANDS, treasures, **kw)
    for seat, h in enumerate((TARGET, 0, 1)):
        state, _ = when(GAME, state, seat, PlaceAtv(hex=h))
    state = then(GAME, state, CluePlayed(seat=1, map=0, card="C30"), CluePlayed(seat=2, map=0, card="C28"),
                 CandidateRemoved(seat=0, map=0, hex=32))
    players = tuple(replace(p, amulets=a) for p, a in zip(state.players, amulets))
    private = tuple(replace(p, treasures=tuple(t)) for p, t in zip(state.hidden.private, piles))
    return replace(state, players=players, amulet_supply=21 - sum(amulets),
                   hidden=replace(state.hidden, private=private))


def test_collecting_needs_one_candidate_and_the_atv_on_it():
    state = ready()
    assert bits(candidates(state, 0)) == (TARGET,)
    refused(GAME, state, 0, CollectTreasure(map=1), "tobago.treasure_not_located")
    moved = replace(state, players=(replace(state.players[0], atv=0),) + state.players[1:])
    refused(GAME, moved, 0, CollectTreasure(map=0), "tobago.not_on_treasure")


def test_each_seat_draws_one_card_per_rose_and_the_finder_one_more():
    state, events = when(GAME, ready(), 0, CollectTreasure(map=0))
    draws = [(e.seat, e.count, e.extra) for e in events if isinstance(e, TreasuresDrawn)]
    assert draws == [(0, 2, False), (1, 1, False), (2, 1, False), (0, 1, True)]
    assert state.share.roses == (0, 2, 1, 0)  # finder's rose at the bottom, then clues bottom-up


def test_share_offers_from_the_bottom_rose_up_and_a_taker_gives_back_that_rose():
    # two roses of the finder (seat 0) and one each of seats 2 and 1, in that order from the bottom
    state = when(GAME, ready(), 0, CollectTreasure(map=0))[0]
    assert to_act(state) == {0}
    state = when(GAME, state, 0, PassCard())[0]
    assert to_act(state) == {2}
    state = when(GAME, state, 2, PassCard())[0]
    assert to_act(state) == {1}
    state = when(GAME, state, 1, PassCard())[0]  # nobody took it: discarded, next card offered at the bottom
    assert to_act(state) == {0} and state.share.revealed == 2
    card = state.share.card
    state = when(GAME, state, 0, TakeCard())[0]
    assert state.hidden.private[0].treasures == (card,)
    assert state.share.roses == (2, 1, 0) and to_act(state) == {2}


def test_share_stops_when_roses_run_out_and_the_last_taker_starts_the_new_hunt():
    # rulebook: the player who took the last treasure card starts the new hunt
    state = when(GAME, ready(), 0, CollectTreasure(map=0))[0]
    for seat in (0, 2, 1, 0):
        assert to_act(state) == {seat}
        state = when(GAME, state, seat, TakeCard())[0]
    assert state.phase == "new_hunt" and state.hunter == 0 and state.maps[0].slots == ()
    assert [len(p.treasures) for p in state.hidden.private] == [2, 1, 1]
    assert state.hidden.treasure_discard == state.hidden.treasure_discard[:1]  # the fifth card is discarded
    hand = state.hidden.private[0].hand
    assert {c.card for c in GAME.legal(state, 0)} == set(hand)
    state, _ = when(GAME, state, 0, StartHunt(card=hand[0]))
    assert state.phase == "turn" and state.maps[0].slots[0].card == hand[0]
    assert len(state.hidden.private[0].hand) == 4 and state.turn.seat == 0
    # collected before acting: the turn's action is still to come
    assert not state.turn.acted and EndTurn() not in GAME.legal(state, 0)


def test_amulets_appear_where_the_statues_gaze_and_the_statues_turn():
    state = when(GAME, ready(), 0, CollectTreasure(map=0))[0]
    for seat in (0, 2, 1, 0):
        state = when(GAME, state, seat, TakeCard())[0]
    from domain.tobago.clues import board
    geo = board(state.island, state.landmarks).geo
    expected = {geo.gaze_target(s, f) for s, f in zip(state.landmarks.statues, (0, 2, 3))}
    assert set(state.amulets) == expected and state.facing == (1, 3, 4)
    assert state.amulet_supply == 21 - len(expected)


def _cursed_first(state: TobagoState, second: bool = False) -> tuple[TobagoState, list]:
    """Collect with a seed whose shuffled share pile reveals a curse first (and, if `second`, holds another)."""
    for n in range(400):
        after, events = when(GAME, state, 0, CollectTreasure(map=0), rng(n, b"curse"))
        reveal = [e for e in events if type(e).__name__ == "CardRevealed"]
        pile = next(e.pile for e in events if type(e).__name__ == "ShareShuffled")
        if reveal[0].card == CURSE and (not second or CURSE in pile[1:]):
            return after, events
    raise AssertionError("no seed revealed the curse first")


def _share_out(state: TobagoState, takers: set[int]) -> TobagoState:
    """Seats in `takers` take every card offered to them, the others pass, until the share is over."""
    while state.phase == "share":
        (seat,) = to_act(state)
        state = when(GAME, state, seat, TakeCard() if seat in takers else PassCard())[0]
    return state


CURSED = dict(treasures=[CURSE, 6, 5, 4, 3] + [2] * 10, amulets=(0, 1, 0), piles=((), (), (5, 3)), curse_cards=1)
TWO_CURSES = dict(treasures=[CURSE, CURSE, 6, 5, 4] + [2] * 10, amulets=(0, 1, 0), piles=((), (), (5, 3)))


def test_standard_curse_stops_the_share_amulet_or_best_treasure_lost():
    state, events = _cursed_first(ready(**CURSED))
    curse = next(e for e in events if isinstance(e, CurseStruck))
    assert (curse.amulet_losers, curse.treasure_losers, curse.lost_values, curse.stops) == ([1], [2], [5], True)
    assert state.players[1].amulets == 0 and state.hidden.private[2].treasures == (3,)
    assert state.phase == "new_hunt" and state.curses_out == 1
    assert 5 in state.hidden.treasure_discard and state.hidden.share_pile == ()


def test_the_finder_starts_the_new_hunt_only_when_no_card_was_taken_at_all():
    # spec, *Finding a treasure*: "The finder does only when no card was taken at all (for instance when
    # the first revealed card was a curse that stopped the share)"
    state, _ = _cursed_first(ready(**CURSED))
    assert state.hunter == 0 and to_act(state) == {0}


def test_the_player_who_took_the_last_card_starts_the_new_hunt_even_when_it_is_not_the_finder():
    # spec: "the player who took the last card starts a new hunt on it with a clue from his hand"
    state = when(GAME, ready(), 0, CollectTreasure(map=0))[0]
    state = _share_out(state, takers={2})
    assert state.phase == "new_hunt" and state.hunter == 2 and to_act(state) == {2}


def test_curse_variant_continue_applies_the_penalty_and_the_share_goes_on():
    state, _ = _cursed_first(ready(curse_effect="continue", **CURSED))
    assert state.phase == "share" and to_act(state) == {0} and state.share.roses == (0, 2, 1, 0)
    assert state.players[1].amulets == 0 and state.hidden.private[2].treasures == (3,)


def test_after_a_curse_revealed_first_the_share_goes_on_and_the_last_taker_starts_the_new_hunt():
    # spec: "when a curse came first but the share went on (continue, amulet_holders) and cards were
    # taken, the last taker does" -- not the finder (seat 0, who takes nothing here)
    for mode in ("continue", "amulet_holders"):
        state, _ = _cursed_first(ready(curse_effect=mode, **CURSED))
        assert state.share.finder == 0 and state.phase == "share"
        state = _share_out(state, takers={1, 2})
        assert state.phase == "new_hunt" and state.hunter == 1 and to_act(state) == {1}, mode


def test_curse_variant_amulet_holders_keep_sharing_others_leave_and_lose_their_best_card():
    state, events = _cursed_first(ready(curse_effect="amulet_holders", **CURSED))
    curse = next(e for e in events if isinstance(e, CurseStruck))
    assert curse.leaving == [0, 2] and curse.amulet_losers == [1]
    assert state.share.roses == (1,) and to_act(state) == {1}


def test_a_curse_left_over_in_the_share_pile_is_discarded_without_effect_not_removed():
    # spec: "the remaining cards are discarded face down, a second curse among them too, without effect
    # (it stays in the discard pile and so can come back in the end-of-game reshuffle)"
    state, events = _cursed_first(ready(**TWO_CURSES), second=True)
    assert [type(e).__name__ for e in events].count("CurseStruck") == 1
    assert state.curses_out == 1, "only the curse that took effect has left the game"
    assert state.hidden.treasure_discard.count(CURSE) == 1 and state.hidden.share_pile == ()


def test_the_end_of_game_reshuffle_takes_the_whole_discard_pile_with_its_unrevealed_curse():
    state = ready(treasures=[6], piles=((), (), ()))
    state = replace(state, hidden=replace(state.hidden, treasure_discard=(CURSE, 4, 3, 3, 2)))
    state, events = when(GAME, state, 0, CollectTreasure(map=0))
    shuffled = next(e for e in events if type(e).__name__ == "TreasureDeckReshuffled")
    assert shuffled.from_discard and sorted(shuffled.order) == [CURSE, 2, 3, 3, 4]


def test_returning_curse_is_shuffled_back_into_the_treasure_deck():
    state, events = _cursed_first(ready(curse_returns=True, **CURSED))
    assert CURSE in state.hidden.treasure_deck and state.curses_out == 0
    assert "TreasureDeckReshuffled" in [type(e).__name__ for e in events]


def test_one_curse_card_and_depth_21_shuffle_it_into_the_bottom_21():
    for n in range(20):
        deck = GAME.setup(TobagoOptions(curse_cards=1, curse_depth=21), 2, Rng(b"d%d" % n, 0))[1].treasure_deck
        assert deck.count(CURSE) == 1 and deck.index(CURSE) >= len(deck) - 22 and len(deck) == 40


def test_the_game_ends_after_the_share_in_which_the_deck_runs_out_reshuffling_discards_if_needed():
    state = ready(treasures=[6, 5])
    state = replace(state, hidden=replace(state.hidden, treasure_discard=(4, 4, 3, 3, 2)))
    state, events = when(GAME, state, 0, CollectTreasure(map=0))
    assert "TreasureDeckReshuffled" in [type(e).__name__ for e in events]
    assert state.ending and GAME.outcome(state) is None
    for seat in (0, 2, 1, 0):
        state = when(GAME, state, seat, TakeCard())[0]
    assert state.phase == "over"
    outcome = GAME.outcome(state)
    gold = [sum(p.treasures) for p in state.hidden.private]
    assert outcome.scores == gold and outcome.winners == [s for s, g in enumerate(gold) if g == max(gold)]
