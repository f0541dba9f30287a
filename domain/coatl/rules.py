"""Cóatl rules: one predicate per command (`check`), shared by `decide` and `legal`.

`check` raises RuleViolation with a stable code; `legal` lists the candidate
commands and keeps those `check` accepts, so everything offered is accepted.
`decide` runs `check`, then writes the events through a `Script`. A turn
spends an action budget (1, or 2 in some last turns): the first command of
an action (`ActionBegun`) costs one; further commands of a running choose or
build action are free. Single-step actions end the turn when the budget is
spent; otherwise the player ends it with `EndTurn`.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement
from typing import Any, Optional

from domain.coatl import components as C
from domain.coatl.commands import (AddPiece, CloseCoatl, CoatlCommand, DiscardProphecy, EndTurn, Foretell,
                                   KeepProphecies, PerfectChoice, Piece, PlayProphecy, PlayTemple, PriestsDuty,
                                   StartCoatl, TakePieces, TakeProphecy)
from domain.coatl.scoring import prophecy_met, temple_points
from domain.coatl.state import (Coatl, CoatlState, Player, bag_pieces, card_types, completed, free_slots,
                                incomplete, is_complete)
from domain.coatl.codes import CODES
from domain.coatl.events import (ActionBegun, CoatlClosed, CoatlCompleted, CoatlStarted, ForetellingUsed,
                                 OpeningHandKept, OpeningHandsSettled, PerfectChoiceUsed, PieceAdded, PiecesTaken,
                                 PriestsDutyUsed, ProphecyDiscarded, ProphecyPlayed, ProphecyTaken, TemplePlayed,
                                 TurnStarted)
from domain.coatl.flow import Script, finish_turn, needs_refill, refill_disc, refill_row, reshuffle_if_empty
from domain.kernel import Rng, RuleViolation



def _fail(code: str, message: str) -> RuleViolation:
    assert code in CODES, code
    return RuleViolation(code, message)


def _in_play(state: CoatlState, seat: int) -> Player:
    if state.phase == "over":
        raise _fail("coatl.game_over", "the game is over")
    if state.phase != "play":
        raise _fail("coatl.wrong_phase", "every seat must first choose its opening hand")
    if state.turn is None or state.turn.seat != seat:
        raise _fail("coatl.not_your_turn", "it is not your turn")
    return state.players[seat]


def begins_action(state: CoatlState, action: str) -> bool:
    """Whether a command of `action` starts a new action (costing one); raises when it may not."""
    turn = state.turn
    assert turn is not None
    if turn.pending is not None:
        raise _fail("coatl.completion_pending", "finish the just completed coatl first")
    if (action == "choose" and turn.current in ("choose", "foretell")) or (action == "build" and turn.current == action):
        return False
    if turn.actions_left <= 0:
        raise _fail("coatl.no_action_left", "no action is left this turn")
    return True


def _token(state: CoatlState, player: Player, token: str) -> None:
    if token not in player.tokens:
        raise _fail("coatl.no_token", f"no {token} token")


def _coatl(player: Player, index: int) -> Coatl:
    if not 0 <= index < len(player.coatls):
        raise _fail("coatl.no_such_coatl", f"no coatl {index}")
    return player.coatls[index]


def _on_board(player: Player, piece: Piece) -> None:
    if piece not in player.board:
        raise _fail("coatl.not_on_board", f"no {piece.color} {piece.kind} on the board")


def _in_hand(state: CoatlState, seat: int, card: int) -> None:
    if card not in state.hidden.hands[seat]:
        raise _fail("coatl.not_in_hand", f"card {card} is not in the hand")


def extended(coatl: Coatl, piece: Piece, end: str) -> tuple[Piece, ...]:
    """The coatl's pieces after adding `piece` at `end`; raises when it does not fit there."""
    pieces = coatl.pieces
    at_end = pieces[0] if end == "head" else pieces[-1]
    if at_end.kind == end:
        raise _fail("coatl.end_closed", f"the {end} end is closed")
    if piece.kind != "body" and piece.kind != end:
        raise _fail("coatl.wrong_end", f"a {piece.kind} goes at the {piece.kind} end")
    new = (piece,) + pieces if end == "head" else pieces + (piece,)
    kinds = {p.kind for p in new}
    if {"head", "tail"} <= kinds and "body" not in kinds:
        raise _fail("coatl.needs_body", "a coatl needs a body segment between head and tail")
    return new


def check_prophecy(coatl: Coatl, card: int, pieces: Optional[tuple[Piece, ...]] = None) -> None:
    """Whether `card` may go beside `coatl` (with `pieces` instead of its own when given)."""
    if len(coatl.cards) >= C.MAX_PROPHECIES_PER_COATL:
        raise _fail("coatl.too_many_prophecies", "a coatl carries at most 4 prophecy cards")
    if C.CARD_TYPE[card] in card_types(coatl.cards):
        raise _fail("coatl.identical_prophecy", "this coatl already carries that face")
    if not prophecy_met(C.CARD_TYPE[card], [p.color for p in (pieces or coatl.pieces)]):
        raise _fail("coatl.requirement_not_met", "the coatl does not meet the card's first level")


def _check_add(state: CoatlState, seat: int, player: Player, cmd: AddPiece) -> None:
    begins_action(state, "build")
    coatl = _coatl(player, cmd.coatl)
    if coatl.status != "open":
        raise _fail("coatl.coatl_complete", "the coatl is complete")
    _on_board(player, cmd.piece)
    new = extended(coatl, cmd.piece, cmd.end)
    if is_complete(new):
        if completed(player) >= C.MAX_COMPLETED:
            raise _fail("coatl.coatl_limit", "a player completes at most 3 coatls")
        if not coatl.cards and not any(_accepts(check_prophecy, coatl, card, new) for card in state.hidden.hands[seat]):
            raise _fail("coatl.no_prophecy_for_completion", "no prophecy card for this coatl")


def _check_play(state: CoatlState, seat: int, player: Player, cmd: PlayProphecy) -> None:
    assert state.turn is not None
    if state.turn.pending is None:
        begins_action(state, "build")
    elif state.turn.pending != cmd.coatl:
        raise _fail("coatl.completion_pending", "finish the just completed coatl first")
    coatl = _coatl(player, cmd.coatl)
    if coatl.status == "closed":
        raise _fail("coatl.coatl_closed", "the coatl is closed")
    _in_hand(state, seat, cmd.card)
    check_prophecy(coatl, cmd.card)


def temple_source(state: CoatlState, seat: int, temple: int) -> Optional[int]:
    """None for the seat's own temple card, else the shared pile it tops; raises when neither."""
    if temple in state.hidden.temples[seat]:
        return None
    for pile, cards in enumerate(state.hidden.piles):
        if cards and cards[0] == temple:
            return pile
    raise _fail("coatl.temple_not_available", f"temple {temple} is not available")


def pending(state: CoatlState, player: Player) -> Coatl:
    assert state.turn is not None
    if state.turn.pending is None:
        raise _fail("coatl.not_completing", "no coatl has just been completed")
    coatl = player.coatls[state.turn.pending]
    if not coatl.cards:
        raise _fail("coatl.needs_prophecy", "the completed coatl needs a prophecy card first")
    return coatl


def _check_temple(state: CoatlState, seat: int, player: Player, cmd: PlayTemple) -> None:
    coatl = pending(state, player)
    temple_source(state, seat, cmd.temple)
    if temple_points(cmd.temple, [p.color for p in coatl.pieces], card_types(coatl.cards)) == 0:
        raise _fail("coatl.temple_requirement_not_met", "the coatl meets none of the temple's requirements")


def _check_perfect(state: CoatlState, player: Player, cmd: PerfectChoice) -> None:
    _token(state, player, "perfect_choice")
    begins_action(state, "perfect_choice")
    if len(cmd.colors) != (C.BODY_PER_SLOT if cmd.kind == "body" else 1):
        raise _fail("coatl.bad_pieces", "take 1 head, 1 tail or 2 body segments")
    wanted = Counter(Piece(cmd.kind, c) for c in cmd.colors)
    bag = bag_pieces(state.hidden.bags)
    if any(bag[p] < n for p, n in wanted.items()):
        raise _fail("coatl.not_in_bag", "the bag does not hold these pieces")
    if free_slots(player) < len(cmd.colors):
        raise _fail("coatl.board_full", "not enough free board slots")


def slot_pieces(state: CoatlState, slot: str, index: int) -> tuple[Piece, ...]:
    disc = state.disc
    slots: tuple[Any, ...] = {"head": disc.heads, "tail": disc.tails, "body": disc.bodies}[slot]
    if not 0 <= index < len(slots):
        raise _fail("coatl.no_such_slot", f"no {slot} slot {index}")
    content = slots[index]
    names = content if slot == "body" else ((content,) if content is not None else ())
    if not names:
        raise _fail("coatl.empty_slot", "that slot is empty")
    return tuple(Piece(slot, c) for c in names)  # type: ignore[arg-type]


def check(state: CoatlState, seat: int, command: CoatlCommand) -> None:
    """Raise RuleViolation unless `seat` may issue `command` now."""
    if isinstance(command, KeepProphecies):
        return _check_keep(state, seat, command)
    player = _in_play(state, seat)
    turn = state.turn
    assert turn is not None
    hand = state.hidden.hands[seat]
    match command:
        case TakePieces(slot=slot, index=index):
            begins_action(state, "take")
            if free_slots(player) < len(slot_pieces(state, slot, index)):
                raise _fail("coatl.board_full", "not enough free board slots")
        case TakeProphecy(card=card):
            begins_action(state, "choose")
            if len(hand) >= C.HAND_LIMIT:
                raise _fail("coatl.hand_limit", "the hand holds 5 cards already")
            if card is None and not state.hidden.deck and not state.hidden.discard:
                raise _fail("coatl.deck_empty", "no card left to draw")
            if card is not None and card not in state.row:
                raise _fail("coatl.not_in_row", f"card {card} is not in the row")
        case StartCoatl(piece=piece):
            begins_action(state, "build")
            if len(incomplete(player)) >= C.MAX_INCOMPLETE:
                raise _fail("coatl.too_many_incomplete", "two coatls are incomplete already")
            _on_board(player, piece)
        case AddPiece():
            _check_add(state, seat, player, command)
        case PlayProphecy():
            _check_play(state, seat, player, command)
        case PlayTemple():
            _check_temple(state, seat, player, command)
        case CloseCoatl():
            pending(state, player)
        case PerfectChoice():
            _check_perfect(state, player, command)
        case Foretell():
            _token(state, player, "foretell")
            begins_action(state, "foretell")
        case DiscardProphecy(card=card):
            if turn.current != "foretell" or turn.pending is not None:
                raise _fail("coatl.cannot_discard", "discard only during Foretelling, before choosing")
            _in_hand(state, seat, card)
        case PriestsDuty(pile=pile):
            _token(state, player, "priests_duty")
            begins_action(state, "priests_duty")
            if pile not in (0, 1):
                raise _fail("coatl.no_such_pile", "piles are 0 and 1")
            if not state.hidden.piles[pile]:
                raise _fail("coatl.temple_not_available", "that pile is empty")
        case EndTurn():
            _check_end_turn(state, player, lambda: any(_accepts(check, state, seat, c)
                                                       for c in _candidates(state, seat) if not isinstance(c, EndTurn)))


def _check_end_turn(state: CoatlState, player: Player, can_act: Any) -> None:
    """A just completed coatl needs its card; a turn without any action only when none is possible."""
    assert state.turn is not None
    if state.turn.pending is not None:
        pending(state, player)
    elif state.turn.current is None and can_act():
        raise _fail("coatl.must_act", "a turn is one action; pass only when no action is possible")


def _check_keep(state: CoatlState, seat: int, command: KeepProphecies) -> None:
    if state.phase == "over":
        raise _fail("coatl.game_over", "the game is over")
    if state.phase != "opening":
        raise _fail("coatl.wrong_phase", "opening hands are settled")
    if state.players[seat].decided:
        raise _fail("coatl.already_decided", "this seat has chosen already")
    if len(command.cards) > C.OPENING_KEEP:
        raise _fail("coatl.keep_limit", "keep at most 3 cards")
    if len(set(command.cards)) != len(command.cards) or not set(command.cards) <= set(state.hidden.dealt[seat]):
        raise _fail("coatl.not_dealt", "keep only cards dealt to you, each once")


def _accepts(predicate: Any, *args: Any) -> bool:
    try:
        predicate(*args)
    except RuleViolation:
        return False
    return True


def _candidates(state: CoatlState, seat: int) -> list[Any]:
    if state.phase == "opening":
        dealt = sorted(state.hidden.dealt[seat])
        return [KeepProphecies(cards=k) for r in range(C.OPENING_KEEP + 1) for k in combinations(dealt, r)]
    player, hand, turn = state.players[seat], state.hidden.hands[seat], state.turn
    assert turn is not None
    coatls = range(len(player.coatls))
    if turn.pending is not None:
        tops = [pile[0] for pile in state.hidden.piles if pile]
        return ([PlayProphecy(card=c, coatl=turn.pending) for c in hand] + [CloseCoatl(), EndTurn()]
                + [PlayTemple(temple=t) for t in sorted(set(state.hidden.temples[seat]) | set(tops))])
    pieces = sorted(set(player.board))
    out: list[Any] = [TakePieces(slot=slot, index=i) for slot, n in (("head", C.HEAD_SLOTS), ("tail", C.TAIL_SLOTS),
                                                                    ("body", C.BODY_SLOTS)) for i in range(n)]
    out += [TakeProphecy(card=None)] + [TakeProphecy(card=c) for c in state.row]
    out += [StartCoatl(piece=p) for p in pieces]
    out += [AddPiece(coatl=i, piece=p, end=e) for i in coatls for p in pieces for e in ("head", "tail")]
    out += [PlayProphecy(card=c, coatl=i) for c in hand for i in coatls]
    if player.tokens:
        out += [PerfectChoice(kind=k, colors=(c,)) for k in ("head", "tail") for c in C.COLORS]
        out += [PerfectChoice(kind="body", colors=pair) for pair in combinations_with_replacement(C.COLORS, 2)]
        out += [Foretell(), PriestsDuty(pile=0), PriestsDuty(pile=1)] + [DiscardProphecy(card=c) for c in hand]
    return out + [EndTurn()]


def legal(state: CoatlState, seat: int) -> list[CoatlCommand]:
    """Every atomic command `seat` may issue now ([] when it may not act)."""
    if seat not in to_act(state):
        return []
    candidates = _candidates(state, seat)
    offers = [c for c in candidates if not isinstance(c, EndTurn) and _accepts(check, state, seat, c)]
    if state.phase == "play" and _accepts(_check_end_turn, state, state.players[seat], lambda: bool(offers)):
        offers.append(EndTurn())
    return offers


def to_act(state: CoatlState) -> frozenset[int]:
    """Undecided seats during the opening (simultaneous), else the seat whose turn it is."""
    if state.phase == "opening":
        return frozenset(s for s, p in enumerate(state.players) if not p.decided)
    if state.phase == "play" and state.turn is not None:
        return frozenset({state.turn.seat})
    return frozenset()


def decide(state: CoatlState, seat: int, command: CoatlCommand, rng: Rng) -> list[Any]:
    """The events of `command` by `seat`; RuleViolation when the rules refuse it."""
    check(state, seat, command)
    if isinstance(command, KeepProphecies):
        return _decide_keep(state, seat, command)
    script = Script(state)
    action = ACTION_OF.get(type(command))
    if isinstance(command, PlayProphecy) and state.turn is not None and state.turn.pending is None:
        action = "build"
    if action is not None and begins_action(state, action):
        script.emit(ActionBegun(seat=seat, action=action))  # type: ignore[arg-type]
    match command:
        case TakePieces(slot=slot, index=index):
            script.emit(PiecesTaken(seat=seat, slot=slot, index=index, pieces=slot_pieces(state, slot, index)))
            if needs_refill(script.state.disc):
                refill_disc(script, rng)
        case PerfectChoice(kind=kind, colors=names):
            script.emit(PerfectChoiceUsed(seat=seat, pieces=tuple(Piece(kind, c) for c in names)))
            refill_disc(script, rng)
        case PriestsDuty(pile=pile):
            piles = state.hidden.piles[pile]
            script.emit(PriestsDutyUsed(seat=seat, pile=pile, temple=piles[0], new_top=(piles[1:] or (None,))[0]))
        case TakeProphecy(card=card):
            if card is None:
                reshuffle_if_empty(script, rng)
            script.emit(ProphecyTaken(seat=seat, source="deck" if card is None else "row", card=(
                script.state.hidden.deck[0] if card is None else card)))
        case Foretell():
            script.emit(ForetellingUsed(seat=seat, discarded_row=state.row))
            refill_row(script, rng)
        case DiscardProphecy(card=card):
            script.emit(ProphecyDiscarded(seat=seat, card=card))
        case StartCoatl(piece=piece):
            script.emit(CoatlStarted(seat=seat, piece=piece))
        case AddPiece(coatl=index, piece=piece, end=end):
            script.emit(PieceAdded(seat=seat, coatl=index, piece=piece, end=end))
            if is_complete(script.state.players[seat].coatls[index].pieces):
                script.emit(CoatlCompleted(seat=seat, coatl=index))
        case PlayProphecy(card=card, coatl=index):
            script.emit(ProphecyPlayed(seat=seat, coatl=index, card=card))
        case PlayTemple(temple=temple):
            index = state.turn.pending  # type: ignore[union-attr]
            assert index is not None
            pile = temple_source(state, seat, temple)
            rest = state.hidden.piles[pile][1:] if pile is not None else ()
            script.emit(TemplePlayed(seat=seat, coatl=index, temple=temple, pile=pile, new_top=(rest or (None,))[0]),
                        CoatlClosed(seat=seat, coatl=index))
        case CloseCoatl():
            script.emit(CoatlClosed(seat=seat, coatl=state.turn.pending))  # type: ignore[union-attr, arg-type]
    turn = script.state.turn
    if isinstance(command, EndTurn) or (action in SINGLE_STEP and turn is not None and turn.actions_left == 0):
        finish_turn(script, rng)
    return script.events


ACTION_OF: dict[type, str] = {TakePieces: "take", TakeProphecy: "choose", StartCoatl: "build", AddPiece: "build",
                              PerfectChoice: "perfect_choice", Foretell: "foretell", PriestsDuty: "priests_duty"}
SINGLE_STEP = ("take", "perfect_choice", "priests_duty")


def _decide_keep(state: CoatlState, seat: int, command: KeepProphecies) -> list[Any]:
    kept = tuple(command.cards)
    events: list[Any] = [OpeningHandKept(seat=seat, kept=kept,
                                         discarded=tuple(c for c in state.hidden.dealt[seat] if c not in kept))]
    if all(p.decided for s, p in enumerate(state.players) if s != seat):
        sizes = tuple(len(kept) if s == seat else len(h) for s, h in enumerate(state.hidden.hands))
        events += [OpeningHandsSettled(hand_sizes=sizes), TurnStarted(seat=state.first_player, actions=1)]
    return events
