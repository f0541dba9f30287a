"""Pairing rule 5 at 3-6 seats: when rule 4's whole-round search runs out of budget, a tabu search.

Rule 4 (`conflicts`) leaves a conflicting pair in a round below its proved bound only when
`conflicts.settle`, a depth-first search, spends its budget before it either finds a grouping
without conflict or proves there is none. Fields of 48-60 players at six seats after four or five
rounds are where that happens: such a round can need millions of candidates in depth-first order,
where a local search finds a grouping in a fraction of a second. Rule 5 then runs `reseat`, a tabu search over swaps
(min-conflicts with tabu tenure, as in Glover's tabu search for graph colouring):

- it starts from the grouping rule 4 left (rule 3's least-cost grouping after the swap repair), so
  tables begin as players of nearby places;
- each step weighs every swap of a player seated with someone they conflict with and a player of
  another table, and makes one that lowers the number of conflicting pairs most (or raises it least;
  ties drawn by `kernel.Rng` seeded with the round's players, so every replay draws the same); a
  player may not go back to a table they left within the last 5 to 10 steps, unless that beats the
  best seen; after 300 steps without a new best, three swaps drawn at random shake the grouping
  (Dotú and Van Hentenryck's local search for the social golfer problem works this way);
- a run that has weighed `RESTART` swaps (about 0.3 s) without success starts again from rule 4's
  grouping with fresh draws (such runs' lengths are heavy-tailed: measured, one seed needed 10 s where
  others needed 0.1-1 s), until the first grouping with no conflicting pair or `LOOKS` swaps in all;
- then, without ever seating a conflict, it swaps players between tables while a swap narrows the
  tables' spans of places (the sum over tables of the worst place minus the best), so players meet
  others of their own score as far as the round allows.

Rule 5 takes the result only when it has no conflicting pair at all; otherwise it keeps rule 4's
(whose cost is least by rule 3's weights). Everything is a pure function of the round: the audit
re-derives the same tables. The search is a heuristic for a problem that is hard in general, so it
can miss a grouping that exists; measured on six-seat fields of 36-60 over 5-6 rounds (340 rounds,
docs/tournaments.md), every round it left with a conflict was one `conflicts.settled` proves forced.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from domain.kernel import Rng
from domain.tournament.conflicts import Conflicts

LOOKS = 30_000_000  # swaps weighed in one round at most (about 3 s): bounds its time, the same on every replay
RESTART = 3_000_000  # swaps weighed by one run before the search starts again from rule 4's grouping, drawing anew
TENURE = 5  # a player may not go back to a table they left for 5 to 10 steps
PATIENCE = 300  # steps without a new best before a shake
SHAKE = 3  # random swaps in a shake
POLISH = 40  # passes of the place-narrowing swaps at most
NARROW = 2_000_000  # pairs of players those passes look at, at most (a large field's passes stop early)


def reseat(tables: Sequence[Sequence[str]], graph: Conflicts, place: dict[str, int],
           looks: int = LOOKS) -> list[list[str]] | None:
    """Tables of the same sizes as `tables`, with no two conflicting players together, top boards first; or None
    when the search finds none within `looks` weighed swaps (module doc). `place` ranks the players in standings
    order."""
    names = sorted((p for t in tables for p in t), key=place.__getitem__)
    index = {p: i for i, p in enumerate(names)}
    n, width = len(names), len(tables)
    adjacent = [frozenset(index[q] for q in graph[p] if q in index) for p in names]
    at = [0] * n
    for t, table in enumerate(tables):
        for p in table:
            at[index[p]] = t
    seed = hashlib.sha256("\x00".join(names).encode()).digest()  # the round's players: the same draws on every replay
    for attempt in range(max(1, looks // RESTART)):  # a run's length is heavy-tailed: fresh starts cut the tail
        best = _search(at, adjacent, width, min(looks, RESTART), Rng(seed, attempt))
        if best is not None:
            break
    else:
        return None
    _narrow(best, adjacent, width)
    seated: list[list[str]] = [[] for _ in range(width)]
    for i, t in enumerate(best):
        seated[t].append(names[i])  # names are in place order, so each table is too
    return sorted(seated, key=lambda t: place[t[0]])


def _search(start: list[int], adjacent: list[frozenset[int]], width: int, looks: int,
            rng: Rng) -> list[int] | None:
    """The tabu search: a seating (player -> table) with no conflict, or None once `looks` swaps are weighed."""
    at = list(start)
    n = len(at)
    clash = [[0] * width for _ in range(n)]  # clash[p][t]: players at table t that p conflicts with
    for p in range(n):
        for q in adjacent[p]:
            clash[p][at[q]] += 1
    total = sum(clash[p][at[p]] for p in range(n)) // 2
    until = [[0] * width for _ in range(n)]  # until[p][t]: the step before which p may not return to t
    best, stuck, step = total, 0, 0
    while total and looks > 0:
        step += 1
        least, chosen = 0, []  # (the first weighed swap always replaces this empty choice)
        for p in (p for p in range(n) if clash[p][at[p]]):
            tp, here = at[p], clash[p][at[p]]
            looks -= n
            for q in range(n):
                tq = at[q]
                if tq == tp:
                    continue
                met = 1 if q in adjacent[p] else 0
                delta = clash[p][tq] - met + clash[q][tp] - met - here - clash[q][tq]
                if (until[p][tq] > step or until[q][tp] > step) and total + delta >= best:
                    continue  # tabu, unless it beats the best seen since the last shake (aspiration)
                if not chosen or delta < least:
                    least, chosen = delta, [(p, q)]
                elif delta == least:
                    chosen.append((p, q))
        if not chosen:
            continue
        p, q = chosen[rng.below(len(chosen))]
        tp, tq = at[p], at[q]
        total += least
        until[p][tp] = step + TENURE + rng.below(TENURE + 1)
        until[q][tq] = step + TENURE + rng.below(TENURE + 1)
        _swap(p, q, at, clash, adjacent)
        if total < best:
            best, stuck = total, 0
            continue
        stuck += 1
        if stuck > PATIENCE:  # no progress for a while: shake, with a few swaps drawn at random
            for _ in range(SHAKE):
                p, q = rng.below(n), rng.below(n)
                if at[p] != at[q]:
                    _swap(p, q, at, clash, adjacent)
            total = sum(clash[p][at[p]] for p in range(n)) // 2
            best, stuck = total, 0
    return at if total == 0 else None


def _swap(p: int, q: int, at: list[int], clash: list[list[int]], adjacent: list[frozenset[int]]) -> None:
    tp, tq = at[p], at[q]
    _move(p, tp, tq, at, clash, adjacent)
    _move(q, tq, tp, at, clash, adjacent)


def _move(p: int, frm: int, to: int, at: list[int], clash: list[list[int]], adjacent: list[frozenset[int]]) -> None:
    at[p] = to
    for r in adjacent[p]:
        clash[r][frm] -= 1
        clash[r][to] += 1


def _narrow(at: list[int], adjacent: list[frozenset[int]], width: int) -> None:
    """Swaps that keep every table free of conflict and narrow the sum of the tables' spans of places
    (players are numbered in place order), lowest-placed first, until none helps, `POLISH` passes are made or
    `NARROW` pairs looked at."""
    members: list[list[int]] = [[] for _ in range(width)]
    for p, t in enumerate(at):
        members[t].append(p)

    def span(table: list[int]) -> int:
        return max(table) - min(table)

    budget = NARROW
    for _ in range(POLISH):
        improved = False
        for p in range(len(at)):
            budget -= len(at) - p - 1
            if budget < 0:
                return
            for q in range(p + 1, len(at)):
                tp, tq = at[p], at[q]
                if tp == tq:
                    continue
                into_q = [r for r in members[tq] if r != q]
                into_p = [r for r in members[tp] if r != p]
                if adjacent[p].intersection(into_q) or adjacent[q].intersection(into_p):
                    continue
                before = span(members[tp]) + span(members[tq])
                after = span([*into_p, q]) + span([*into_q, p])
                if after < before:
                    members[tp], members[tq] = [*into_p, q], [*into_q, p]
                    at[p], at[q] = tq, tp
                    improved = True
        if not improved:
            return
