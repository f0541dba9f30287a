"""Tobago's decide, legal and to_act, sharing one predicate (`problem`) per command.

`problem(state, seat, command)` returns the RuleViolation that refuses a
command, or None; `decide` raises it through `require` or builds the events,
and `legal` offers every candidate command it does not refuse. The share,
curses, new hunt and game end are in `share.py`; setup in `setup.py`.
"""

from __future__ import annotations

from typing import Optional

from domain.kernel import Emitter, Rng, RuleViolation, offered, require
from domain.tobago.commands import (
    AmuletStep, CollectTreasure, DoubleRose, Drive, EndTurn, ExchangeClues, PassCard, PlaceAtv, PlayClue,
    RemoveCandidate, StartHunt, SwapRoses, TakeCard, TobagoCommand)
from domain.tobago.components import DRIVE_STEPS, MARKERS_PER_MAP
from domain.tobago.events import (
    AmuletCollected, AmuletSpent, AtvPlaced, CandidateRemoved, CluePlayed, Drove, HandExchanged, RoseDoubled,
    RosesSwapped, TobagoEvent)
from domain.tobago.evolve import evolve
from domain.tobago.island import bits
from domain.tobago.share import (
    Emit, answer_offer, clue_problem, collect_treasure, refill_hand, start_hunt, start_turn)
from domain.tobago.state import TobagoState, board_of, candidates, roses_left

Problem = Optional[RuleViolation]
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


def drive_steps_left(state: TobagoState) -> int:
    """Drive steps still open this turn (all of them until the turn's action is taken)."""
    return DRIVE_STEPS if not state.turn.acted else state.turn.steps_left


def _amulet(state: TobagoState, seat: int, needed: bool) -> Problem:
    if needed and state.players[seat].amulets <= 0:
        return RuleViolation("tobago.no_amulet", "you have no amulet")
    return None


def _main_action(state: TobagoState, amulet: bool) -> Problem:
    if not amulet and state.turn.acted:
        return RuleViolation("tobago.already_acted",
                             "you already took your action this turn (an amulet pays for another)")
    return None


def _map(state: TobagoState, index: int) -> Problem:
    if not 0 <= index < len(state.maps):
        return RuleViolation("tobago.no_such_map", f"there is no map {index}")
    return None


def _hex(state: TobagoState, hex_: int) -> Problem:
    if not 0 <= hex_ < len(state.island):
        return RuleViolation("tobago.no_such_hex", f"there is no land hex {hex_}")
    return None


def problem(state: TobagoState, seat: int, command: TobagoCommand) -> Problem:
    """Why `seat` may not give `command` now, or None."""
    if seat not in to_act(state):
        return RuleViolation("tobago.not_your_turn", "another seat must act now")
    if PHASE_OF.get(type(command), "turn") != state.phase:
        return RuleViolation("tobago.wrong_phase", f"{type(command).__name__} is not possible during {state.phase}")
    return _command_problem(state, seat, command)


def _command_problem(state: TobagoState, seat: int, command: TobagoCommand) -> Problem:  # noqa: C901
    """The command's own rule, once the seat may act and the phase fits."""
    me = state.players[seat]
    hand = state.hidden.private[seat].hand
    match command:
        case PlaceAtv(hex=h):
            return _hex(state, h)
        case TakeCard() | PassCard():
            return None
        case StartHunt(card=card):
            if card not in hand:
                return RuleViolation("tobago.not_in_hand", f"{card} is not in your hand")
            assert state.hunt_map is not None
            return clue_problem(state, seat, state.hunt_map, card)
        case PlayClue(card=card, map=index, amulet=amulet):
            if card not in hand:
                return RuleViolation("tobago.not_in_hand", f"{card} is not in your hand")
            return (_map(state, index) or _amulet(state, seat, amulet) or _main_action(state, amulet)
                    or clue_problem(state, seat, index, card))
        case ExchangeClues(amulet=amulet):
            if not hand:
                return RuleViolation("tobago.empty_hand", "you hold no clue card to exchange")
            return _amulet(state, seat, amulet) or _main_action(state, amulet)
        case Drive(hex=h) | AmuletStep(hex=h):
            amulet = isinstance(command, AmuletStep)
            if err := _hex(state, h) or _amulet(state, seat, amulet):
                return err
            assert me.atv is not None
            steps = board_of(state).geo.steps_from(me.atv)[h]
            if steps == 0:
                return RuleViolation("tobago.not_moving", "the ATV already stands there")
            limit = 1 if amulet else drive_steps_left(state)
            if steps > limit:
                return RuleViolation("tobago.too_far", f"that hex is {steps} steps away, {limit} left")
            return None
        case CollectTreasure(map=index):
            if err := _map(state, index):
                return err
            cand = bits(candidates(state, index))
            if not state.maps[index].slots or len(cand) != 1:
                return RuleViolation("tobago.treasure_not_located", "the map has more than one candidate")
            if cand[0] != me.atv:
                return RuleViolation("tobago.not_on_treasure", "your ATV is not on the treasure")
            return None
        case RemoveCandidate(map=index, hex=h):
            if err := _map(state, index) or _amulet(state, seat, True):
                return err
            cand = bits(candidates(state, index))
            if not state.maps[index].slots or len(cand) > MARKERS_PER_MAP:
                return RuleViolation("tobago.no_markers", "the map's markers are not on the board yet")
            if h not in cand:
                return RuleViolation("tobago.not_a_candidate", "no marker of that map lies there")
            if len(cand) == 1:
                return RuleViolation("tobago.last_marker", "the last marker of a map may not be removed")
            return None
        case DoubleRose(map=index, slot=slot):
            if err := _advanced(state) or _map(state, index) or _amulet(state, seat, True):
                return err
            slots = state.maps[index].slots
            if not 0 <= slot < len(slots):
                return RuleViolation("tobago.no_such_slot", "that map has no such clue")
            if slots[slot].seat != seat:
                return RuleViolation("tobago.not_your_rose", "you may double only a clue that holds your rose")
            if slots[slot].roses > 1:
                return RuleViolation("tobago.already_double", "that clue already holds two roses")
            if roses_left(state, seat) <= 0:
                return RuleViolation("tobago.no_roses", "you have no compass rose left")
            return None
        case SwapRoses(map=index, a=a, b=b):
            if err := _advanced(state) or _map(state, index) or _amulet(state, seat, True):
                return err
            slots = state.maps[index].slots
            if not 0 <= a < b < len(slots):
                return RuleViolation("tobago.no_such_slot", "name two clues of the map, top one first")
            if seat not in (slots[a].seat, slots[b].seat) or slots[a].seat == slots[b].seat:
                return RuleViolation("tobago.bad_swap", "swap your rose(s) with another player's")
            return None
        case EndTurn():
            if not state.turn.acted:
                return RuleViolation("tobago.action_required", "play a clue, drive or exchange before ending the turn")
            return None
    return RuleViolation("tobago.wrong_phase", "unknown command")  # pragma: no cover


def _advanced(state: TobagoState) -> Problem:
    if not state.options.advanced_amulets:
        return RuleViolation("tobago.advanced_only", "this amulet power needs the advanced_amulets option")
    return None


def decide(state: TobagoState, seat: int, command: TobagoCommand, rng: Rng) -> list[TobagoEvent]:
    """The events of `seat` giving `command` now; RuleViolation when the rules refuse it."""
    require(problem(state, seat, command))
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
    """Every command `seat` may give now."""
    if seat not in to_act(state):
        return []
    n = len(state.island)
    if state.phase == "place_atv":
        options: list[TobagoCommand] = [PlaceAtv(hex=h) for h in range(n)]
    elif state.phase == "share":
        options = [TakeCard(), PassCard()]
    elif state.phase == "new_hunt":
        options = [StartHunt(card=c) for c in state.hidden.private[seat].hand]
    else:
        options = _turn_options(state, seat)
    return offered(options, lambda c: problem(state, seat, c))


def _turn_options(state: TobagoState, seat: int) -> list[TobagoCommand]:
    me = state.players[seat]
    maps = range(len(state.maps))
    hand = state.hidden.private[seat].hand
    flags = [False] + ([True] if me.amulets > 0 else [])
    out: list[TobagoCommand] = [PlayClue(card=c, map=m, amulet=a) for a in flags for c in hand for m in maps]
    out += [ExchangeClues(amulet=a) for a in flags]
    out += [CollectTreasure(map=m) for m in maps]
    dist = board_of(state).geo.steps_from(me.atv)  # type: ignore[arg-type]
    left = drive_steps_left(state)
    out += [Drive(hex=h) for h, d in enumerate(dist) if 0 < d <= left]
    if me.amulets > 0:
        out += [AmuletStep(hex=h) for h, d in enumerate(dist) if d == 1]
        for m in maps:
            cand = bits(candidates(state, m))
            if 1 < len(cand) <= MARKERS_PER_MAP:
                out += [RemoveCandidate(map=m, hex=h) for h in cand]
            if state.options.advanced_amulets:
                slots = state.maps[m].slots
                out += [DoubleRose(map=m, slot=i) for i in range(len(slots))]
                out += [SwapRoses(map=m, a=a, b=b) for a in range(len(slots)) for b in range(a + 1, len(slots))]
    if state.turn.acted:
        out.append(EndTurn())
    return out


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
