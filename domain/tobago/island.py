"""The island: hex geometry, regions, landmarks, and the island validator.

Hexes are flat-top axial (q, r); land hexes are numbered by their index in the
island's sorted hex tuple, and every other coordinate is ocean. `geometry()`
derives (once per island, cached) neighbours, the coast, distances to the
ocean, regions and the big region of each terrain, and the drive-step
distances. `validate_island` and `validate_landmarks` check the spec's rules
for every island, classic or generated; `place_landmarks` puts the huts,
palms and statues at random from the game's Rng.
"""

from __future__ import annotations

from functools import lru_cache

import msgspec

from domain.kernel import Rng
from domain.tobago.components import LANDMARK_COUNTS, LANDMARK_DISTANCE, TERRAINS

Island = tuple[tuple[int, int, str], ...]
# N, NE, SE, S, SW, NW: clockwise, so a statue turning 60 degrees clockwise adds 1
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))


class Landmarks(msgspec.Struct, frozen=True):
    """Hex indices of the 4 huts, 3 palms and 3 statues (statue facings live in the state: they turn)."""

    huts: tuple[int, ...]
    palms: tuple[int, ...]
    statues: tuple[int, ...]


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def ring_coords(c: tuple[int, int], radius: int) -> list[tuple[int, int]]:
    """Every coordinate at hex distance 1..radius of `c`."""
    q, r = c
    return [(q + dq, r + dr) for dq in range(-radius, radius + 1) for dr in range(-radius, radius + 1)
            if 0 < max(abs(dq), abs(dr), abs(dq + dr)) <= radius]


class Geometry:
    """Everything derived from the terrain of one island (immutable after construction)."""

    def __init__(self, island: Island) -> None:
        self.island = island
        self.coords = [(q, r) for q, r, _ in island]
        self.terrain = [t for _, _, t in island]
        self.n = len(island)
        self.all = (1 << self.n) - 1
        self.index, self.neigh, self.ocean_dist, self.within2 = _shape(tuple(self.coords))
        self.coastal = [d == 1 for d in self.ocean_dist]
        self.region_of = [-1] * self.n
        self.regions: list[list[int]] = []
        for start in range(self.n):
            if self.region_of[start] < 0:
                self.regions.append(self._flood(start, len(self.regions)))
        self.terrain_mask = {t: 0 for t in TERRAINS}
        for i, t in enumerate(self.terrain):
            self.terrain_mask[t] = self.terrain_mask.get(t, 0) | (1 << i)
        self.big: dict[str, int] = {}
        self.big_unique: dict[str, bool] = {}
        for t in TERRAINS:
            sizes = sorted((len(reg), k) for k, reg in enumerate(self.regions) if self.terrain[reg[0]] == t)
            if sizes:
                self.big[t] = mask_of(self.regions[sizes[-1][1]])
                self.big_unique[t] = len(sizes) == 1 or sizes[-1][0] > sizes[-2][0]
        self._steps: dict[int, list[int]] = {}

    def _flood(self, start: int, label: int) -> list[int]:
        terrain, todo, out = self.terrain[start], [start], []
        self.region_of[start] = label
        while todo:
            h = todo.pop()
            out.append(h)
            for x in self.neigh[h]:
                if self.region_of[x] < 0 and self.terrain[x] == terrain:
                    self.region_of[x] = label
                    todo.append(x)
        return sorted(out)

    def steps_from(self, source: int) -> list[int]:
        """Drive steps from `source` to every hex: one step = anywhere in the region, or onto a neighbour."""
        if source not in self._steps:
            dist = [-1] * self.n
            dist[source] = 0
            frontier, done_regions = [source], set()
            while frontier:
                nxt = []
                for h in frontier:
                    reach = list(self.neigh[h])
                    if self.region_of[h] not in done_regions:
                        done_regions.add(self.region_of[h])
                        reach += self.regions[self.region_of[h]]
                    for x in reach:
                        if dist[x] < 0:
                            dist[x] = dist[h] + 1
                            nxt.append(x)
                frontier = nxt
            self._steps[source] = dist
        return self._steps[source]

    def gaze_target(self, statue: int, facing: int) -> int:
        """The land hex just before the first ocean hex, walking from `statue` towards `facing`."""
        dq, dr = DIRECTIONS[facing]
        q, r = self.coords[statue]
        while (q + dq, r + dr) in self.index:
            q, r = q + dq, r + dr
        return self.index[(q, r)]


@lru_cache(maxsize=64)
def _shape(coords: tuple[tuple[int, int], ...]) -> tuple[dict, list[list[int]], list[int], list[list[int]]]:
    """What depends on the land's shape only (shared by every terrain layout tried on it)."""
    idx = {c: i for i, c in enumerate(coords)}
    neigh = [[idx[(q + dq, r + dr)] for dq, dr in DIRECTIONS if (q + dq, r + dr) in idx] for q, r in coords]
    near2 = [[x for x in ring_coords(c, 2)] for c in coords]
    within2 = [[idx[x] for x in ring if x in idx] for ring in near2]
    # distance to the ocean: 1 or 2 when water lies that close, 3 stands for "more than 2"
    ocean = [1 if len(n) < 6 else (2 if len(w) < 18 else 3) for n, w in zip(neigh, within2)]
    return idx, neigh, ocean, within2


def mask_of(hexes) -> int:
    m = 0
    for h in hexes:
        m |= 1 << h
    return m


def bits(mask: int) -> tuple[int, ...]:
    """The hex indices set in `mask`, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


@lru_cache(maxsize=256)
def geometry(island: Island) -> Geometry:
    return Geometry(island)


# -- validation ---------------------------------------------------------------

def island_problems(island: Island) -> list[str]:
    """Every broken island rule (empty = valid); landmarks are checked by `landmark_problems`."""
    geo = geometry(island)
    problems = []
    if len(set(geo.coords)) != geo.n or geo.n < 30:
        problems.append("too few or duplicate hexes")
    if any(t not in TERRAINS for t in geo.terrain):
        problems.append("unknown terrain")
    seen, todo = {0}, [0]
    while todo:
        for x in geo.neigh[todo.pop()]:
            if x not in seen:
                seen.add(x)
                todo.append(x)
    if len(seen) != geo.n:
        problems.append("land not connected")
    if _enclosed_sea(geo):
        problems.append("enclosed sea")
    for i, t in enumerate(geo.terrain):
        if t == "beach" and not geo.coastal[i]:
            problems.append(f"beach {geo.coords[i]} not on the coast")
        if t == "lake" and geo.coastal[i]:
            problems.append(f"lake {geo.coords[i]} on the coast")
    for t in TERRAINS:
        if t not in geo.big:
            problems.append(f"no {t}")
        elif not geo.big_unique[t]:
            problems.append(f"no strictly largest {t} region")
    if not problems and find_landmarks(geo) is None:
        problems.append("landmarks cannot be placed")
    return problems


def _enclosed_sea(geo: Geometry) -> bool:
    qs = [q for q, _ in geo.coords]
    rs = [r for _, r in geo.coords]
    q0, q1, r0, r1 = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1
    water = {(q, r) for q in range(q0, q1 + 1) for r in range(r0, r1 + 1) if (q, r) not in geo.index}
    start = (q0, r0)
    seen, todo = {start}, [start]
    while todo:
        q, r = todo.pop()
        for dq, dr in DIRECTIONS:
            x = (q + dq, r + dr)
            if x in water and x not in seen:
                seen.add(x)
                todo.append(x)
    return len(seen) != len(water)


def landmark_problems(geo: Geometry, marks: Landmarks, facing: tuple[int, ...]) -> list[str]:
    problems = []
    groups = {"hut": marks.huts, "palm": marks.palms, "statue": marks.statues}
    every = [h for hs in groups.values() for h in hs]
    if any(not 0 <= h < geo.n for h in every):
        return ["landmark off the island"]
    if len(set(every)) != len(every):
        problems.append("two landmarks on one hex")
    for kind, hexes in groups.items():
        if len(hexes) != LANDMARK_COUNTS[kind]:
            problems.append(f"need {LANDMARK_COUNTS[kind]} {kind}s")
        for a in hexes:
            for b in hexes:
                if a < b and distance(geo.coords[a], geo.coords[b]) < LANDMARK_DISTANCE:
                    problems.append(f"{kind}s closer than {LANDMARK_DISTANCE}")
    if any(geo.coastal[h] for h in marks.statues):
        problems.append("statue on the coast")
    if len(facing) != len(marks.statues) or any(not 0 <= f < 6 for f in facing):
        problems.append("bad statue facing")
    return problems


def find_landmarks(geo: Geometry, rng: Rng | None = None, tries: int = 40) -> Landmarks | None:
    """A legal landmark placement: random from `rng`, or deterministic greedy without one."""
    order = list(range(geo.n))
    for _ in range(tries if rng is not None else 1):
        taken: set[int] = set()
        chosen: dict[str, list[int]] = {}
        for kind in ("statue", "hut", "palm"):
            pool = rng.shuffle(order) if rng is not None else order
            picks: list[int] = []
            for h in pool:
                if len(picks) == LANDMARK_COUNTS[kind]:
                    break
                if h in taken or (kind == "statue" and geo.coastal[h]):
                    continue
                if all(distance(geo.coords[h], geo.coords[p]) >= LANDMARK_DISTANCE for p in picks):
                    picks.append(h)
                    taken.add(h)
            chosen[kind] = picks
        if all(len(chosen[k]) == LANDMARK_COUNTS[k] for k in chosen):
            return Landmarks(tuple(sorted(chosen["hut"])), tuple(sorted(chosen["palm"])),
                             tuple(sorted(chosen["statue"])))
    return None
