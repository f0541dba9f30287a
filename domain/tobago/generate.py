"""A new island from the game's Rng (option `island = "generated"`).

The land grows as an Eden blob from the centre to about 100 hexes, enclosed
water is filled in, then terrains are laid: lakes inland, beaches along the
coast, rivers as short chains, and jungle, mountains and scrub spreading from
seeds over the rest. Each terrain gets one region grown first and largest, so
the big region is unique; candidates that still break a rule of the island
validator are rejected and drawn again from the same Rng (deterministic).
"""

from __future__ import annotations

from domain.kernel import Rng
from domain.tobago.island import DIRECTIONS, Island, geometry, island_problems


def generate_island(rng: Rng) -> Island:
    """A valid island (see `island_problems`), different for every Rng stream."""
    while True:
        land = _grow_land(rng, rng.between(96, 106))
        for _ in range(4):
            island = _lay_terrain(rng, land)
            if island is not None and not island_problems(island):
                return island


def _grow_land(rng: Rng, size: int) -> list[tuple[int, int]]:
    land = {(0, 0)}
    order = [(0, 0)]
    while len(land) < size:
        q, r = order[rng.below(len(order))]
        dq, dr = DIRECTIONS[rng.below(6)]
        c = (q + dq, r + dr)
        if c not in land:
            land.add(c)
            order.append(c)
    # fill enclosed water: every non-land hex in the box not reachable from outside becomes land
    qs, rs = [q for q, _ in land], [r for _, r in land]
    q0, q1, r0, r1 = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1
    seen, todo = {(q0, r0)}, [(q0, r0)]
    while todo:
        q, r = todo.pop()
        for dq, dr in DIRECTIONS:
            x = (q + dq, r + dr)
            if q0 <= x[0] <= q1 and r0 <= x[1] <= r1 and x not in land and x not in seen:
                seen.add(x)
                todo.append(x)
    holes = {(q, r) for q in range(q0, q1 + 1) for r in range(r0, r1 + 1)} - seen - land
    return sorted(land | holes)


def _lay_terrain(rng: Rng, land: list[tuple[int, int]]) -> Island | None:
    geo = geometry(tuple((q, r, "jungle") for q, r in land))
    n = geo.n
    terrain: list[str | None] = [None] * n
    inland = [i for i in range(n) if geo.ocean_dist[i] >= 2]
    coast = [i for i in range(n) if geo.coastal[i]]

    def grow(kind: str, pool: list[int], size: int, chain: bool = False) -> int:
        free = [h for h in pool if terrain[h] is None]
        if not free:
            return 0
        h = free[rng.below(len(free))]
        allowed = set(pool)
        terrain[h] = kind
        body, count = [h], 1
        while count < size:
            base = body[-1] if chain else body[rng.below(len(body))]
            options = [x for x in geo.neigh[base] if x in allowed and terrain[x] is None]
            if not options:
                if chain:
                    break
                options = [x for b in body for x in geo.neigh[b] if x in allowed and terrain[x] is None]
                if not options:
                    break
            x = options[rng.below(len(options))]
            terrain[x] = kind
            body.append(x)
            count += 1
        return count

    # one big region per terrain first (largest), then small ones
    if grow("lake", inland, 6) < 5 or grow("beach", coast, 6) < 5 or grow("river", list(range(n)), 5, True) < 4:
        return None
    for _ in range(2):
        grow("lake", inland, rng.between(1, 3))
        grow("beach", coast, rng.between(1, 3))
        grow("river", list(range(n)), rng.between(2, 3), True)
    every = list(range(n))
    for kind in ("jungle", "mountains", "scrub"):
        grow(kind, every, 9)
    for _ in range(3):
        for kind in ("jungle", "mountains", "scrub"):
            grow(kind, every, rng.between(1, 4))
    # the rest joins a random neighbouring land terrain (never creating a coastal lake or inland beach)
    rest = [i for i in range(n) if terrain[i] is None]
    while rest:
        left = []
        for i in rest:
            near = [terrain[x] for x in geo.neigh[i] if terrain[x] in ("jungle", "mountains", "scrub")]
            if near:
                terrain[i] = near[rng.below(len(near))]
            else:
                left.append(i)
        if len(left) == len(rest):
            for i in left:
                terrain[i] = "scrub"
            break
        rest = left
    return tuple((q, r, t) for (q, r), t in zip(geo.coords, terrain))  # type: ignore[misc]
