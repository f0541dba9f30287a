"""Cóatl's legal listing: the commands `rules.refusal` lets through, built directly.

`rules.legal` once offered every candidate command (about 50 a listing, most of them refused)
to `refusal`, which dispatched each by type, asked again whether an action may begin, and built a
RuleViolation for every refusal. Here the facts those refusals share are worked out once per
listing (may a new action begin, may a running one go on, free board slots, room in the hand,
each coatl's open ends and cards) and only the commands that pass are built, in the order the
candidates had: take pieces (heads, tails, bodies), take prophecy cards (deck, then row), start a
coatl, add a piece (by coatl, piece, end), play a prophecy card (by card, then coatl), discard
during Foretelling, the sacrifice tokens. `decide` still asks `refusal` of every command sent,
and tests/domain/coatl/test_listing.py keeps the old definition and compares the two over
random games. `EndTurn` is added by `rules.legal`.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any, Literal

from domain.coatl import components as C
from domain.coatl.commands import (AddPiece, CloseCoatl, DiscardProphecy, Foretell, PerfectChoice, PlayProphecy,
                                   PlayTemple, PriestsDuty, StartCoatl, TakePieces, TakeProphecy)
from domain.coatl.rules_build import extended
from domain.coatl.rules_opening import keep_candidates, keep_refusal
from domain.coatl.scoring import prophecy_met, temple_points
from domain.coatl.state import Coatl, CoatlState, Player, can_take_prophecy, card_types, colors, completed, \
    free_slots, incomplete, is_complete

_ENDS: tuple[tuple[Literal["head", "tail"], int], ...] = (("head", 0), ("tail", -1))
# Perfect Choice's candidates name pairs of body segments (colour indexes); refused unless a slot holds 2
_BODY_PAIRS = tuple(combinations_with_replacement(range(len(C.COLORS)), 2)) if C.BODY_PER_SLOT == 2 else ()


def actions(state: CoatlState, seat: int) -> list[Any]:
    """The commands other than `EndTurn` that `seat` may issue now; `seat` is one of `to_act`."""
    if state.phase == "opening":
        return [k for k in keep_candidates(state, seat) if keep_refusal(state, seat, k) is None]
    turn = state.turn
    assert turn is not None and state.phase == "play" and turn.seat == seat
    if turn.pending is not None:
        return _completing(state, seat, turn.pending)
    player, hand = state.players[seat], state.hidden.hands[seat]
    # rules_turn.may_begin: an action goes on (choose after choose or Foretelling, build after build)
    # or begins while one is left and Foretelling has no card to choose any more
    begin = turn.actions_left > 0 and not (turn.current == "foretell" and can_take_prophecy(state, seat))
    free = free_slots(player)
    out: list[Any] = _takes(state, free) if begin else []
    if (begin or turn.current in ("choose", "foretell")) and len(hand) < C.HAND_LIMIT:
        if state.hidden.deck or state.hidden.discard:
            out.append(TakeProphecy(card=None))
        out += [TakeProphecy(card=c) for c in state.row]
    if begin or turn.current == "build":
        _builds(out, player, hand)
    if turn.current == "foretell":
        out += [DiscardProphecy(card=c) for c in hand]
    if begin and player.tokens:
        _tokens(out, state, player, free)
    return out


def _completing(state: CoatlState, seat: int, index: int) -> list[Any]:
    """A just completed coatl: its prophecy cards, then (once it has one) closing it or its temple."""
    coatl = state.players[seat].coatls[index]
    out: list[Any] = _prophecies(state.hidden.hands[seat], [(index, coatl)])
    if coatl.cards:
        out.append(CloseCoatl())
        tops = {pile[0] for pile in state.hidden.piles if pile}
        names, types = colors(coatl), card_types(coatl.cards)
        out += [PlayTemple(temple=t) for t in sorted(set(state.hidden.temples[seat]) | tops)
                if temple_points(t, names, types) != 0]
    return out


def _prophecies(hand: tuple[int, ...], coatls: list[tuple[int, Coatl]]) -> list[Any]:
    """Playing a card of the hand beside one of the (index, coatl) `coatls`, by card then coatl: not
    closed, fewer than 4 cards, no card of that face, its first level met (rules_build.prophecy_refusal)."""
    room = [(i, colors(c), set(card_types(c.cards))) for i, c in coatls
            if c.status != "closed" and len(c.cards) < C.MAX_PROPHECIES_PER_COATL]
    return [PlayProphecy(card=card, coatl=i) for card in hand for i, names, faces in room
            if C.CARD_TYPE[card] not in faces and prophecy_met(C.CARD_TYPE[card], names)]


def _takes(state: CoatlState, free: int) -> list[Any]:
    """Taking a disc slot: it holds something and the board has room for all of it."""
    disc = state.disc
    out: list[Any] = [TakePieces(slot="head", index=i) for i, c in enumerate(disc.heads[:C.HEAD_SLOTS])
                      if c is not None and free >= 1]
    out += [TakePieces(slot="tail", index=i) for i, c in enumerate(disc.tails[:C.TAIL_SLOTS])
            if c is not None and free >= 1]
    out += [TakePieces(slot="body", index=i) for i, c in enumerate(disc.bodies[:C.BODY_SLOTS])
            if c and free >= len(c)]
    return out


def _builds(out: list[Any], player: Player, hand: tuple[int, ...]) -> None:
    """Starting a coatl, adding a piece to one, playing a prophecy card beside one."""
    pieces = sorted(set(player.board))
    if len(incomplete(player)) < C.MAX_INCOMPLETE:
        out += [StartCoatl(piece=p) for p in pieces]
    may_complete = completed(player) < C.MAX_COMPLETED
    faces = [C.CARD_TYPE[c] for c in hand]
    for i, coatl in enumerate(player.coatls):
        if coatl.status != "open":
            continue
        ends = [end for end, at in _ENDS if coatl.pieces[at].kind != end]
        kinds = {p.kind for p in coatl.pieces}
        for piece in pieces:
            after = kinds | {piece.kind}
            if {"head", "tail"} <= after and "body" not in after:
                continue  # a coatl needs a body segment between head and tail
            for end in ends:
                if piece.kind != "body" and piece.kind != end:
                    continue
                new = extended(coatl, piece, end)
                if is_complete(new):  # completing needs a card beside the coatl or one in hand it meets
                    names = tuple(p.color for p in new)
                    if not may_complete or not (coatl.cards or any(prophecy_met(f, names) for f in faces)):
                        continue
                out.append(AddPiece(coatl=i, piece=piece, end=end))
    out += _prophecies(hand, list(enumerate(player.coatls)))


def _tokens(out: list[Any], state: CoatlState, player: Player, free: int) -> None:
    """The sacrifice tokens still held, when an action may begin."""
    if "perfect_choice" in player.tokens:
        bags = state.hidden.bags
        if free >= 1:
            out += [PerfectChoice(kind="head", colors=(c,)) for c, n in zip(C.COLORS, bags.head) if n >= 1]
            out += [PerfectChoice(kind="tail", colors=(c,)) for c, n in zip(C.COLORS, bags.tail) if n >= 1]
        if free >= 2:
            out += [PerfectChoice(kind="body", colors=(C.COLORS[a], C.COLORS[b])) for a, b in _BODY_PAIRS
                    if (bags.body[a] >= 2 if a == b else bags.body[a] >= 1 and bags.body[b] >= 1)]
    if "foretell" in player.tokens:
        out.append(Foretell())
    if "priests_duty" in player.tokens:
        out += [PriestsDuty(pile=p) for p in (0, 1) if state.hidden.piles[p]]
