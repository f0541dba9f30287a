"""Fold Cóatl events into state: one small function per event type, found through `EVOLVERS`;
no validation, no randomness."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Optional

from msgspec.structs import replace


from domain.coatl import components as C
from domain.coatl.commands import Piece
from domain.coatl.events import (ActionBegun, CoatlClosed, CoatlCompleted, CoatlEvent, CoatlStarted, DeckReshuffled,
                                 DiscRefilled, EndTriggered, ForetellingUsed, GameFinished, GameSetUp,
                                 OpeningHandKept, OpeningHandsSettled, PerfectChoiceUsed, PieceAdded, PiecesTaken,
                                 PriestsDutyUsed, ProphecyDiscarded, ProphecyPlayed, ProphecyTaken, RowRefilled,
                                 TemplePlayed, TurnEnded, TurnStarted)
from domain.coatl.state import Bags, Coatl, CoatlState, Hidden, Player, Turn, disc_pieces
from domain.kernel import evolved

TOKENS = ("perfect_choice", "foretell", "priests_duty")


def _setup(event: GameSetUp) -> CoatlState:
    assert event.deck is not None and event.piles is not None, "evolve needs the unredacted setup"
    full = {kind: tuple(C.PIECES_PER_COLOR[kind] for _ in C.COLORS) for kind in C.KINDS}
    bags = _take_from_bags(Bags(**full), disc_pieces(event.disc))
    dealt = tuple(d or () for d in event.dealt)
    hidden = Hidden(hands=tuple(() for _ in dealt), temples=tuple(t or () for t in event.temples), dealt=dealt,
                    deck=event.deck, discard=(), piles=event.piles, bags=bags)
    tokens = TOKENS if event.sacrifice_tokens else ()
    return CoatlState(seats=event.seats, first_player=event.first_player, sacrifice_tokens=event.sacrifice_tokens,
                      disc=event.disc, row=event.row, players=tuple(Player(tokens=tokens) for _ in dealt),
                      hidden=hidden)


def _take_from_bags(bags: Bags, pieces: list[Piece] | tuple[Piece, ...]) -> Bags:
    counts = Counter(pieces)
    return Bags(**{kind: tuple(n - counts[Piece(kind, color)]  # type: ignore[arg-type]
                               for color, n in zip(C.COLORS, getattr(bags, kind))) for kind in C.KINDS})


def _remove(items: tuple, item) -> tuple:  # type: ignore[no-untyped-def]
    i = items.index(item)
    return items[:i] + items[i + 1:]


def _player(state: CoatlState, seat: int, **changes) -> CoatlState:  # type: ignore[no-untyped-def]
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def _hidden_seat(state: CoatlState, field: str, seat: int, value: tuple) -> CoatlState:
    values = list(getattr(state.hidden, field))
    values[seat] = value
    return replace(state, hidden=replace(state.hidden, **{field: tuple(values)}))


def _coatl(state: CoatlState, seat: int, index: int, **changes) -> CoatlState:  # type: ignore[no-untyped-def]
    coatls = list(state.players[seat].coatls)
    coatls[index] = replace(coatls[index], **changes)
    return _player(state, seat, coatls=tuple(coatls))


def _turn(state: CoatlState, **changes) -> CoatlState:  # type: ignore[no-untyped-def]
    assert state.turn is not None
    return replace(state, turn=replace(state.turn, **changes))


def _use_token(state: CoatlState, seat: int, token: str) -> CoatlState:
    return _player(state, seat, tokens=_remove(state.players[seat].tokens, token))


def _pop_pile(state: CoatlState, pile: int) -> CoatlState:
    piles = list(state.hidden.piles)
    piles[pile] = piles[pile][1:]
    return replace(state, hidden=replace(state.hidden, piles=tuple(piles)))


def _board(state: CoatlState, seat: int, add: tuple[Piece, ...] = (), remove: Optional[Piece] = None) -> CoatlState:
    board = state.players[seat].board
    if remove is not None:
        board = _remove(board, remove)
    return _player(state, seat, board=tuple(sorted(board + add)))


def _opening_hand_kept(state: CoatlState, event: OpeningHandKept) -> CoatlState:
    seat = event.seat
    kept = event.kept
    state = _hidden_seat(state, "hands", seat, tuple(kept or ()))
    return _player(state, seat, decided=True)


def _opening_hands_settled(state: CoatlState, event: OpeningHandsSettled) -> CoatlState:
    h = state.hidden
    discards = tuple(c for dealt, hand in zip(h.dealt, h.hands) for c in dealt if c not in hand)
    hidden = replace(h, dealt=tuple(() for _ in h.dealt), discard=h.discard + discards)
    return replace(state, hidden=hidden, phase="play")


def _turn_started(state: CoatlState, event: TurnStarted) -> CoatlState:
    seat = event.seat
    actions = event.actions
    last = state.last_turns[1:] if state.last_turns is not None else None
    return replace(state, turn=Turn(seat=seat, actions_left=actions), last_turns=last)


def _action_begun(state: CoatlState, event: ActionBegun) -> CoatlState:
    action = event.action
    assert state.turn is not None
    return _turn(state, actions_left=state.turn.actions_left - 1, current=action)


def _pieces_taken(state: CoatlState, event: PiecesTaken) -> CoatlState:
    slot, index, disc = event.slot, event.index, state.disc
    if slot == "head":
        disc = replace(disc, heads=disc.heads[:index] + (None,) + disc.heads[index + 1:])
    elif slot == "tail":
        disc = replace(disc, tails=disc.tails[:index] + (None,) + disc.tails[index + 1:])
    else:
        disc = replace(disc, bodies=disc.bodies[:index] + ((),) + disc.bodies[index + 1:])
    return _board(replace(state, disc=disc), event.seat, add=event.pieces)


def _disc_refilled(state: CoatlState, event: DiscRefilled) -> CoatlState:
    h = state.hidden
    disc = event.disc
    added = Counter(disc_pieces(disc)) - Counter(disc_pieces(state.disc))
    bags = _take_from_bags(h.bags, list(added.elements()))
    return replace(state, disc=disc, hidden=replace(h, bags=bags))


def _perfect_choice_used(state: CoatlState, event: PerfectChoiceUsed) -> CoatlState:
    h = state.hidden
    seat = event.seat
    pieces = event.pieces
    state = replace(state, hidden=replace(h, bags=_take_from_bags(h.bags, pieces)))
    return _board(_use_token(state, seat, "perfect_choice"), seat, add=pieces)


def _prophecy_taken(state: CoatlState, event: ProphecyTaken) -> CoatlState:
    h = state.hidden
    seat = event.seat
    source = event.source
    card = event.card
    assert card is not None or source == "deck"
    taken = h.deck[0] if source == "deck" else card
    if source == "deck":
        state = replace(state, hidden=replace(h, deck=h.deck[1:]))
    else:
        state = replace(state, row=_remove(state.row, taken))
    state = _hidden_seat(state, "hands", seat, state.hidden.hands[seat] + (taken,))
    assert state.turn is not None
    return _turn(state, current="choose") if state.turn.current == "foretell" else state


def _deck_reshuffled(state: CoatlState, event: DeckReshuffled) -> CoatlState:
    h = state.hidden
    deck = event.deck
    assert deck is not None, "evolve needs the unredacted reshuffle"
    return replace(state, hidden=replace(h, deck=deck, discard=()))


def _row_refilled(state: CoatlState, event: RowRefilled) -> CoatlState:
    h = state.hidden
    cards = event.cards
    return replace(state, row=state.row + cards, hidden=replace(h, deck=h.deck[len(cards):]))


def _foretelling_used(state: CoatlState, event: ForetellingUsed) -> CoatlState:
    h = state.hidden
    seat = event.seat
    discarded = event.discarded_row
    state = replace(state, row=(), hidden=replace(h, discard=h.discard + discarded))
    return _use_token(state, seat, "foretell")


def _prophecy_discarded(state: CoatlState, event: ProphecyDiscarded) -> CoatlState:
    h = state.hidden
    seat = event.seat
    card = event.card
    state = _hidden_seat(state, "hands", seat, _remove(h.hands[seat], card))
    return replace(state, hidden=replace(state.hidden, discard=state.hidden.discard + (card,)))


def _priests_duty_used(state: CoatlState, event: PriestsDutyUsed) -> CoatlState:
    h = state.hidden
    seat = event.seat
    pile = event.pile
    taken = h.piles[pile][0]
    state = _hidden_seat(_pop_pile(state, pile), "temples", seat, h.temples[seat] + (taken,))
    return _use_token(state, seat, "priests_duty")


def _coatl_started(state: CoatlState, event: CoatlStarted) -> CoatlState:
    seat = event.seat
    piece = event.piece
    state = _board(state, seat, remove=piece)
    return _player(state, seat, coatls=state.players[seat].coatls + (Coatl(pieces=(piece,)),))


def _piece_added(state: CoatlState, event: PieceAdded) -> CoatlState:
    seat = event.seat
    index = event.coatl
    piece = event.piece
    end = event.end
    old = state.players[seat].coatls[index].pieces
    pieces = (piece,) + old if end == "head" else old + (piece,)
    return _coatl(_board(state, seat, remove=piece), seat, index, pieces=pieces)


def _coatl_completed(state: CoatlState, event: CoatlCompleted) -> CoatlState:
    seat = event.seat
    index = event.coatl
    return _turn(_coatl(state, seat, index, status="completing"), pending=index)


def _prophecy_played(state: CoatlState, event: ProphecyPlayed) -> CoatlState:
    h = state.hidden
    seat = event.seat
    index = event.coatl
    card = event.card
    state = _hidden_seat(state, "hands", seat, _remove(h.hands[seat], card))
    return _coatl(state, seat, index, cards=state.players[seat].coatls[index].cards + (card,))


def _temple_played(state: CoatlState, event: TemplePlayed) -> CoatlState:
    seat = event.seat
    if event.pile is None:
        state = _hidden_seat(state, "temples", seat, _remove(state.hidden.temples[seat], event.temple))
    else:
        state = _pop_pile(state, event.pile)
    return _coatl(state, seat, event.coatl, temple=event.temple)


def _coatl_closed(state: CoatlState, event: CoatlClosed) -> CoatlState:
    seat = event.seat
    index = event.coatl
    return _turn(_coatl(state, seat, index, status="closed"), pending=None)


def _turn_ended(state: CoatlState, event: TurnEnded) -> CoatlState:
    passed = state.turn is not None and state.turn.current is None
    return replace(state, turn=None, passes=state.passes + 1 if passed else 0)


def _end_triggered(state: CoatlState, event: EndTriggered) -> CoatlState:
    condition = event.condition
    last_turns = event.last_turns
    return replace(state, end_condition=condition, last_turns=last_turns)


def _game_finished(state: CoatlState, event: GameFinished) -> CoatlState:
    scores = event.scores
    return replace(state, phase="over", scores=scores, last_turns=())


EVOLVERS: dict[type, Callable[[CoatlState, Any], CoatlState]] = {
    OpeningHandKept: _opening_hand_kept, OpeningHandsSettled: _opening_hands_settled, TurnStarted: _turn_started,
    ActionBegun: _action_begun, PiecesTaken: _pieces_taken, DiscRefilled: _disc_refilled,
    PerfectChoiceUsed: _perfect_choice_used, ProphecyTaken: _prophecy_taken, DeckReshuffled: _deck_reshuffled,
    RowRefilled: _row_refilled, ForetellingUsed: _foretelling_used, ProphecyDiscarded: _prophecy_discarded,
    PriestsDutyUsed: _priests_duty_used, CoatlStarted: _coatl_started, PieceAdded: _piece_added,
    CoatlCompleted: _coatl_completed, ProphecyPlayed: _prophecy_played, TemplePlayed: _temple_played,
    CoatlClosed: _coatl_closed, TurnEnded: _turn_ended, EndTriggered: _end_triggered, GameFinished: _game_finished,
}


def evolve(state: Optional[CoatlState], event: CoatlEvent) -> CoatlState:
    """The state after `event`."""
    if isinstance(event, GameSetUp):
        return _setup(event)
    assert state is not None, "a Cóatl stream starts with GameSetUp"
    return evolved(EVOLVERS, state, event)
