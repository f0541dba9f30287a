"""Position builders for Tobago tests: the classic island with fixed landmarks and crafted decks.

Decisions go through the shared `tests/support/rules.py` (`given`, `when`, `then`, `refused`).
"""

from __future__ import annotations

from typing import Any, Optional

from domain.kernel import Rng
from domain.tobago.components import CLASSIC_ISLAND, CLUE_IDS, CURSE, TREASURE_CARDS
from domain.tobago.events import DecksShuffled, IslandBuilt
from domain.tobago.game import GAME
from domain.tobago.island import geometry
from domain.tobago.options import LandmarkSpec, TobagoOptions
from domain.tobago.setup import build_board
from domain.tobago.state import TobagoState
from tests.support.rules import given

# statues where no jungle hex lies next to them (the rulebook's "empties the map" example)
FIXED = LandmarkSpec(huts=((-4, 0), (0, 4), (2, -1), (6, -5)), palms=((-1, 3), (1, -2), (5, -4)),
                     statues=((-5, 2, 0), (-2, -2, 2), (4, -5, 3)))
GEO = geometry(CLASSIC_ISLAND)


def hx(q: int, r: int) -> int:
    """The index of land hex (q, r) on the classic island."""
    return GEO.index[(q, r)]


def options(**kw: Any) -> TobagoOptions:
    """Options with the fixed landmarks, plus `kw`."""
    return TobagoOptions(landmarks=FIXED, **kw)


def table(seats: int = 3, clues: Any = (), treasures: Optional[list[int]] = None, **kw: Any) -> TobagoState:
    """A state before ATV placement: `clues` on top of the clue deck, then the rest in id order."""
    opts = options(**kw)
    island, marks, facing = build_board(opts, Rng(b"fixed", 0))
    deck = list(clues) + [c for c in CLUE_IDS if c not in clues]
    if treasures is None:
        treasures = list(TREASURE_CARDS) + [CURSE] * opts.curse_cards
    return given(GAME, IslandBuilt(options=opts, seats=seats, first=0, hexes=list(island), landmarks=marks,
                                   facing=facing),
                 DecksShuffled(clue_deck=deck, treasure_deck=treasures))


def types(events: list[Any]) -> list[str]:
    """The events' class names, in order."""
    return [type(e).__name__ for e in events]
