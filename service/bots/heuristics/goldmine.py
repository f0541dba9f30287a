"""Gold Mine: take every coin, walk towards the nearest coin (or home once carrying enough), grow the cave
towards oneself, bat a rival about to escape.

The whole cave, the pirates and the drawn tile are public, so the public part of the state is rebuilt from
the view (the secret stack and scout tiles left empty) and the domain's own move heuristic
(`domain.goldmine.bot.weights`, goal fields over the visible cave) scores the commands; greedy plays its best.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.goldmine import bot
from domain.goldmine.commands import GoldmineCommand
from domain.goldmine.options import GoldmineOptions
from domain.goldmine.state import Cell, GoldmineState, Hidden, Pirate

Json = dict[str, Any]
_COMMANDS = msgspec.json.Decoder(list[GoldmineCommand])


def public_state(view: Json) -> GoldmineState:
    """The state as far as `view` shows it: everything but the hidden stack and scout tiles (left empty)."""
    return GoldmineState(
        options=msgspec.convert(view["options"], GoldmineOptions), seats=view["seats"], target=view["target"],
        hidden=Hidden(), board=tuple(Cell(x=t["x"], y=t["y"], tile=t["tile"]["id"], rotation=t["rotation"],
                                          coin=t["coin"]) for t in view["board"]),
        pirates=tuple(msgspec.convert(p, Pirate) for p in view["pirates"]),
        hands=tuple(tuple(t["id"] for t in hand) for hand in view["hands"]), first=view["first"],
        current=view["current"], phase=view["phase"], drawn=view["drawn"]["id"] if view["drawn"] else None,
        die=view["die"], chooser=view["chooser"], mover=view["mover"], turns=view["turns"])


def scores(view: Json, seat: int, commands: list[Json]) -> list[float]:
    typed = _COMMANDS.decode(msgspec.json.encode(commands))
    return [float(w) for w in bot.weights(public_state(view), seat, typed)]
