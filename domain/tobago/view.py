"""What each seat may see: `view` and `redact`, the only exits of state.

Public: the island, landmarks, statues, amulets, ATVs, every map's clues
(each card with its printed clue), roses and candidate set, the share's roses
and revealed card (printed), and counts of every hidden pile. Private to a
seat (`private`): its clue hand, its treasure cards and the cards it drew
into the running share, all printed. Nobody sees deck orders, the share
pile's order, the finder's extra card or another seat's secrets; `scores`
hold the gold the viewer may know (its own, and everyone's once it is over).
"""

from __future__ import annotations

from typing import Optional

import msgspec
from msgspec.structs import replace

from domain.kernel import View
from domain.tobago.components import (
    CLUES, MAPS, MARKERS_PER_MAP, Amulet, AmuletPower, ClueCard, LandHex, TreasureCard, treasure_card)
from domain.tobago.events import (
    ClueDeckReshuffled, CluesDrawn, CurseStruck, DecksShuffled, HandExchanged, ShareShuffled, TobagoEvent,
    TreasureDeckReshuffled, TreasuresDrawn)
from domain.tobago.island import Landmarks, bits
from domain.tobago.rules import drive_steps_left, to_act
from domain.tobago.options import TobagoOptions
from domain.tobago.state import Phase, TobagoState, candidates, roses_left


class Statue(msgspec.Struct, frozen=True, kw_only=True):
    """A statue's hex and the direction it faces (0..5 = N, NE, SE, S, SW, NW; it turns after each find)."""

    hex: int
    facing: int


class AmuletOnIsland(msgspec.Struct, frozen=True, kw_only=True):
    """An amulet lying on a land hex, with the powers it grants once collected."""

    hex: int
    powers: tuple[AmuletPower, ...]


class ClueOnMap(msgspec.Struct, frozen=True, kw_only=True):
    """A clue on a map (top first) with the printed card and the roses of the seat that played it."""

    card: ClueCard
    seat: int
    roses: int


class MapView(msgspec.Struct, frozen=True, kw_only=True):
    """A treasure map: its clues, the hexes amulets removed, its candidates and whether its markers are out."""

    colour: str
    clues: list[ClueOnMap]
    removed: list[int]
    candidates: list[int]
    markers_on_board: bool


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    """What everyone sees of a seat: ATV, amulets, roses in supply and the size of each secret pile."""

    seat: int
    atv: Optional[int]
    amulets: int
    roses: int
    hand_count: int
    treasure_count: int
    drawn_count: int


class PrivateView(msgspec.Struct, frozen=True, kw_only=True):
    """The viewer's own secrets: clue hand, treasure cards, cards drawn into the running share, gold."""

    hand: list[ClueCard]
    treasures: list[TreasureCard]
    drawn: list[TreasureCard]
    gold: int


class TurnView(msgspec.Struct, frozen=True, kw_only=True):
    """The active seat, whether its action is taken, and the drive steps it may still take this turn (3 until
    it acts; 0 while the ATVs are being placed and once the game is over)."""

    seat: int
    acted: bool
    steps_left: int


class ShareView(msgspec.Struct, frozen=True, kw_only=True):
    """A running share: roses bottom first, the face-up card and whom it is offered to."""

    map: int
    finder: int
    roses: list[int]
    card: Optional[TreasureCard]
    offer: Optional[int]
    passed: list[int]
    revealed: int
    last_taker: Optional[int]
    pile_count: int


class TobagoView(View, frozen=True, kw_only=True, tag="tobago"):
    """A seat's view of a Tobago table (`private` is None for spectators)."""

    phase: Phase
    options: TobagoOptions
    island: list[LandHex]
    landmarks: Landmarks
    statues: list[Statue]
    amulets: list[AmuletOnIsland]
    amulet_supply: int
    maps: list[MapView]
    players: list[PlayerView]
    turn: TurnView
    share: Optional[ShareView]
    hunter: Optional[int]
    hunt_map: Optional[int]
    ending: bool
    clue_deck_count: int
    clue_discard_count: int
    treasure_deck_count: int
    treasure_discard_count: int
    private: Optional[PrivateView]


def _powers(state: TobagoState) -> tuple[AmuletPower, ...]:
    powers = Amulet().powers
    return powers if state.options.advanced_amulets else tuple(p for p in powers if p not in ("double", "swap"))


def _map(state: TobagoState, index: int) -> MapView:
    m = state.maps[index]
    cand = bits(candidates(state, index))
    clues = [ClueOnMap(card=CLUES[s.card], seat=s.seat, roses=s.roses) for s in m.slots]
    return MapView(colour=MAPS[index], clues=clues, removed=list(m.removed), candidates=list(cand),
                   markers_on_board=bool(m.slots) and len(cand) <= MARKERS_PER_MAP)


def _share(state: TobagoState) -> Optional[ShareView]:
    share = state.share
    if share is None:
        return None
    card = None if share.card is None else treasure_card(share.card)
    return ShareView(map=share.map, finder=share.finder, roses=list(share.roses), card=card, offer=share.offer,
                     passed=list(share.passed), revealed=share.revealed, last_taker=share.last_taker,
                     pile_count=len(state.hidden.share_pile))


def _scores(state: TobagoState, seat: Optional[int]) -> list[Optional[int]]:
    """Gold is secret until the end: a seat sees its own, the others are null (not 0)."""
    return [sum(p.treasures) if state.phase == "over" or i == seat else None
            for i, p in enumerate(state.hidden.private)]


def _steps_left(state: TobagoState) -> int:
    """The drive steps left this turn: none while the ATVs are still being placed (no turn has begun)
    or once the game is over; else 3 until the turn's action is taken, then what the drive left."""
    return 0 if state.phase in ("place_atv", "over") else drive_steps_left(state)


def view(state: TobagoState, seat: Optional[int]) -> TobagoView:
    """What `seat` (None = a spectator) may see of the table now."""
    hidden = state.hidden
    players = [PlayerView(seat=i, atv=p.atv, amulets=p.amulets, roses=roses_left(state, i),
                          hand_count=len(hidden.private[i].hand), treasure_count=len(hidden.private[i].treasures),
                          drawn_count=len(hidden.private[i].drawn)) for i, p in enumerate(state.players)]
    private = None
    if seat is not None:
        mine = hidden.private[seat]
        private = PrivateView(hand=[CLUES[c] for c in mine.hand], treasures=[treasure_card(v) for v in mine.treasures],
                              drawn=[treasure_card(v) for v in mine.drawn], gold=sum(mine.treasures))
    powers = _powers(state)
    turn = state.turn
    return TobagoView(
        seat=seat, phase=state.phase, to_act=sorted(to_act(state)), scores=_scores(state, seat),
        options=state.options, island=[LandHex(q, r, t) for q, r, t in state.island], landmarks=state.landmarks,
        statues=[Statue(hex=h, facing=f) for h, f in zip(state.landmarks.statues, state.facing)],
        amulets=[AmuletOnIsland(hex=h, powers=powers) for h in state.amulets], amulet_supply=state.amulet_supply,
        maps=[_map(state, i) for i in range(len(state.maps))], players=players,
        turn=TurnView(seat=turn.seat, acted=turn.acted, steps_left=_steps_left(state)), share=_share(state),
        hunter=state.hunter, hunt_map=state.hunt_map, ending=state.ending,
        clue_deck_count=len(hidden.clue_deck), clue_discard_count=len(hidden.clue_discard),
        treasure_deck_count=len(hidden.treasure_deck), treasure_discard_count=len(hidden.treasure_discard),
        private=private)


def redact(event: TobagoEvent, seat: Optional[int]) -> Optional[TobagoEvent]:
    """`event` as `seat` may see it: deck orders, other seats' draws and lost card values blanked."""
    match event:
        case DecksShuffled():
            return replace(event, clue_deck=None, treasure_deck=None)
        case ClueDeckReshuffled() | TreasureDeckReshuffled():
            return replace(event, order=None)
        case ShareShuffled():
            return replace(event, pile=None)
        case CluesDrawn() | HandExchanged():
            return event if event.seat == seat else replace(event, cards=None)
        case TreasuresDrawn():
            return event if event.seat == seat and not event.extra else replace(event, cards=None)
        case CurseStruck():
            values = [v if s == seat else None for s, v in zip(event.treasure_losers, event.lost_values)]
            return replace(event, lost_values=values)
    return event

