"""Position builders for Gold Mine rule tests (given/when/refused are the shared `tests.support.rules`).

`cave` folds real events (setup, placed tiles, scout map laid) and then sets
pirates directly, so each test states only the position it needs.
`ScriptedRng` subclasses the kernel Rng and hands out chosen die results.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.goldmine.events import FirstPlayerChosen, GameSetUp, ScoutMapLaid, TilePlaced, TilesShuffled
from domain.goldmine.game import GAME
from domain.goldmine.options import GoldmineOptions
from domain.goldmine.state import GoldmineState
from domain.kernel import Rng
from tests.support.rules import given

ENTRANCE = (0, 0, 0)


class ScriptedRng(Rng):
    """An Rng whose dice come from a script (then the real stream)."""

    def __init__(self, *dice: int) -> None:
        super().__init__(b"scripted", 0)
        self.script = list(dice)

    def die(self, sides: int = 6) -> int:
        return self.script.pop(0) if self.script else super().die(sides)


def cave(tiles: list[tuple[str, int, int, int]], seats: int = 2, stack: list[str] | None = None,
          pirates: dict[int, dict] | None = None, **options: object) -> GoldmineState:
    """A game in seat 0's movement phase with `tiles` (tile, x, y, rotation) placed around the entrance.

    The stack holds a cavern unless told otherwise, so the cave is never dead by default.
    """
    opts = GoldmineOptions(**options)  # type: ignore[arg-type]
    events: list = [GameSetUp(options=opts, seats=seats, target=10 if seats == 2 else 7),
                    TilesShuffled(stack=["V1#4"] if stack is None else stack, scout=[]), FirstPlayerChosen(rolls=[[6, 1]], seat=0)]
    for tile, x, y, rotation in tiles:
        events.append(TilePlaced(seat=0, tile=tile, x=x, y=y, rotation=rotation,
                                 coin=tile.startswith("G")))
    events.append(ScoutMapLaid(seat=0))
    state = given(GAME, *events)
    for seat, changes in (pirates or {}).items():
        pirate = replace(state.pirates[seat], **changes)
        state = replace(state, pirates=tuple(pirate if s == seat else p for s, p in enumerate(state.pirates)))
    return replace(state, origin=(state.pirates[0].x, state.pirates[0].y, state.pirates[0].path))


def at(pos: tuple[int, int, int], **more: int) -> dict:
    """Pirate changes placing it on `pos`."""
    return {"x": pos[0], "y": pos[1], "path": pos[2], **more}
