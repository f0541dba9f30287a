"""Cóatl rules: `decide`, `legal`, `to_act`, `outcome`, and the predicate (`refusal`) that defines both.

Every predicate returns the RuleViolation that refuses the command, or None
when it is allowed; `decide` requires `refusal` to pass. By definition `legal`
lists the candidates (`_candidates`) `refusal` lets through, so it lists
exactly what `decide` accepts; it builds them directly, without asking
`refusal` of each (`rules_listing.py`, tested against the definition). The
opening is in `rules_opening.py`, the action budget and the small shared
predicates in `rules_turn.py`, the build action in `rules_build.py`, the end
of a turn in `rules_end.py`. A turn spends an action budget (1, or 2 in some
last turns): the first command of an action (`ActionBegun`) costs one;
further commands of a running choose or build action are free. Foretelling
goes on as a choose action: after it, no other action starts and the turn
does not end while a prophecy card can be taken. Single-step actions end the
turn when the budget is spent; otherwise the player ends it with `EndTurn`.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement
from typing import Any, Callable, Optional

from domain.coatl import components as C
from domain.coatl.codes import violation as _no
from domain.coatl.commands import (AddPiece, CloseCoatl, CoatlCommand, DiscardProphecy, EndTurn, Foretell,
                                   KeepProphecies, PerfectChoice, Piece, PlayProphecy, PlayTemple, PriestsDuty,
                                   StartCoatl, TakePieces, TakeProphecy)
from domain.coatl.events import (ActionBegun, CoatlClosed, CoatlCompleted, CoatlStarted, ForetellingUsed,
                                 PerfectChoiceUsed, PieceAdded, PiecesTaken, PriestsDutyUsed, ProphecyDiscarded,
                                 ProphecyPlayed, ProphecyTaken, TemplePlayed)
from domain.coatl.evolve import evolve
from domain.coatl.rules_build import (add_refusal, pending_ready, play_refusal, start_refusal, temple_refusal,
                                     temple_source)
from domain.coatl.rules_end import Emit, finish_turn, needs_refill, refill_disc, refill_row, reshuffle_if_empty
from domain.coatl.rules_listing import actions
from domain.coatl.rules_opening import decide_keep, keep_candidates, keep_refusal
from domain.coatl.rules_turn import Refusal, has_token, in_hand, in_play, may_begin, room, starts_action
from domain.coatl.scoring import coatl_value, seat_scores
from domain.coatl.state import CoatlState, Player, bag_pieces, can_take_prophecy, is_complete
from domain.kernel import Emitter, Outcome, Rng, ranked, require


def _perfect_refusal(state: CoatlState, player: Player, cmd: PerfectChoice) -> Refusal:
    refusal = has_token(player, "perfect_choice") or may_begin(state, "perfect_choice")
    if refusal is not None:
        return refusal
    if len(cmd.colors) != (C.BODY_PER_SLOT if cmd.kind == "body" else 1):
        return _no("coatl.bad_pieces", "take 1 head, 1 tail or 2 body segments")
    if any(c not in C.COLORS for c in cmd.colors):
        return _no("coatl.bad_pieces", "name colours of the game: " + ", ".join(C.COLORS))
    bag = bag_pieces(state.hidden.bags)
    if any(bag[p] < n for p, n in Counter(Piece(cmd.kind, c) for c in cmd.colors).items()):
        return _no("coatl.not_in_bag", "the bag does not hold these pieces")
    return room(player, len(cmd.colors))


def slot_pieces(state: CoatlState, slot: str, index: int) -> tuple[Piece, ...]:
    """The pieces in a disc slot (none when it is empty or does not exist)."""
    disc = state.disc
    slots: tuple[Any, ...] = {"head": disc.heads, "tail": disc.tails, "body": disc.bodies}[slot]
    content = slots[index] if 0 <= index < len(slots) else None
    names = content if slot == "body" else ((content,) if content is not None else ())
    return tuple(Piece(slot, c) for c in names or ())  # type: ignore[arg-type]


def _take_pieces(state: CoatlState, player: Player, slot: str, index: int) -> Refusal:
    if not 0 <= index < {"head": C.HEAD_SLOTS, "tail": C.TAIL_SLOTS, "body": C.BODY_SLOTS}[slot]:
        return _no("coatl.no_such_slot", f"no {slot} slot {index}")
    pieces = slot_pieces(state, slot, index)
    return room(player, len(pieces)) if pieces else _no("coatl.empty_slot", "that slot is empty")


def _take_prophecy(state: CoatlState, seat: int, card: Optional[int]) -> Refusal:
    if len(state.hidden.hands[seat]) >= C.HAND_LIMIT:
        return _no("coatl.hand_limit", "the hand holds 5 cards already")
    if card is None and not state.hidden.deck and not state.hidden.discard:
        return _no("coatl.deck_empty", "no card left to draw")
    if card is not None and card not in state.row:
        return _no("coatl.not_in_row", f"card {card} is not in the row")
    return None


def _priests_duty(state: CoatlState, player: Player, pile: int) -> Refusal:
    refusal = has_token(player, "priests_duty") or may_begin(state, "priests_duty")
    if refusal is None and pile not in (0, 1):
        return _no("coatl.no_such_pile", "piles are 0 and 1")
    if refusal is None and not state.hidden.piles[pile]:
        return _no("coatl.temple_not_available", "that pile is empty")
    return refusal


def _end_turn(state: CoatlState, seat: int, can_act: Callable[[], bool]) -> Refusal:
    """A just completed coatl needs its card; Foretelling needs its choice while a card can be taken;
    a turn without any action ends only when none is possible."""
    turn = state.turn
    assert turn is not None
    if turn.pending is not None:
        return pending_ready(state, state.players[seat])
    if turn.current == "foretell" and can_take_prophecy(state, seat):
        return _no("coatl.must_choose", "Foretelling goes on with choosing prophecy cards")
    if turn.current is None and can_act():
        return _no("coatl.must_act", "a turn is one action; pass only when no action is possible")
    return None


def refusal(state: CoatlState, seat: int, command: CoatlCommand) -> Refusal:
    """The refusal of `command` by `seat` now, or None when the rules allow it."""
    if isinstance(command, KeepProphecies):
        return keep_refusal(state, seat, command)
    if (err := in_play(state, seat)) is not None:
        return err
    player, turn = state.players[seat], state.turn
    assert turn is not None
    match command:
        case TakePieces(slot=slot, index=index):
            return may_begin(state, "take") or _take_pieces(state, player, slot, index)
        case TakeProphecy(card=card):
            return may_begin(state, "choose") or _take_prophecy(state, seat, card)
        case StartCoatl(piece=piece):
            return may_begin(state, "build") or start_refusal(player, piece)
        case AddPiece():
            return add_refusal(state, seat, player, command)
        case PlayProphecy():
            return play_refusal(state, seat, player, command)
        case PlayTemple():
            return temple_refusal(state, seat, player, command)
        case CloseCoatl():
            return pending_ready(state, player)
        case PerfectChoice():
            return _perfect_refusal(state, player, command)
        case Foretell():
            return has_token(player, "foretell") or may_begin(state, "foretell")
        case DiscardProphecy(card=card):
            if turn.current != "foretell":
                return _no("coatl.cannot_discard", "discard only during Foretelling, before choosing")
            return in_hand(state, seat, card)
        case PriestsDuty(pile=pile):
            return _priests_duty(state, player, pile)
        case EndTurn():
            return _end_turn(state, seat, lambda: any(refusal(state, seat, c) is None
                                                        for c in _candidates(state, seat)))
    raise AssertionError(f"unknown command {command!r}")


def _candidates(state: CoatlState, seat: int) -> list[Any]:
    """Every command that might be allowed now, `EndTurn` aside."""
    if state.phase == "opening":
        return keep_candidates(state, seat)
    player, hand, turn = state.players[seat], state.hidden.hands[seat], state.turn
    assert turn is not None
    if turn.pending is not None:
        tops = [pile[0] for pile in state.hidden.piles if pile]
        return ([PlayProphecy(card=c, coatl=turn.pending) for c in hand] + [CloseCoatl()]
                + [PlayTemple(temple=t) for t in sorted(set(state.hidden.temples[seat]) | set(tops))])
    coatls = range(len(player.coatls))
    pieces = sorted(set(player.board))
    out: list[Any] = [TakePieces(slot=slot, index=i) for slot, n in (("head", C.HEAD_SLOTS), ("tail", C.TAIL_SLOTS),
                                                                    ("body", C.BODY_SLOTS)) for i in range(n)]
    out += [TakeProphecy(card=None)] + [TakeProphecy(card=c) for c in state.row]
    out += [StartCoatl(piece=p) for p in pieces]
    out += [AddPiece(coatl=i, piece=p, end=e) for i in coatls for p in pieces for e in ("head", "tail")]
    out += [PlayProphecy(card=c, coatl=i) for c in hand for i in coatls]
    if turn.current == "foretell":
        out += [DiscardProphecy(card=c) for c in hand]
    if player.tokens:
        out += [PerfectChoice(kind=k, colors=(c,)) for k in ("head", "tail") for c in C.COLORS]
        out += [PerfectChoice(kind="body", colors=pair) for pair in combinations_with_replacement(C.COLORS, 2)]
        out += [Foretell(), PriestsDuty(pile=0), PriestsDuty(pile=1)]
    return out


def legal(state: CoatlState, seat: int) -> list[CoatlCommand]:
    """Every atomic command `seat` may issue now ([] when it may not act)."""
    if seat not in to_act(state):
        return []
    offers = actions(state, seat)
    if state.phase == "play" and _end_turn(state, seat, lambda: bool(offers)) is None:
        offers.append(EndTurn())
    return offers


def to_act(state: CoatlState) -> frozenset[int]:
    """Undecided seats during the opening (simultaneous), else the seat whose turn it is."""
    if state.phase == "opening":
        return frozenset(s for s, p in enumerate(state.players) if not p.decided)
    if state.phase == "play" and state.turn is not None:
        return frozenset({state.turn.seat})
    return frozenset()



def outcome(state: CoatlState) -> Optional[Outcome]:
    """None until the last turn is played; then most points, then most cards beside completed coatls,
    then the best single coatl; a remaining tie is a shared win."""
    if state.phase != "over":
        return None
    scores = list(seat_scores(state))
    keys: list[Any] = []
    for seat, player in enumerate(state.players):
        done = [c for c in player.coatls if c.status != "open"]
        cards = sum(len(c.cards) + (c.temple is not None) for c in done)
        best = max((coatl_value(c) for c in done), default=0)
        keys.append((scores[seat], cards, best))
    result = ranked(scores, keys)
    result.details.update({"cards_beside_completed": [k[1] for k in keys], "best_coatl": [k[2] for k in keys],
                           "end_condition": state.end_condition})
    return result


ACTION_OF: dict[type, str] = {TakePieces: "take", TakeProphecy: "choose", StartCoatl: "build", AddPiece: "build",
                              PerfectChoice: "perfect_choice", Foretell: "foretell", PriestsDuty: "priests_duty"}
SINGLE_STEP = ("take", "perfect_choice", "priests_duty")


def decide(state: CoatlState, seat: int, command: CoatlCommand, rng: Rng) -> list[Any]:
    """The events of `command` by `seat`; RuleViolation when the rules refuse it."""
    require(refusal(state, seat, command))
    if isinstance(command, KeepProphecies):
        return decide_keep(state, seat, command)
    assert state.turn is not None
    emit: Emit = Emitter(evolve, state)
    action = ACTION_OF.get(type(command))
    if isinstance(command, PlayProphecy) and state.turn.pending is None:
        action = "build"
    if action is not None and starts_action(state.turn, action):
        emit(ActionBegun(seat=seat, action=action))  # type: ignore[arg-type]
    _act(emit, state, seat, command, rng)
    turn = emit.state.turn  # type: ignore[union-attr]
    if isinstance(command, EndTurn) or (action in SINGLE_STEP and turn is not None and turn.actions_left == 0):
        finish_turn(emit, rng)
    return emit.events


def _act(emit: Emit, state: CoatlState, seat: int, command: CoatlCommand, rng: Rng) -> None:
    """The events of the command itself, after its `ActionBegun` and before the end of the turn."""
    match command:
        case TakePieces(slot=slot, index=index):
            if needs_refill(emit(PiecesTaken(seat=seat, slot=slot, index=index,
                                             pieces=slot_pieces(state, slot, index))).disc):
                refill_disc(emit, rng)
        case PerfectChoice(kind=kind, colors=names):
            # the colours are a multiset: any order is the same choice, recorded in the data file's order
            emit(PerfectChoiceUsed(seat=seat, pieces=tuple(Piece(kind, c) for c in sorted(names, key=C.COLORS.index))))
            refill_disc(emit, rng)
        case PriestsDuty(pile=pile):
            piles = state.hidden.piles[pile]
            emit(PriestsDutyUsed(seat=seat, pile=pile, temple=piles[0], new_top=(piles[1:] or (None,))[0]))
        case TakeProphecy(card=card):
            if card is None:
                reshuffle_if_empty(emit, rng)
            deck = emit.state.hidden.deck  # type: ignore[union-attr]
            emit(ProphecyTaken(seat=seat, source="deck" if card is None else "row",
                               card=deck[0] if card is None else card))
        case Foretell():
            emit(ForetellingUsed(seat=seat, discarded_row=state.row))
            refill_row(emit, rng)
        case DiscardProphecy(card=card):
            emit(ProphecyDiscarded(seat=seat, card=card))
        case StartCoatl(piece=piece):
            emit(CoatlStarted(seat=seat, piece=piece))
        case AddPiece(coatl=index, piece=piece, end=end):
            if is_complete(emit(PieceAdded(seat=seat, coatl=index, piece=piece, end=end)).players[seat]
                           .coatls[index].pieces):
                emit(CoatlCompleted(seat=seat, coatl=index))
        case PlayProphecy(card=card, coatl=index):
            emit(ProphecyPlayed(seat=seat, coatl=index, card=card))
        case PlayTemple(temple=temple):
            index = state.turn.pending  # type: ignore[union-attr]
            assert index is not None
            pile = temple_source(state, seat, temple)
            rest = state.hidden.piles[pile][1:] if pile is not None else ()
            emit(TemplePlayed(seat=seat, coatl=index, temple=temple, pile=pile, new_top=(rest or (None,))[0]),
                 CoatlClosed(seat=seat, coatl=index))
        case CloseCoatl():
            emit(CoatlClosed(seat=seat, coatl=state.turn.pending))  # type: ignore[union-attr, arg-type]
