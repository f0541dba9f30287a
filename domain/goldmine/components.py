"""Gold Mine components, loaded once from the shipped `goldmine-tiles.json`.

The data file lists tile designs with a count; here every physical tile gets
a stable id (`"<design>#<n>"`, the entrance is `"E1#1"`) and each design is
turned into a `Design` holding its paths as side numbers (N=0, E=1, S=2, W=3)
and flags. No rules live here: geometry and matching are in `board.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

SIDES = ("N", "E", "S", "W")


class PathSpec(msgspec.Struct, frozen=True):
    """One path of a design at rotation 0: the sides it opens and its flags."""

    sides: tuple[int, ...]
    chamber: bool = False
    secret: bool = False
    mud: bool = False


class Design(msgspec.Struct, frozen=True):
    """A tile design: kind (entrance, cavern, tunnel, gold) and its paths."""

    id: str
    kind: str
    paths: tuple[PathSpec, ...]
    wildcard: bool = False


def _load() -> tuple[dict[str, Design], tuple[str, ...], dict[str, str]]:
    raw = json.loads((Path(__file__).parent / "goldmine-tiles.json").read_text(encoding="utf-8"))
    designs: dict[str, Design] = {}
    tiles: list[str] = []
    design_of: dict[str, str] = {}
    for item in raw["designs"]:
        paths = tuple(
            PathSpec(sides=tuple(SIDES.index(e) for e in p["edges"]), chamber=bool(p.get("chamber")),
                     secret=bool(p.get("secret")), mud=bool(p.get("mud")))
            for p in item["paths"])
        wildcard = any(bool(p.get("wildcard")) for p in item["paths"])
        designs[item["id"]] = Design(id=item["id"], kind=item["kind"], paths=paths, wildcard=wildcard)
        for n in range(1, item["count"] + 1):
            tile = f"{item['id']}#{n}"
            tiles.append(tile)
            design_of[tile] = item["id"]
    return designs, tuple(tiles), design_of


DESIGNS, ALL_TILES, DESIGN_OF = _load()
ENTRANCE = "E1#1"
COINS_TO_WIN = {2: 10, 3: 7, 4: 7, 5: 5, 6: 5}
TEAM_COINS_TO_WIN = {4: 12, 6: 8}
SCOUT_TILES = 20
TOKENS = 3


def design(tile: str) -> Design:
    """The design of a physical tile id."""
    return DESIGNS[DESIGN_OF[tile]]
