"""Gold Mine components, loaded once from the shipped `goldmine-tiles.json`.

The data file lists tile designs with a count; here every physical tile gets
a stable id (`"<design>#<n>"`, the entrance is `"E1#1"`) and each design is
turned into a `Design` holding its paths as side numbers (N=0, E=1, S=2, W=3)
and flags. No rules live here: geometry and matching are in `board.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

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


class PathFace(msgspec.Struct, frozen=True, kw_only=True):
    """One path as printed on a tile (rotation 0): the sides it opens and what is drawn on it."""

    sides: list[Literal["N", "E", "S", "W"]]
    chamber: bool
    secret: bool
    mud: bool


class TileFace(msgspec.Struct, frozen=True, kw_only=True):
    """A physical tile's printed data: its id, design, kind and paths (before rotation).

    `kind` is entrance, cavern, tunnel or gold; an entrance or cavern matches
    every neighbouring side and connects every opening that meets it.
    """

    id: str
    design: str
    kind: str
    paths: list[PathFace]


class Catalogue(msgspec.Struct, frozen=True, kw_only=True):
    """Gold Mine's whole box: every tile's printed data and the counts of the other pieces."""

    tiles: list[TileFace]
    coins: int
    bet_tokens: int
    bat_tokens: int
    pirates: int
    dice: int


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


def _face(tile: str) -> TileFace:
    d = design(tile)
    paths = [PathFace(sides=[SIDES[s] for s in p.sides], chamber=p.chamber, secret=p.secret, mud=p.mud)  # type: ignore[misc]
             for p in d.paths]
    return TileFace(id=tile, design=d.id, kind=d.kind, paths=paths)


FACES: dict[str, TileFace] = {tile: _face(tile) for tile in ALL_TILES}
CATALOGUE = Catalogue(tiles=list(FACES.values()), coins=28, bet_tokens=18, bat_tokens=18, pirates=6, dice=2)


def face(tile: str) -> TileFace:
    """The printed data of a physical tile id."""
    return FACES[tile]
