"""Setup and the turn (spec, *Setup*, *A turn*, *Amulets*): ATV placement, starting clues, playing clues,
driving by region steps, exchanging, amulet powers, and the refusal codes."""

from msgspec.structs import replace

from domain.tobago.commands import (
    AmuletStep, DoubleRose, Drive, EndTurn, ExchangeClues, PassCard, PlaceAtv, PlayClue, RemoveCandidate, SwapRoses)
from domain.tobago.events import AmuletCollected, CluePlayed
from domain.tobago.game import GAME
from domain.tobago.island import bits
from domain.tobago.state import TobagoState, candidates
from tests.domain.tobago.support import GEO, table, types
from tests.support.rules import refused, then, when

DECK = ["C01", "C13", "C07", "C02", "C03", "C04", "C05", "C30", "C06", "C08", "C09", "C28", "C10", "C11", "C12"]


def placed(seats: int = 3, atvs=(0, 50, 100), **kw) -> TobagoState:
    state = table(seats, DECK, **kw)
    for seat in range(seats):
        state = when(GAME, state, seat, PlaceAtv(hex=atvs[seat]))[0]
    return state


def test_atvs_are_placed_in_turn_order_then_each_player_starts_a_map_and_is_dealt_four_cards():
    state = table(3, DECK)
    assert GAME.to_act(state) == {0} and len(GAME.legal(state, 0)) == 104
    refused(GAME, state, 1, PlaceAtv(hex=3), "tobago.not_your_turn")
    events: list = []
    for seat in range(3):
        state, events = when(GAME, state, seat, PlaceAtv(hex=seat))
    assert [(e.seat, e.map, e.card) for e in events if isinstance(e, CluePlayed)] == [
        (0, 0, "C01"), (1, 1, "C13"), (2, 2, "C07")]
    assert [p.hand for p in state.hidden.private] == [tuple(DECK[3:7]), tuple(DECK[7:11]), tuple(DECK[11:15])]
    assert state.phase == "turn" and GAME.to_act(state) == {0} and state.maps[3].slots == ()


def test_two_players_hold_six_cards():
    state = placed(2, (0, 1))
    assert [len(p.hand) for p in state.hidden.private] == [6, 6]


def test_playing_a_clue_uses_the_action_and_draws_back_up():
    state = placed()
    state, events = when(GAME, state, 0, PlayClue(card="C03", map=3))  # the empty fourth map may be started by anyone
    assert types(events) == ["CluePlayed", "CluesDrawn"]
    assert state.turn.acted and len(state.hidden.private[0].hand) == 4 and state.maps[3].slots[0].seat == 0
    refused(GAME, state, 0, PlayClue(card="C02", map=3), "tobago.already_acted")
    refused(GAME, state, 0, Drive(hex=1), "tobago.too_far")
    assert GAME.legal(state, 0) == [EndTurn()]
    assert types(when(GAME, state, 0, EndTurn())[1]) == ["TurnEnded"]


def test_clue_rules_are_enforced_with_stable_codes():
    state = placed()
    refused(GAME, state, 0, PlayClue(card="C30", map=0), "tobago.not_in_hand")
    refused(GAME, state, 0, PlayClue(card="C02", map=0), "tobago.clue_contradicts")  # in jungle vs mountains
    refused(GAME, state, 0, PlayClue(card="C02", map=9), "tobago.no_such_map")
    legal = [c for c in GAME.legal(state, 0) if isinstance(c, PlayClue)]
    assert PlayClue(card="C02", map=1) in legal and all(not c.amulet for c in legal)


def test_driving_counts_region_steps_and_may_be_split_until_three_are_used():
    state = placed()
    dist = GEO.steps_from(0)
    far = dist.index(4)
    refused(GAME, state, 0, Drive(hex=far), "tobago.too_far")
    refused(GAME, state, 0, Drive(hex=0), "tobago.not_moving")
    two = dist.index(2)
    state = when(GAME, state, 0, Drive(hex=two))[0]
    assert state.turn.steps_left == 1
    reach = {c.hex for c in GAME.legal(state, 0) if isinstance(c, Drive)}
    assert reach == {h for h, d in enumerate(GEO.steps_from(two)) if d == 1}
    refused(GAME, state, 0, PlayClue(card="C02", map=1), "tobago.already_acted")


def test_ending_a_drive_on_an_amulet_collects_it_but_an_amulet_step_does_not():
    state = replace(placed(), amulets=(1,), amulet_supply=20)
    state, events = when(GAME, state, 0, Drive(hex=1))
    assert any(isinstance(e, AmuletCollected) for e in events)
    assert state.players[0].amulets == 1 and state.amulets == ()
    back = replace(state, amulets=(0,), amulet_supply=19)
    stepped, events = when(GAME, back, 0, AmuletStep(hex=0))
    assert types(events) == ["AmuletSpent", "Drove"] and stepped.amulets == (0,)


def test_an_amulet_under_your_atv_is_collected_at_the_start_of_your_turn():
    state = when(GAME, placed(), 0, PlayClue(card="C03", map=3))[0]
    state = replace(state, amulets=(50,), amulet_supply=20)
    state, events = when(GAME, state, 0, EndTurn())
    assert types(events) == ["TurnEnded", "AmuletCollected"] and state.players[1].amulets == 1


def test_exchanging_clues_uses_the_turn_or_an_amulet():
    state = placed()
    state, _ = when(GAME, state, 0, ExchangeClues())
    assert state.turn.acted and len(state.hidden.private[0].hand) == 4
    assert set(state.hidden.private[0].hand).isdisjoint(DECK[3:7])
    refused(GAME, state, 0, ExchangeClues(amulet=True), "tobago.no_amulet")


def _with_amulets(state: TobagoState, seat: int, n: int) -> TobagoState:
    players = list(state.players)
    players[seat] = replace(players[seat], amulets=n)
    return replace(state, players=tuple(players), amulet_supply=21 - n)


def test_removing_a_marker_needs_markers_on_the_board_and_never_takes_the_last():
    state = _with_amulets(placed(), 0, 3)
    refused(GAME, state, 0, RemoveCandidate(map=0, hex=0), "tobago.no_markers")  # 24 jungle hexes
    state = then(GAME, _with_amulets(state, 0, 7), CluePlayed(seat=1, map=0, card="C30"))  # 7 candidates left
    cand = bits(candidates(state, 0))
    assert len(cand) == 7
    refused(GAME, state, 0, RemoveCandidate(map=0, hex=1), "tobago.not_a_candidate")
    for h in cand[:-1]:
        state = when(GAME, state, 0, RemoveCandidate(map=0, hex=h))[0]
    assert bits(candidates(state, 0)) == cand[-1:] and state.players[0].amulets == 1
    refused(GAME, state, 0, RemoveCandidate(map=0, hex=cand[-1]), "tobago.last_marker")


def test_an_extra_clue_with_an_amulet_after_the_action():
    state = when(GAME, _with_amulets(placed(), 0, 1), 0, PlayClue(card="C03", map=3))[0]
    state, events = when(GAME, state, 0, PlayClue(card="C02", map=1, amulet=True))
    assert types(events)[:2] == ["AmuletSpent", "CluePlayed"] and state.players[0].amulets == 0


def test_advanced_amulets_double_a_rose_and_swap_roses():
    state = _with_amulets(placed(advanced_amulets=True), 0, 2)
    refused(GAME, _with_amulets(placed(), 0, 1), 0, DoubleRose(map=0, slot=0), "tobago.advanced_only")
    refused(GAME, state, 0, DoubleRose(map=1, slot=0), "tobago.not_your_rose")
    state = when(GAME, state, 0, DoubleRose(map=0, slot=0))[0]
    assert state.maps[0].slots[0].roses == 2
    refused(GAME, state, 0, DoubleRose(map=0, slot=0), "tobago.already_double")
    state = then(GAME, state, CluePlayed(seat=1, map=0, card="C30"))
    refused(GAME, state, 0, SwapRoses(map=0, a=0, b=0), "tobago.no_such_slot")
    state = when(GAME, state, 0, SwapRoses(map=0, a=0, b=1))[0]  # the double pair moves as one
    assert [(s.card, s.seat, s.roses) for s in state.maps[0].slots] == [("C01", 1, 1), ("C30", 0, 2)]


def test_end_turn_needs_the_action_and_share_commands_need_a_share():
    state = placed()
    refused(GAME, state, 0, EndTurn(), "tobago.action_required")
    refused(GAME, state, 0, PassCard(), "tobago.wrong_phase")
    refused(GAME, state, 0, PlaceAtv(hex=3), "tobago.wrong_phase")
