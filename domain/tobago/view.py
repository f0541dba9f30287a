"""What each seat may see: `view` and `redact`, the only exits of state.

Public: the island, landmarks, statues, amulets, ATVs, every map's clues,
roses and candidate set, the share's roses and revealed card, and counts of
every hidden pile. Private to a seat: its clue hand, its treasure cards and
the cards it drew into the running share. Nobody sees deck orders, the share
pile's order, the finder's extra card or another seat's secrets.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from domain.tobago.components import MAPS, MARKERS_PER_MAP
from domain.tobago.events import (
    ClueDeckReshuffled, CluesDrawn, CurseStruck, DecksShuffled, HandExchanged, ShareShuffled, TobagoEvent,
    TreasureDeckReshuffled, TreasuresDrawn)
from domain.tobago.island import bits
from domain.tobago.rules import to_act
from domain.tobago.state import TobagoState, candidates, roses_left


def view(state: TobagoState, seat: int | None) -> dict[str, Any]:
    hidden = state.hidden
    maps = []
    for i, m in enumerate(state.maps):
        cand = bits(candidates(state, i))
        maps.append({"colour": MAPS[i], "slots": msgspec.to_builtins(m.slots), "removed": list(m.removed),
                     "candidates": list(cand), "markers_on_board": bool(m.slots) and len(cand) <= MARKERS_PER_MAP})
    players = [{"atv": p.atv, "amulets": p.amulets, "roses": roses_left(state, i),
                "hand_count": len(hidden.private[i].hand), "treasure_count": len(hidden.private[i].treasures),
                "drawn_count": len(hidden.private[i].drawn)} for i, p in enumerate(state.players)]
    me = None
    if seat is not None:
        mine = hidden.private[seat]
        me = {"seat": seat, "hand": list(mine.hand), "treasures": list(mine.treasures), "drawn": list(mine.drawn),
              "gold": sum(mine.treasures)}
    share = None
    if state.share is not None:
        share = {**msgspec.to_builtins(state.share), "pile_count": len(hidden.share_pile)}
    return {
        "phase": state.phase, "options": msgspec.to_builtins(state.options),
        "island": [list(h) for h in state.island], "landmarks": msgspec.to_builtins(state.landmarks),
        "facing": list(state.facing), "amulets": list(state.amulets), "amulet_supply": state.amulet_supply,
        "maps": maps, "players": players, "turn": msgspec.to_builtins(state.turn), "share": share,
        "hunter": state.hunter, "hunt_map": state.hunt_map, "ending": state.ending,
        "clue_deck_count": len(hidden.clue_deck), "clue_discard_count": len(hidden.clue_discard),
        "treasure_deck_count": len(hidden.treasure_deck), "treasure_discard_count": len(hidden.treasure_discard),
        "to_act": sorted(to_act(state)), "me": me,
    }


def redact(event: TobagoEvent, seat: int | None) -> TobagoEvent | None:
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
