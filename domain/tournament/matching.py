"""Swiss pairing rules 2 and 4 for two-seat tables: a maximum-weight matching, checked by its cost.

The rule (tournaments created with `pairing = 2` or `4`; 4 is the default since it exists):

- Byes first, as in every format: to whoever has had the fewest byes, the lowest in the standings
  among them; each bye is worth the organiser's `bye_points` (default: a win, `seats - 1`).
- The others are paired so that the round's *cost* is least. A pair's cost is, in this order of
  precedence (each level outweighs every lower level summed over the whole round):
    0. forbidden: a pair the organiser forbade (`ForbidPairing`, teammates) costs 1, so it meets only
       when no pairing of the round keeps them apart;
    1. repeats: a pair that met k times before costs 1 + 2 + ... + k, so a repeat is made only
       when no pairing of the round avoids it, and then as few (and as spread) as possible;
    2. floats: the square of the score difference in half points, so players meet their own score
       group, and a player who must float does so by the smallest difference;
    3. seat clash: both sat first in their last game (one of them must sit first again) costs 1;
    4. shape: within a score group the top half meets the bottom half (the distance in standings
       places away from half the group, as in the Dutch system).
  The least-cost pairing is found exactly by a maximum-weight matching of maximum cardinality
  (rustworkx's Edmonds blossom algorithm, integer weights of 128 bits) over the players in standings
  order.
- Rule 2: fields beyond `BLOCK` players are matched block by block down the standings (`BLOCK`
  players at a time, plus whoever the block above left unpaired), which keeps a 1,000-player round
  to seconds; every block is matched exactly. A small last block may have to repeat a pair that a
  pairing of the whole field would avoid.
- Rule 4: the blocks are `size = max(BLOCK, 2D + 2)` players down the standings, the short tail
  merged into the block above (so no block is smaller than `size` and nothing is carried; a field
  smaller than `size` is one block), each matched exactly. D is the largest number of players of
  the round that one player of the round may not meet without cost (those met before, and the
  forbidden partners: `conflicts.degree`).

  Why it has no avoidable repeat or forbidden pair. Take any even set W of the round's players
  with |W| >= 2D + 2, and the graph on W whose edges are the pairs that are neither met nor
  forbidden. Each vertex has degree >= |W| - 1 - D >= |W| / 2, so by Dirac's theorem the graph
  has a Hamiltonian cycle (|W| >= 3; |W| = 2 means D = 0), and every other edge of that even cycle
  is a perfect matching: W can be paired without a repeat or a forbidden pair. A block's least-cost
  matching therefore has none (those two levels outweigh every lower one). When the field has at
  least 2D + 2 players every block does (each is at least `size` >= 2D + 2 players, and even, as
  `size`, BLOCK and the field are), so the round repeats nothing; when the field is smaller it is
  one block matched exactly, so it repeats only what every pairing of the round must, and as little
  as possible. Either way: zero avoidable repeats. Blocks are under 2 * `size` players, so a round
  stays in seconds while D is small (it grows only with the rounds played and forbidden pairs).

Tables are numbered by their better player's place. The audit (`verify`) does not ask for this
solver's exact output: it checks a recorded round against the constraints (everyone once, the
byes, game ids, seeds and seat order) and that its cost is no more than the rule's optimum.
"""

from __future__ import annotations

from collections.abc import Sequence

import rustworkx as rx

from domain.tournament.conflicts import conflicts, degree
from domain.tournament.state import TournamentState

BLOCK = 48  # players matched at once in a big field: a block is exact, a round of 10,000 stays under a second


def _levels(state: TournamentState, players: Sequence[str]) -> tuple[int, int, int, int]:
    """Multipliers that make each cost level outweigh every lower one summed over a round."""
    n = len(players)
    pairs = n // 2 + 1
    shape = n + 1  # the shape term of one pair is below n
    clash = pairs * shape + 1
    top = max((state.entrants[p].points for p in players), default=0.0)
    floats = (pairs * 1 + 1) * clash
    repeats = (pairs * int(2 * top + 1) ** 2 + 1) * floats
    most = state.round * (state.round + 1) // 2  # no pair has met more often than the rounds played
    forbid = (pairs * most + 1) * repeats
    return forbid, repeats, floats, clash


def pair_cost(state: TournamentState, a: str, b: str, place: dict[str, int], group: dict[float, int],
              levels: tuple[int, int, int, int]) -> int:
    """The cost of seating `a` against `b` (see the module docstring for its four levels)."""
    forbid, repeats, floats, clash = levels
    ea, eb = state.entrants[a], state.entrants[b]
    forbidden = bool(state.forbidden) and (min(a, b), max(a, b)) in state.forbidden_pairs()
    k = ea.met.get(b, 0)
    diff = round(2 * abs(ea.points - eb.points))
    half = group[ea.points] // 2 if ea.points == eb.points else 0
    shape = abs(abs(place[a] - place[b]) - half) if ea.points == eb.points else 0
    return (forbid * forbidden + repeats * (k * (k + 1) // 2) + floats * diff * diff
            + clash * (ea.last_seat == 0 and eb.last_seat == 0) + shape)


def round_cost(state: TournamentState, standing: Sequence[str], tables: Sequence[Sequence[str]]) -> int:
    """The cost of a whole round's `tables` (pairs) for the players of `standing` (standings order)."""
    place, group, levels = _context(state, standing)
    return sum(pair_cost(state, t[0], t[1], place, group, levels) for t in tables)


def _context(state: TournamentState, standing: Sequence[str]) -> tuple[dict[str, int], dict[float, int],
                                                                         tuple[int, int, int, int]]:
    place = {pid: i for i, pid in enumerate(standing)}
    group: dict[float, int] = {}
    for pid in standing:
        points = state.entrants[pid].points
        group[points] = group.get(points, 0) + 1
    return place, group, _levels(state, standing)


def match(state: TournamentState, standing: Sequence[str], rule: int = 2) -> list[list[str]]:
    """The least-cost pairs of `standing` (an even number of players, standings order) by pairing `rule`
    (2, or 4 and later), top boards first."""
    place, group, levels = _context(state, standing)
    pairs: list[list[str]] = []
    if rule >= 4:
        for block in blocks(len(standing), block_size(state, standing)):
            pairs += _match_block(state, list(standing[block]), place, group, levels)
    else:
        carried: list[str] = []
        for start in range(0, len(standing), BLOCK):
            chunk = carried + list(standing[start:start + BLOCK])
            matched = _match_block(state, chunk, place, group, levels)
            paired = {p for pair in matched for p in pair}
            carried = [p for p in chunk if p not in paired]
            pairs += matched
        assert not carried, "an even field pairs everyone"
    return sorted(([a, b] if place[a] < place[b] else [b, a] for a, b in pairs), key=lambda t: place[t[0]])


def block_size(state: TournamentState, standing: Sequence[str]) -> int:
    """Rule 4's block: `max(BLOCK, 2D + 2)` players, D the conflict degree of the round (module doc)."""
    return max(BLOCK, 2 * degree(conflicts(state, standing)) + 2)


def blocks(players: int, size: int) -> list[slice]:
    """`players` cut into blocks of `size` down the standings, the short tail merged into the block above."""
    count = max(1, players // size)
    return [slice(i * size, players if i == count - 1 else (i + 1) * size) for i in range(count)]


def _match_block(state: TournamentState, block: list[str], place: dict[str, int], group: dict[float, int],
                 levels: tuple[int, int, int, int]) -> list[tuple[str, str]]:
    """A maximum-cardinality, least-cost matching of `block` (all of it when even, all but one when odd)."""
    costs = [(i, j, pair_cost(state, a, block[j], place, group, levels))
             for i, a in enumerate(block) for j in range(i + 1, len(block))]
    ceiling = max((c for _, _, c in costs), default=0) + 1
    graph = rx.PyGraph()
    graph.add_nodes_from(block)
    graph.add_edges_from([(i, j, ceiling - c) for i, j, c in costs])
    matched = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return sorted((tuple(sorted((block[i], block[j]), key=place.__getitem__)) for i, j in matched),
                  key=lambda pair: place[pair[0]])
