"""Tobago's decide, legal, to_act and outcome, sharing one predicate (`refusal`) per command.

`refusal(state, seat, command)` returns the RuleViolation that refuses a
command, or None: the seat and phase first, then the command's own predicate
found in `REFUSALS` by command type. `decide` raises it through `require` or
builds the events. By definition `legal` lists every candidate command `refusal` does not
refuse; it builds them directly, without asking `refusal` of each (`rules_listing.py`, tested
against the definition in tests/domain/tobago/test_listing.py). The share, curses, new hunt and
game end are in `share.py`; setup in `setup.py`.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from domain.kernel import Emitter, Outcome, Rng, RuleViolation, ranked, require
from domain.tobago.commands import (
    AmuletStep, CollectTreasure, DoubleRose, Drive, EndTurn, ExchangeClues, PassCard, PlaceAtv, PlayClue,
    RemoveCandidate, StartHunt, SwapRoses, TakeCard, TobagoCommand)
from domain.tobago.components import MARKERS_PER_MAP
from domain.tobago.events import (
    AmuletCollected, AmuletSpent, AtvPlaced, CandidateRemoved, CluePlayed, Drove, HandExchanged, RoseDoubled,
    RosesSwapped, TobagoEvent)
from domain.tobago.evolve import evolve
from domain.tobago.island import bits
from domain.tobago.share import (
    Emit, answer_offer, clue_play_refusal, collect_treasure, refill_hand, start_hunt, start_turn)
from domain.tobago.rules_listing import listing
from domain.tobago.state import TobagoState, board_of, candidates, drive_steps_left, roses_left

Refusal = Optional[RuleViolation]
PHASE_OF = {PlaceAtv: "place_atv", TakeCard: "share", PassCard: "share", StartHunt: "new_hunt"}


def to_act(state: TobagoState) -> frozenset[int]:
    """The seat that must act: the active player, the seat offered a share card, or the new hunter."""
    if state.phase in ("place_atv", "turn"):
        return frozenset({state.turn.seat})
    if state.phase == "share" and state.share is not None and state.share.offer is not None:
        return frozenset({state.share.offer})
    if state.phase == "new_hunt" and state.hunter is not None:
        return frozenset({state.hunter})
    return frozenset()


def _amulet(state: TobagoState, seat: int, needed: bool) -> Refusal:
    if needed and state.players[seat].amulets <= 0:
        return RuleViolation("tobago.no_amulet", "you have no amulet")
    return None


def _main_action(state: TobagoState, amulet: bool) -> Refusal:
    if not amulet and state.turn.acted:
        return RuleViolation("tobago.already_acted",
                             "you already took your action this turn (an amulet pays for another)")
    return None


def _map(state: TobagoState, index: int) -> Refusal:
    if not 0 <= index < len(state.maps):
        return RuleViolation("tobago.no_such_map", f"there is no map {index}")
    return None


def _hex(state: TobagoState, hex_: int) -> Refusal:
    if not 0 <= hex_ < len(state.island):
        return RuleViolation("tobago.no_such_hex", f"there is no land hex {hex_}")
    return None


def _in_hand(state: TobagoState, seat: int, card: str) -> Refusal:
    if card not in state.hidden.private[seat].hand:
        return RuleViolation("tobago.not_in_hand", f"{card} is not in your hand")
    return None


def _advanced(state: TobagoState) -> Refusal:
    if not state.options.advanced_amulets:
        return RuleViolation("tobago.advanced_only", "this amulet power needs the advanced_amulets option")
    return None


# -- one predicate per command, found through REFUSALS once the seat may act and the phase fits --

def _place_atv(state: TobagoState, seat: int, command: PlaceAtv) -> Refusal:
    return _hex(state, command.hex)


def _answer_offer(state: TobagoState, seat: int, command: TakeCard | PassCard) -> Refusal:
    return None


def _start_hunt(state: TobagoState, seat: int, command: StartHunt) -> Refusal:
    if err := _in_hand(state, seat, command.card):
        return err
    assert state.hunt_map is not None
    return clue_play_refusal(state, seat, state.hunt_map, command.card)


def _play_clue(state: TobagoState, seat: int, command: PlayClue) -> Refusal:
    return (_in_hand(state, seat, command.card) or _map(state, command.map) or _amulet(state, seat, command.amulet)
            or _main_action(state, command.amulet) or clue_play_refusal(state, seat, command.map, command.card))


def _exchange_clues(state: TobagoState, seat: int, command: ExchangeClues) -> Refusal:
    if not state.hidden.private[seat].hand:
        return RuleViolation("tobago.empty_hand", "you hold no clue card to exchange")
    return _amulet(state, seat, command.amulet) or _main_action(state, command.amulet)


def _drive(state: TobagoState, seat: int, command: Drive | AmuletStep) -> Refusal:
    amulet = isinstance(command, AmuletStep)
    if err := _hex(state, command.hex) or _amulet(state, seat, amulet):
        return err
    atv = state.players[seat].atv
    assert atv is not None
    steps = board_of(state).geo.steps_from(atv)[command.hex]
    if steps == 0:
        return RuleViolation("tobago.not_moving", "the ATV already stands there")
    limit = 1 if amulet else drive_steps_left(state)
    if steps > limit:
        return RuleViolation("tobago.too_far", f"that hex is {steps} steps away, {limit} left")
    return None


def _collect_treasure(state: TobagoState, seat: int, command: CollectTreasure) -> Refusal:
    if err := _map(state, command.map):
        return err
    cand = bits(candidates(state, command.map))
    if not state.maps[command.map].slots or len(cand) != 1:
        return RuleViolation("tobago.treasure_not_located", "the map has more than one candidate")
    if cand[0] != state.players[seat].atv:
        return RuleViolation("tobago.not_on_treasure", "your ATV is not on the treasure")
    return None


def _remove_candidate(state: TobagoState, seat: int, command: RemoveCandidate) -> Refusal:
    if err := _map(state, command.map) or _amulet(state, seat, True):
        return err
    cand = bits(candidates(state, command.map))
    if not state.maps[command.map].slots or len(cand) > MARKERS_PER_MAP:
        return RuleViolation("tobago.no_markers", "the map's markers are not on the board yet")
    if command.hex not in cand:
        return RuleViolation("tobago.not_a_candidate", "no marker of that map lies there")
    if len(cand) == 1:
        return RuleViolation("tobago.last_marker", "the last marker of a map may not be removed")
    return None


def _double_rose(state: TobagoState, seat: int, command: DoubleRose) -> Refusal:
    if err := _advanced(state) or _map(state, command.map) or _amulet(state, seat, True):
        return err
    slots, slot = state.maps[command.map].slots, command.slot
    if not 0 <= slot < len(slots):
        return RuleViolation("tobago.no_such_slot", "that map has no such clue")
    if slots[slot].seat != seat:
        return RuleViolation("tobago.not_your_rose", "you may double only a clue that holds your rose")
    if slots[slot].roses > 1:
        return RuleViolation("tobago.already_double", "that clue already holds two roses")
    if roses_left(state, seat) <= 0:
        return RuleViolation("tobago.no_roses", "you have no compass rose left")
    return None


def _swap_roses(state: TobagoState, seat: int, command: SwapRoses) -> Refusal:
    if err := _advanced(state) or _map(state, command.map) or _amulet(state, seat, True):
        return err
    slots, a, b = state.maps[command.map].slots, command.a, command.b
    if not 0 <= a < b < len(slots):
        return RuleViolation("tobago.no_such_slot", "name two clues of the map, top one first")
    if seat not in (slots[a].seat, slots[b].seat) or slots[a].seat == slots[b].seat:
        return RuleViolation("tobago.bad_swap", "swap your rose(s) with another player's")
    return None


def _end_turn(state: TobagoState, seat: int, command: EndTurn) -> Refusal:
    if not state.turn.acted:
        return RuleViolation("tobago.action_required", "play a clue, drive or exchange before ending the turn")
    return None


REFUSALS: dict[type, Callable[[TobagoState, int, Any], Refusal]] = {
    PlaceAtv: _place_atv, TakeCard: _answer_offer, PassCard: _answer_offer, StartHunt: _start_hunt,
    PlayClue: _play_clue, ExchangeClues: _exchange_clues, Drive: _drive, AmuletStep: _drive,
    CollectTreasure: _collect_treasure, RemoveCandidate: _remove_candidate, DoubleRose: _double_rose,
    SwapRoses: _swap_roses, EndTurn: _end_turn,
}


def refusal(state: TobagoState, seat: int, command: TobagoCommand) -> Refusal:
    """Why `seat` may not give `command` now, or None; `decide` and `legal` both ask this."""
    if seat not in to_act(state):
        return RuleViolation("tobago.not_your_turn", "another seat must act now")
    if PHASE_OF.get(type(command), "turn") != state.phase:
        return RuleViolation("tobago.wrong_phase", f"{type(command).__name__} is not possible during {state.phase}")
    return REFUSALS[type(command)](state, seat, command)


def decide(state: TobagoState, seat: int, command: TobagoCommand, rng: Rng) -> list[TobagoEvent]:
    """The events of `seat` giving `command` now; RuleViolation when the rules refuse it."""
    require(refusal(state, seat, command))
    em: Emit = Emitter(evolve, state)
    match command:
        case PlaceAtv():
            place_atv(em, rng, seat, command.hex)
        case TakeCard() | PassCard():
            answer_offer(em, rng, seat, isinstance(command, TakeCard))
        case StartHunt(card=card):
            start_hunt(em, rng, seat, card)
        case PlayClue(card=card, map=index, amulet=amulet):
            if amulet:
                em(AmuletSpent(seat=seat, power="clue"))
            em(CluePlayed(seat=seat, map=index, card=card, main_action=not amulet))
            refill_hand(em, rng, seat)
        case ExchangeClues(amulet=amulet):
            if amulet:
                em(AmuletSpent(seat=seat, power="exchange"))
            cards = list(state.hidden.private[seat].hand)
            em(HandExchanged(seat=seat, count=len(cards), cards=cards, main_action=not amulet))
            refill_hand(em, rng, seat)
        case Drive(hex=h):
            steps = board_of(state).geo.steps_from(state.players[seat].atv)[h]  # type: ignore[index]
            em(Drove(seat=seat, hex=h, steps=steps))
            if h in em.state.amulets:
                em(AmuletCollected(seat=seat, hex=h))
        case AmuletStep(hex=h):
            em(AmuletSpent(seat=seat, power="step"))
            em(Drove(seat=seat, hex=h, steps=1, amulet=True))
        case CollectTreasure(map=index):
            collect_treasure(em, rng, seat, index)
        case RemoveCandidate(map=index, hex=h):
            em(AmuletSpent(seat=seat, power="remove"))
            em(CandidateRemoved(seat=seat, map=index, hex=h))
        case DoubleRose(map=index, slot=slot):
            em(AmuletSpent(seat=seat, power="double"))
            em(RoseDoubled(seat=seat, map=index, slot=slot))
        case SwapRoses(map=index, a=a, b=b):
            em(AmuletSpent(seat=seat, power="swap"))
            em(RosesSwapped(seat=seat, map=index, a=a, b=b))
        case EndTurn():
            start_turn(em, seat, (seat + 1) % len(state.players))
    return em.events


def legal(state: TobagoState, seat: int) -> list[TobagoCommand]:
    """Every command `seat` may give now: by definition the candidates `refusal` lets through (see
    tests/domain/tobago/test_listing.py), built directly by `rules_listing`."""
    if seat not in to_act(state):
        return []
    return listing(state, seat)


def place_atv(em: Emit, rng: Rng, seat: int, hex_: int) -> None:
    """Place an ATV; after the last one, each player starts a map with the top clue and hands are dealt."""
    state = em(AtvPlaced(seat=seat, hex=hex_))
    if any(p.atv is None for p in state.players):
        return
    n = len(state.players)
    order = [(state.turn.seat + k) % n for k in range(n)]
    for index, player in enumerate(order):
        state = em(CluePlayed(seat=player, map=index, card=state.hidden.clue_deck[0], from_deck=True))
    for player in order:
        refill_hand(em, rng, player)
    start_turn(em, order[-1], order[0])


def outcome(state: TobagoState) -> Optional[Outcome]:
    """Gold per seat once the game is over; ties share the win."""
    if state.phase != "over":
        return None
    result = ranked([sum(p.treasures) for p in state.hidden.private])
    return Outcome(scores=result.scores, ranks=result.ranks, winners=result.winners,
                   details={"cards": [len(p.treasures) for p in state.hidden.private]})
