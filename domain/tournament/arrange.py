"""Format-free pairing tools: table sizes, byes, grouping without repeats, seat order, game ids and seeds.

Table sizing (every format): as few byes as possible, then as few short
tables as possible. Tables hold `seats` players; a table of `seats - 1` is
allowed only when the kind accepts it (`min_seats <= seats - 1`, and in single
elimination only when it still eliminates someone); whoever cannot be seated
gets a bye. Full tables come first, so short tables and byes fall to the
bottom of the order.

Game ids and seeds are pure functions, so the service can create a round's
games from its `RoundPaired` event alone and anyone can re-derive them:
  game_id   = RFC 4122 UUIDv5(namespace = the tournament id, name = "<round>/<table>")
  game_seed = SHA-256(b"stela-tournament-game\\x00" || tournament seed || u64be(round) || u64be(t))
with t the 1-based table number, or 0 for every table of a duplicate round.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from itertools import islice

from domain.tournament.state import Entrant

Penalty = Callable[[Sequence[str]], int]


def table_sizes(players: int, seats: int, smallest: int) -> list[int]:
    """Sizes of the tables for `players` (full ones first); the players left over get byes."""
    short = seats - 1 if seats - 1 >= max(smallest, 2) else 0
    for byes in range(players + 1):
        seated = players - byes
        for shorts in range((seated // short if short else 0) + 1):
            rest = seated - shorts * short
            if rest % seats == 0:
                return [seats] * (rest // seats) + [short] * shorts
    return []


def pick_byes(standing_order: Sequence[str], entrants: dict[str, Entrant], count: int) -> list[str]:
    """`count` byes: to those with the fewest byes so far, the lowest in the standings among them."""
    from_bottom = list(reversed(standing_order))
    ranked = sorted(range(len(from_bottom)), key=lambda i: (entrants[from_bottom[i]].byes, i))
    return [from_bottom[i] for i in ranked[:count]]


def spread(seed_order: Sequence[str], sizes: list[int]) -> list[list[str]]:
    """Deal players to tables like seeds into pots: in snake order, so the best seeds sit apart."""
    tables: list[list[str]] = [[] for _ in sizes]
    order = list(range(len(sizes)))
    players = iter(seed_order)
    while any(len(t) < s for t, s in zip(tables, sizes)):
        for t in order:
            if len(tables[t]) < sizes[t]:
                tables[t].append(next(players))
        order.reverse()
    return tables


REPEAT = 1_000  # a repeat meeting outweighs any seat-order clash
FORBIDDEN = 10**15  # a forbidden pair outweighs any number of repeats
NEW_PAIR = 1_000_000  # with coverage, a pair that has met at all outweighs any spread of repeats
WINDOW = 256  # candidates a table looks at beyond its first player: tables stay within score groups
BUDGET = 200_000  # table costs evaluated by one repair: bounds a crowded round's time, the same on every replay


def penalty(entrants: dict[str, Entrant], coverage: bool = False,
            forbidden: frozenset[tuple[str, str]] = frozenset()) -> Penalty:
    """How bad a table is: a forbidden pair (`ForbidPairing`) first, then repeats, then a seat clash.

    A pair that met k times before costs REPEAT * (1 + 2 + ... + k) (convex, so repeats spread);
    with `coverage` (round robin) every pair that has met at all costs NEW_PAIR more, so pairs
    that never met come first. A table where everyone sat first in their last game costs 1:
    one of them would have to sit first again.
    """
    def cost(table: Sequence[str]) -> int:
        total = 0
        for i, a in enumerate(table):
            met = entrants[a].met
            for b in table[i + 1:]:
                if forbidden and (min(a, b), max(a, b)) in forbidden:
                    total += FORBIDDEN
                k = met.get(b, 0)
                if k:
                    total += REPEAT * k * (k + 1) // 2 + (NEW_PAIR if coverage else 0)
        return total + all(entrants[pid].last_seat == 0 for pid in table)
    return cost


def group(order: Sequence[str], sizes: list[int], cost: Penalty) -> list[list[str]]:
    """Fill tables top-down in `order`, each with the next players costing least; then repair by swaps."""
    remaining = list(order)
    tables: list[list[str]] = []
    for size in sizes:
        table = [remaining.pop(0)]
        while len(table) < size:
            best, best_cost = 0, None
            for i, candidate in enumerate(islice(remaining, WINDOW)):
                c = cost([*table, candidate])
                if best_cost is None or c < best_cost:
                    best, best_cost = i, c
                if c == 0:
                    break
            table.append(remaining.pop(best))
        tables.append(table)
    improve(tables, cost)
    return tables


def improve(tables: list[list[str]], cost: Penalty) -> None:
    """Swap players between tables while the total cost strictly falls, nearest tables first.

    A swap that removes no repeat (only a seat clash) is made between neighbouring tables only,
    so tables keep grouping players of equal score. The search stops after BUDGET evaluations.
    """
    costs = [cost(t) for t in tables]
    budget = [BUDGET]
    changed = True
    while changed and budget[0] > 0:
        changed = False
        for ti in range(len(tables)):
            if costs[ti] and _repair(tables, costs, ti, cost, budget):
                changed = True


def _repair(tables: list[list[str]], costs: list[int], ti: int, cost: Penalty, budget: list[int]) -> bool:
    here = tables[ti]
    for tj in _by_distance(ti, len(tables)):
        there = tables[tj]
        for a_pos, a in enumerate(here):
            for b_pos, b in enumerate(there):
                budget[0] -= 2
                if budget[0] < 0:
                    return False
                new_here = [*here[:a_pos], b, *here[a_pos + 1:]]
                new_there = [*there[:b_pos], a, *there[b_pos + 1:]]
                c_here, c_there = cost(new_here), cost(new_there)
                gain = costs[ti] + costs[tj] - c_here - c_there
                if gain >= REPEAT or (gain > 0 and abs(ti - tj) == 1):
                    tables[ti], tables[tj] = new_here, new_there
                    costs[ti], costs[tj] = c_here, c_there
                    return True
    return False


def _by_distance(ti: int, count: int) -> list[int]:
    out = []
    for d in range(1, count):
        out += [t for t in (ti + d, ti - d) if 0 <= t < count]
    return out


def seat_order(table: Sequence[str], entrants: dict[str, Entrant], draw: dict[str, int]) -> list[str]:
    """Seat 0 first: whoever sat first in their last game sits later; then those who sat latest so far
    sit earliest (`Entrant.balance`), then fewest first seats, then the draw."""
    def key(pid: str) -> tuple:
        e = entrants[pid]
        return (e.last_seat == 0, -e.balance(), e.firsts, draw.get(pid, 0), pid)
    return sorted(table, key=key)


def game_id(tournament_id: str, round_: int, table: int) -> str:
    """The id of table `table` of round `round_` (UUIDv5 computed by hand: the domain imports no uuid)."""
    namespace = bytes.fromhex(tournament_id.replace("-", ""))
    raw = bytearray(hashlib.sha1(namespace + f"{round_}/{table}".encode()).digest()[:16])
    raw[6] = (raw[6] & 0x0F) | 0x50
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def game_seed(seed: bytes, round_: int, table: int, duplicate: bool) -> bytes:
    """The secret seed of a table's game; every table of a duplicate round shares one."""
    t = 0 if duplicate else table
    return hashlib.sha256(b"stela-tournament-game\x00" + seed + round_.to_bytes(8, "big") + t.to_bytes(8, "big")).digest()


def is_uuid(text: str) -> bool:
    """Whether `text` is a UUID in its usual 8-4-4-4-12 hex form."""
    parts = text.split("-")
    if [len(p) for p in parts] != [8, 4, 4, 4, 12]:
        return False
    return all(c in "0123456789abcdefABCDEF" for c in "".join(parts))
