"""Finding a treasure and everything it sets off: the share, curses, amulets
appearing along statue gazes, the new hunt and the end of the game; plus the
draws and turn passing the rules share.

Decisions build their events with the kernel's `Emitter`, which folds each
event as it is emitted, so later steps read the state the earlier ones
produced and the deck draws, reshuffles and reveals land in the log in order.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from domain.kernel import Emitter, Rng, RuleViolation
from domain.tobago.clues import clue_refusal
from domain.tobago.components import CURSE, HAND_SIZE
from domain.tobago.events import (
    AmuletCollected, AmuletsAppeared, CardPassed, CardRevealed, CardTaken, ClueDeckReshuffled, CluePlayed, CluesDrawn,
    CurseStruck, GameFinished, HuntSkipped, ShareEnded, ShareShuffled, TobagoEvent, TreasureCollected,
    TreasureDeckReshuffled, TreasuresDrawn, TurnEnded)
from domain.tobago.island import bits
from domain.tobago.state import TobagoState, board_of, candidates, map_clues, roses_left

Emit = Emitter[TobagoState, TobagoEvent]


def clue_play_refusal(state: TobagoState, seat: int, index: int, card: str) -> Optional[RuleViolation]:
    """Why `seat` may not put `card` on map `index` now (the three clue rules, plus a rose to mark it)."""
    if roses_left(state, seat) <= 0:
        return RuleViolation("tobago.no_roses", "you have no compass rose left to mark a clue")
    m = state.maps[index]
    return clue_refusal(board_of(state), map_clues(m), m.removed, card)


def refill_hand(em: Emit, rng: Rng, seat: int) -> None:
    """Draw back up to the hand size, reshuffling the played clues into a new deck when it runs out."""
    need = HAND_SIZE[len(em.state.players)] - len(em.state.hidden.private[seat].hand)
    _draw(em, rng, need, False, lambda cards: CluesDrawn(seat=seat, count=len(cards), cards=cards))


def _draw_treasures(em: Emit, rng: Rng, seat: int, count: int, extra: bool = False) -> None:
    _draw(em, rng, count, True, lambda cards: TreasuresDrawn(seat=seat, count=len(cards), cards=cards, extra=extra))


def _draw(em: Emit, rng: Rng, count: int, treasure: bool, drawn: Callable[[list[Any]], TobagoEvent]) -> None:
    """Draw `count` cards from the treasure or clue deck; when it runs out, its discard pile is
    shuffled into a new deck (the whole pile, curses and lost cards included); stop when both are empty."""
    while count > 0:
        hidden = em.state.hidden
        deck, discard = ((hidden.treasure_deck, hidden.treasure_discard) if treasure
                         else (hidden.clue_deck, hidden.clue_discard))
        if not deck:
            if not discard:
                return
            order = rng.shuffle(discard)
            em(TreasureDeckReshuffled(count=len(order), order=order, from_discard=True) if treasure
               else ClueDeckReshuffled(count=len(order), order=order))
            continue
        take = min(count, len(deck))
        em(drawn(list(deck[:take])))
        count -= take


def collect_treasure(em: Emit, rng: Rng, seat: int, index: int) -> None:
    """The finder's rose, the secret draws (one per rose, plus one), the shuffle, then the share."""
    (hex_,) = bits(candidates(em.state, index))
    em(TreasureCollected(seat=seat, map=index, hex=hex_, finder_rose=roses_left(em.state, seat) > 0))
    share = em.state.share
    assert share is not None
    n = len(em.state.players)
    for other in [(seat + k) % n for k in range(n)]:
        _draw_treasures(em, rng, other, share.roses.count(other))
    _draw_treasures(em, rng, seat, 1, extra=True)
    pile = rng.shuffle(em.state.hidden.share_pile)
    em(ShareShuffled(count=len(pile), pile=pile))
    _advance(em, rng)


def answer_offer(em: Emit, rng: Rng, seat: int, take: bool) -> None:
    em(CardTaken(seat=seat) if take else CardPassed(seat=seat))
    _advance(em, rng)


def _advance(em: Emit, rng: Rng) -> None:
    """Reveal cards until a seat must answer an offer, or the share is over."""
    while True:
        share = em.state.share
        assert share is not None
        if share.offer is not None:
            return
        if not share.roses or not em.state.hidden.share_pile:
            _end_share(em)
            return
        card = em.state.hidden.share_pile[0]
        em(CardRevealed(card=card))
        if card == CURSE and _curse(em, rng):
            _end_share(em)
            return


def _curse(em: Emit, rng: Rng) -> bool:
    """Apply a revealed curse; True when it stops the share."""
    state = em.state
    share = state.share
    assert share is not None
    mode = state.options.curse_effect
    amulet_losers, treasure_losers, values, leaving = [], [], [], []
    for seat in sorted(set(share.roses)):
        if state.players[seat].amulets > 0:
            amulet_losers.append(seat)
            continue
        mine = state.hidden.private[seat].treasures
        if mine:
            treasure_losers.append(seat)
            values.append(max(mine))
        if mode == "amulet_holders":
            leaving.append(seat)
    stops = mode == "standard"
    em(CurseStruck(amulet_losers=amulet_losers, treasure_losers=treasure_losers, lost_values=values,
                   leaving=leaving, stops=stops, returns=state.options.curse_returns))
    if state.options.curse_returns:
        order = rng.shuffle(em.state.hidden.treasure_deck + (CURSE,))
        em(TreasureDeckReshuffled(count=len(order), order=order, from_discard=False))
    return stops


def _end_share(em: Emit) -> None:
    share = em.state.share
    assert share is not None
    # the player who took the last card starts the new hunt; the finder only when nobody took one
    hunter = share.finder if share.last_taker is None else share.last_taker
    em(ShareEnded(discarded=len(em.state.hidden.share_pile), hunter=hunter))
    state = em.state
    geo = board_of(state).geo
    hexes: list[int] = []
    for statue, facing in zip(state.landmarks.statues, state.facing):
        target = geo.gaze_target(statue, facing)
        if target not in state.amulets and target not in hexes and len(hexes) < state.amulet_supply:
            hexes.append(target)
    em(AmuletsAppeared(hexes=hexes, facing=[(f + 1) % 6 for f in state.facing]))
    if em.state.ending:
        em(GameFinished())
    elif not hunt_cards(em.state):
        em(HuntSkipped(seat=hunter, map=share.map))


def hunt_cards(state: TobagoState) -> list[str]:
    """The hand cards the hunter may start the new hunt with."""
    if state.phase != "new_hunt" or state.hunter is None or state.hunt_map is None:
        return []
    return [c for c in state.hidden.private[state.hunter].hand
            if clue_play_refusal(state, state.hunter, state.hunt_map, c) is None]


def start_hunt(em: Emit, rng: Rng, seat: int, card: str) -> None:
    index = em.state.hunt_map
    assert index is not None
    em(CluePlayed(seat=seat, map=index, card=card, hunt=True))
    refill_hand(em, rng, seat)


def start_turn(em: Emit, seat: int, nxt: int) -> None:
    """Pass the turn; an amulet under the next ATV is collected for free."""
    em(TurnEnded(seat=seat, next=nxt))
    atv = em.state.players[nxt].atv
    if atv in em.state.amulets:
        em(AmuletCollected(seat=nxt, hex=atv))  # type: ignore[arg-type]
