"""Who may not meet whom in a round, and pairing rule 4's swap repair for tables of 3-6 seats.

Two players of a round *conflict* when they have met before or the organiser forbade them to
meet (`ForbidPairing`); the *degree* D of a round is the most players of the round any one of
them conflicts with. Rule 4 at two seats sizes its blocks by D (`matching`); at 3-6 seats it
takes rule 3's grouping (`grouping.exact_group`) and then `untangle`s it:

While a table X seats a conflicting pair, take a member p of X who conflicts with someone at X,
and look for a table Y and a player q at Y such that p conflicts with nobody at Y but q, and q
with nobody at X but p; swap p and q. The swap removes at least one conflicting pair (p's at X)
and adds none (p's new table mates and q's are free of conflict with them), so the number of
conflicting pairs strictly falls and the repair ends. Every weighted repeat or forbidden cost
falls with it, so the result never costs more than rule 3's grouping (a seat clash aside).
Swaps are chosen deterministically: the first table holding a conflict (top boards first), then
the nearest table Y in standings order, then the q placed closest to p (then the better q, then
the better p): floats stay small, and the audit re-derives the same round.

When a swap must exist (`guaranteed`). Say a conflict p–a remains at X; there are T tables, the
largest of k seats, the smallest of s. A table Y != X fails only if (i) p conflicts with one of
its players, or (ii) every player at Y conflicts with someone in X - p. p conflicts with at most
D players, a among them, so (i) rules out at most D - 1 tables. The k - 1 or fewer players of
X - p conflict with at most (k - 1)D players, p among them, so at most (k - 1)D - 1 outside X,
and a table failing (ii) holds at least s of them: (ii) rules out at most floor(((k - 1)D - 1) / s)
tables. Any other table Y has a q free of conflict with X - p, and p is free of conflict with all
of Y. So while T >= D + 1 + floor(((k - 1)D - 1) / s) a swap always exists, and the round ends
with no conflict at all: no repeat and no forbidden pair. With full tables that is a field of
about (2k - 1)D + k players (for instance 4 seats after 5 rounds, D <= 15: 27 tables, 108
players). A smaller field rests on search: rule 3's bounded exact search (exact within a block of
8 tables and 50,000 expansions) followed by this repair, which can only improve it, and, when a
conflict is still left, `settle`: a depth-first search for a grouping of the whole round with no
conflict at all (the unseated player with the most conflicts among the unseated opens the next
table, the better placed on a tie; full tables first; the others tried in standings order, so tables
keep to nearby places as far as they can), remembering every (players left, tables left) that has no
solution; its tables are then numbered by their best player's place. It either
finds one, which then replaces the grouping (it has no repeat or forbidden pair, so it outweighs
anything rule 3 can save on seat clashes), or proves there is none, or spends `SEARCH` candidates
first (counted, so every replay stops at the same point) and leaves the repaired grouping; it
looks at rounds of up to `SETTLE_TABLES` tables (beyond, a field is past the bound for any
realistic degree). So a round of up to 128 tables keeps an avoidable repeat only when that search
runs out of its budget.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from domain.tournament.state import TournamentState

Conflicts = dict[str, frozenset[str]]
SEARCH = 200_000  # candidates `settle` tries in one round: bounds a crowded round's time, the same on every replay
SETTLE_TABLES = 128  # `settle` looks at rounds of up to this many tables (its depth grows with them)


def conflicts(state: TournamentState, players: Sequence[str]) -> Conflicts:
    """For each of `players`, the others of `players` met before or forbidden to meet."""
    field = set(players)
    forbidden: dict[str, set[str]] = {}
    for a, b in state.forbidden:
        if a in field and b in field:
            forbidden.setdefault(a, set()).add(b)
            forbidden.setdefault(b, set()).add(a)
    entrants = state.entrants
    return {p: frozenset({q for q, k in entrants[p].met.items() if k and q in field and q != p}
                         | forbidden.get(p, set())) for p in players}


def degree(graph: Conflicts) -> int:
    """D: the most players any one player conflicts with."""
    return max(map(len, graph.values()), default=0)


def guaranteed(sizes: Sequence[int], d: int) -> bool:
    """Does `untangle` always end without a conflict for tables of `sizes` at degree `d`? (module doc)"""
    if d == 0:
        return True
    if not sizes:
        return False
    k, s = max(sizes), min(sizes)
    return len(sizes) >= d + 1 + ((k - 1) * d - 1) // s


def count(tables: Sequence[Sequence[str]], graph: Conflicts) -> int:
    """The conflicting pairs seated together."""
    return sum(1 for t in tables for i, a in enumerate(t) for b in t[i + 1:] if b in graph[a])


def untangle(tables: Sequence[Sequence[str]], graph: Conflicts, place: dict[str, int]) -> list[list[str]]:
    """`tables` after rule 4's swaps (module doc); `place` ranks the players in standings order."""
    out = [list(t) for t in tables]
    dirty = [i for i, t in enumerate(out) if _tangled(t, graph)]
    while dirty:
        x = dirty[0]
        swap = _swap(out, x, graph, place)
        if swap is None:
            dirty.pop(0)  # nothing helps this table now (only below the `guaranteed` size)
            continue
        y, p, q = swap
        out[x][out[x].index(p)] = q
        out[y][out[y].index(q)] = p
        dirty = [i for i, t in enumerate(out) if _tangled(t, graph)]
    return out


def settle(players: Sequence[str], sizes: Sequence[int], graph: Conflicts,
           nodes: int = SEARCH) -> list[list[str]] | None:
    """A grouping of `players` (standings order) into tables of `sizes` with no conflict, top boards first, or
    None when there is none, the round has more than `SETTLE_TABLES` tables, or the search spends `nodes` first."""
    return settled(players, sizes, graph, nodes)[0]


def settled(players: Sequence[str], sizes: Sequence[int], graph: Conflicts,
            nodes: int = SEARCH) -> tuple[list[list[str]] | None, bool]:
    """`settle`'s answer, and whether it is final: a grouping found, or none proved to exist (not cut short
    by the budget or the round's size)."""
    if len(sizes) > SETTLE_TABLES:
        return None, False
    failed: set[tuple[frozenset[str], tuple[int, ...]]] = set()
    budget = [nodes]

    def split(left: list[str], sizes: tuple[int, ...]) -> list[list[str]] | None:
        """One stack frame per table: the round's tables bound the depth."""
        if not sizes:
            return []
        key = (frozenset(left), sizes)
        if key in failed:
            return None
        crowded = set(left)  # the hardest player to seat opens the next table (ties: the better placed)
        opener = max(left, key=lambda p: len(graph[p] & crowded))
        left = [opener, *(p for p in left if p != opener)]
        for size in sorted(set(sizes), reverse=True):  # full tables first
            others = list(sizes)
            others.remove(size)
            for table in _tables(left, size, graph, budget):
                rest = split([p for p in left if p not in table], tuple(others))
                if rest is not None:
                    return [table, *rest]
                if budget[0] < 0:
                    return None
            if budget[0] < 0:
                return None
        failed.add(key)
        return None

    found = split(list(players), tuple(sorted(sizes, reverse=True)))
    if found is None:
        return None, budget[0] >= 0
    place = {p: i for i, p in enumerate(players)}
    return sorted((sorted(t, key=place.__getitem__) for t in found), key=lambda t: place[t[0]]), True  # top boards first


def _tables(left: list[str], size: int, graph: Conflicts, budget: list[int]) -> Iterator[list[str]]:
    """Every table of `size` opened by `left[0]` with no conflict, the others from `left` in lexicographic
    order of their places; each candidate tried spends one unit of `budget`."""
    candidates, need = left[1:], size - 1
    chosen: list[int] = []
    i = 0
    while True:
        if len(chosen) == need:
            yield [left[0], *(candidates[j] for j in chosen)]
        if len(chosen) == need or i > len(candidates) - (need - len(chosen)):
            if not chosen:
                return
            i = chosen.pop() + 1  # backtrack: the next candidate in place of the last one chosen
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return
        c = candidates[i]
        if c not in graph[left[0]] and graph[c].isdisjoint(candidates[j] for j in chosen):
            chosen.append(i)
        i += 1


def _tangled(table: list[str], graph: Conflicts) -> bool:
    return any(b in graph[a] for i, a in enumerate(table) for b in table[i + 1:])


def _swap(tables: list[list[str]], x: int, graph: Conflicts, place: dict[str, int]) -> tuple[int, str, str] | None:
    """The swap for table `x`: (table y, p at x, q at y), nearest table first, then the closest places."""
    here = tables[x]
    movers = [p for p in here if graph[p] & set(here)]
    for distance in range(1, len(tables)):
        best: tuple[tuple[int, int, int], tuple[int, str, str]] | None = None
        for y in (x - distance, x + distance):
            if not 0 <= y < len(tables):
                continue
            there = tables[y]
            for p in movers:
                rest = [a for a in here if a != p]
                clashes = [b for b in there if b in graph[p]]
                if len(clashes) > 1:
                    continue
                for q in clashes or there:
                    if graph[q].isdisjoint(rest):
                        key = (abs(place[p] - place[q]), place[q], place[p])
                        if best is None or key < best[0]:
                            best = (key, (y, p, q))
        if best is not None:
            return best[1]
    return None
