"""Folding Tobago events into state: one small function per event type, found through `EVOLVERS`;
never validating, never drawing randomness (every random outcome is inside the events)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain.kernel import evolved
from domain.tobago.components import CURSE, MAPS
from domain.tobago.events import (
    AmuletCollected, AmuletsAppeared, AmuletSpent, AtvPlaced, CandidateRemoved, CardPassed, CardRevealed, CardTaken,
    ClueDeckReshuffled, CluePlayed, CluesDrawn, CurseStruck, DecksShuffled, Drove, GameFinished, HandExchanged,
    HuntSkipped, IslandBuilt, RoseDoubled, RosesSwapped, ShareEnded, ShareShuffled, TobagoEvent, TreasureCollected,
    TreasureDeckReshuffled, TreasuresDrawn, TurnEnded)
from domain.tobago.state import Hidden, Player, Private, Share, Slot, TobagoState, TreasureMap, Turn


def _set(items: tuple, index: int, value: Any) -> tuple:
    return items[:index] + (value,) + items[index + 1:]


def _private(state: TobagoState, seat: int, **changes: Any) -> TobagoState:
    hidden = state.hidden
    return replace(state, hidden=replace(hidden, private=_set(hidden.private, seat, replace(
        hidden.private[seat], **changes))))


def _player(state: TobagoState, seat: int, **changes: Any) -> TobagoState:
    return replace(state, players=_set(state.players, seat, replace(state.players[seat], **changes)))


def _hidden(state: TobagoState, **changes: Any) -> TobagoState:
    return replace(state, hidden=replace(state.hidden, **changes))


def _map(state: TobagoState, index: int, **changes: Any) -> TobagoState:
    return replace(state, maps=_set(state.maps, index, replace(state.maps[index], **changes)))


def _next_offer(share: Share, passed: tuple[int, ...]) -> int | None:
    for seat in share.roses:
        if seat not in passed:
            return seat
    return None


def initial(event: IslandBuilt) -> TobagoState:
    seats = event.seats
    return TobagoState(
        options=event.options, island=tuple(tuple(h) for h in event.hexes), landmarks=event.landmarks,  # type: ignore
        facing=tuple(event.facing), players=tuple(Player() for _ in range(seats)),
        maps=tuple(TreasureMap() for _ in MAPS), turn=Turn(seat=event.first),
        hidden=Hidden((), (), (), (), (), tuple(Private() for _ in range(seats))))


def _decks_shuffled(state: TobagoState, event: DecksShuffled) -> TobagoState:
    return _hidden(state, clue_deck=tuple(event.clue_deck or ()),
                   treasure_deck=tuple(event.treasure_deck or ()))


def _atv_placed(state: TobagoState, event: AtvPlaced) -> TobagoState:
    state = _player(state, event.seat, atv=event.hex)
    return replace(state, turn=Turn(seat=(event.seat + 1) % len(state.players)))


def _clue_played(state: TobagoState, event: CluePlayed) -> TobagoState:
    slots = state.maps[event.map].slots + (Slot(event.card, event.seat),)
    state = _map(state, event.map, slots=slots)
    if event.from_deck:
        state = _hidden(state, clue_deck=state.hidden.clue_deck[1:])
    else:
        hand = state.hidden.private[event.seat].hand
        state = _private(state, event.seat, hand=tuple(c for c in hand if c != event.card))
    if event.hunt and state.phase == "new_hunt":
        state = replace(state, phase="turn", hunter=None, hunt_map=None)
    if event.main_action:
        state = replace(state, turn=replace(state.turn, acted=True, steps_left=0))
    return state


def _clues_drawn(state: TobagoState, event: CluesDrawn) -> TobagoState:
    cards = state.hidden.clue_deck[:event.count]
    state = _hidden(state, clue_deck=state.hidden.clue_deck[event.count:])
    return _private(state, event.seat, hand=state.hidden.private[event.seat].hand + cards)


def _clue_deck_reshuffled(state: TobagoState, event: ClueDeckReshuffled) -> TobagoState:
    return _hidden(state, clue_deck=state.hidden.clue_deck + tuple(event.order or ()), clue_discard=())


def _hand_exchanged(state: TobagoState, event: HandExchanged) -> TobagoState:
    hand = state.hidden.private[event.seat].hand
    state = _hidden(state, clue_discard=state.hidden.clue_discard + hand)
    state = _private(state, event.seat, hand=())
    if event.main_action:
        state = replace(state, turn=replace(state.turn, acted=True, steps_left=0))
    return state


def _amulet_spent(state: TobagoState, event: AmuletSpent) -> TobagoState:
    state = _player(state, event.seat, amulets=state.players[event.seat].amulets - 1)
    return replace(state, amulet_supply=state.amulet_supply + 1)


def _drove(state: TobagoState, event: Drove) -> TobagoState:
    state = _player(state, event.seat, atv=event.hex)
    if event.amulet:
        return state
    left = (state.turn.steps_left if state.turn.acted else 3) - event.steps
    return replace(state, turn=replace(state.turn, acted=True, steps_left=left))


def _amulet_collected(state: TobagoState, event: AmuletCollected) -> TobagoState:
    state = _player(state, event.seat, amulets=state.players[event.seat].amulets + 1)
    return replace(state, amulets=tuple(h for h in state.amulets if h != event.hex))


def _candidate_removed(state: TobagoState, event: CandidateRemoved) -> TobagoState:
    return _map(state, event.map, removed=tuple(sorted(state.maps[event.map].removed + (event.hex,))))


def _rose_doubled(state: TobagoState, event: RoseDoubled) -> TobagoState:
    slots = state.maps[event.map].slots
    return _map(state, event.map, slots=_set(slots, event.slot, replace(slots[event.slot], roses=2)))


def _roses_swapped(state: TobagoState, event: RosesSwapped) -> TobagoState:
    slots = state.maps[event.map].slots
    a, b = slots[event.a], slots[event.b]
    slots = _set(_set(slots, event.a, replace(a, seat=b.seat, roses=b.roses)),
                 event.b, replace(b, seat=a.seat, roses=a.roses))
    return _map(state, event.map, slots=slots)


def _treasure_collected(state: TobagoState, event: TreasureCollected) -> TobagoState:
    roses = tuple(s.seat for s in reversed(state.maps[event.map].slots) for _ in range(s.roses))
    roses = ((event.seat,) if event.finder_rose else ()) + roses
    return replace(state, phase="share", share=Share(map=event.map, finder=event.seat, roses=roses),
                   turn=replace(state.turn, steps_left=0))


def _treasure_deck_reshuffled(state: TobagoState, event: TreasureDeckReshuffled) -> TobagoState:
    if event.from_discard:
        state = _hidden(state, treasure_discard=())
    return _hidden(state, treasure_deck=tuple(event.order or ()))


def _treasures_drawn(state: TobagoState, event: TreasuresDrawn) -> TobagoState:
    deck = state.hidden.treasure_deck
    state = _hidden(state, treasure_deck=deck[event.count:], share_pile=state.hidden.share_pile
                    + deck[:event.count])
    if not event.extra:
        drawn = state.hidden.private[event.seat].drawn + deck[:event.count]
        state = _private(state, event.seat, drawn=drawn)
    return replace(state, ending=state.ending or not state.hidden.treasure_deck)


def _share_shuffled(state: TobagoState, event: ShareShuffled) -> TobagoState:
    return _hidden(state, share_pile=tuple(event.pile or ()))


def _card_revealed(state: TobagoState, event: CardRevealed) -> TobagoState:
    share = state.share
    assert share is not None
    state = _hidden(state, share_pile=state.hidden.share_pile[1:])
    share = replace(share, card=event.card, passed=(), revealed=share.revealed + 1)
    return replace(state, share=replace(share, offer=None if event.card == CURSE else _next_offer(share, ())))


def _card_taken(state: TobagoState, event: CardTaken) -> TobagoState:
    share = state.share
    assert share is not None and share.card is not None
    roses = list(share.roses)
    roses.remove(event.seat)
    state = _private(state, event.seat, treasures=tuple(sorted(
        state.hidden.private[event.seat].treasures + (share.card,))))
    return replace(state, share=replace(share, roses=tuple(roses), card=None, offer=None, passed=(),
                                        last_taker=event.seat))


def _card_passed(state: TobagoState, event: CardPassed) -> TobagoState:
    share = state.share
    assert share is not None and share.card is not None
    passed = share.passed + (event.seat,)
    offer = _next_offer(share, passed)
    if offer is None:
        state = _hidden(state, treasure_discard=state.hidden.treasure_discard + (share.card,))
        return replace(state, share=replace(share, card=None, offer=None, passed=()))
    return replace(state, share=replace(share, offer=offer, passed=passed))


def _curse_struck(state: TobagoState, event: CurseStruck) -> TobagoState:
    share = state.share
    assert share is not None
    for seat in event.amulet_losers:
        state = _player(state, seat, amulets=state.players[seat].amulets - 1)
    state = replace(state, amulet_supply=state.amulet_supply + len(event.amulet_losers))
    for seat, value in zip(event.treasure_losers, event.lost_values):
        mine = list(state.hidden.private[seat].treasures)
        mine.remove(value)  # type: ignore[arg-type]
        state = _private(state, seat, treasures=tuple(mine))
        state = _hidden(state, treasure_discard=state.hidden.treasure_discard + (value,))
    roses = tuple(s for s in share.roses if s not in event.leaving)
    return replace(state, share=replace(share, roses=roses, card=None, offer=None),
                   curses_out=state.curses_out + (0 if event.returns else 1))


def _share_ended(state: TobagoState, event: ShareEnded) -> TobagoState:
    share = state.share
    assert share is not None
    # leftovers, a curse among them too, are discarded without effect (they may come back at the end)
    hidden = state.hidden
    state = _hidden(state, share_pile=(), treasure_discard=hidden.treasure_discard + hidden.share_pile,
                    clue_discard=state.hidden.clue_discard + tuple(s.card for s in state.maps[share.map].slots))
    for seat in range(len(state.players)):
        state = _private(state, seat, drawn=())
    state = _map(state, share.map, slots=(), removed=())
    return replace(state, share=None, phase="new_hunt", hunter=event.hunter, hunt_map=share.map)


def _amulets_appeared(state: TobagoState, event: AmuletsAppeared) -> TobagoState:
    return replace(state, amulets=tuple(sorted(state.amulets + tuple(event.hexes))),
                   amulet_supply=state.amulet_supply - len(event.hexes), facing=tuple(event.facing))


def _hunt_skipped(state: TobagoState, event: HuntSkipped) -> TobagoState:
    return replace(state, phase="turn", hunter=None, hunt_map=None)


def _turn_ended(state: TobagoState, event: TurnEnded) -> TobagoState:
    return replace(state, turn=Turn(seat=event.next), phase="turn")


def _game_finished(state: TobagoState, event: GameFinished) -> TobagoState:
    return replace(state, phase="over", share=None, hunter=None, hunt_map=None)


EVOLVERS: dict[type, Callable[[TobagoState, Any], TobagoState]] = {
    DecksShuffled: _decks_shuffled, AtvPlaced: _atv_placed, CluePlayed: _clue_played, CluesDrawn: _clues_drawn,
    ClueDeckReshuffled: _clue_deck_reshuffled, HandExchanged: _hand_exchanged, AmuletSpent: _amulet_spent,
    Drove: _drove, AmuletCollected: _amulet_collected, CandidateRemoved: _candidate_removed,
    RoseDoubled: _rose_doubled, RosesSwapped: _roses_swapped, TreasureCollected: _treasure_collected,
    TreasureDeckReshuffled: _treasure_deck_reshuffled, TreasuresDrawn: _treasures_drawn,
    ShareShuffled: _share_shuffled, CardRevealed: _card_revealed, CardTaken: _card_taken, CardPassed: _card_passed,
    CurseStruck: _curse_struck, ShareEnded: _share_ended, AmuletsAppeared: _amulets_appeared,
    HuntSkipped: _hunt_skipped, TurnEnded: _turn_ended, GameFinished: _game_finished,
}


def evolve(state: TobagoState | None, event: TobagoEvent) -> TobagoState:
    """`state` after `event` (None before the stream's first event, IslandBuilt)."""
    if state is None:
        assert isinstance(event, IslandBuilt), "a Tobago stream starts with IslandBuilt"
        return initial(event)
    return evolved(EVOLVERS, state, event)
