"""Swiss pairing rule 3 for tables of 3-6 seats: an exact least-cost grouping, block by block.

The cost of a grouping is the sum over its tables of `arrange.penalty`: a forbidden pair
(`ForbidPairing`) outweighs everything, then each pair that met k times before costs
REPEAT * (1 + ... + k), then a table where everyone sat first last time costs 1. Rule 3 takes a
grouping of least cost, so a repeat is made only when no grouping of the block avoids it (and then
as few as possible).

Rule 1's grouping of the whole field is taken when it costs nothing. Otherwise each block's search
starts from rule 1's grouping of the block (`arrange.group`: fill top-down in standings
order, so tables hold players of equal score, then swap between tables), kept when it costs nothing
(nothing is cheaper). Otherwise a depth-first branch and bound looks for a cheaper grouping, tables
filled top-down (the best unseated player opens the next table, full tables tried first, the others
chosen in standings order): a partial grouping whose cost already reaches the best found is cut (a
table being filled counts its cost less 1, as its seat clash may still go), and a grouping of cost 0
ends it. The result is a least-cost grouping of the block unless the search runs out of `NODES`
expansions, when it keeps the cheapest found (never worse than rule 1's); all of it is deterministic,
so the audit re-derives the same round. The blocks' grouping is taken when it costs less than rule 1's
of the whole field, which is kept otherwise. A field beyond `BLOCK_TABLES` tables is grouped block by block down the standings (whole
tables, `BLOCK_TABLES` at a time), which bounds a 1,000-player round.

Rule 4 (`conflicts`) takes this grouping and then swaps players between tables while a swap removes a
repeat or forbidden pair and adds none: that can only lower the cost, and past a bound on the field's
size it leaves no conflict, which blocks alone cannot promise.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.tournament.arrange import Penalty, group

BLOCK_TABLES = 8  # tables grouped at once: every block is searched exactly (within NODES)
NODES = 50_000  # table members tried by one block's search: bounds a round's time, the same on every replay


def exact_group(order: Sequence[str], sizes: list[int], cost: Penalty, block: int = 0,
                nodes: int = NODES) -> list[list[str]]:
    """Tables of `sizes` (in that order) for the players of `order` (standings order), least cost first;
    `block` players at once (default `BLOCK_TABLES` tables' worth)."""
    whole = group(order, sizes, cost)  # rule 1 over the whole field
    whole_cost = sum(map(cost, whole))
    if whole_cost == 0:
        return whole
    block = block or BLOCK_TABLES * max(sizes, default=2)
    tables: list[list[str]] = []
    start = 0
    i = 0
    while i < len(sizes):
        chunk: list[int] = []
        while i < len(sizes) and (not chunk or sum(chunk) + sizes[i] <= block):
            chunk.append(sizes[i])
            i += 1
        players = list(order[start:start + sum(chunk)])
        start += sum(chunk)
        tables += _search(players, chunk, cost, nodes)
    return tables if sum(map(cost, tables)) < whole_cost else whole


def _search(players: list[str], sizes: list[int], cost: Penalty, nodes: int) -> list[list[str]]:
    """A least-cost grouping of `players` into tables of `sizes`, the first in standings order (module doc)."""
    incumbent = group(players, sizes, cost)  # rule 1's fill-and-swap: the bound the search starts from
    best: list[list[list[str]]] = [incumbent]
    bound = [sum(map(cost, incumbent))]
    budget = [nodes]

    def tables(free: list[str], left: list[int], done: list[list[str]], spent: int) -> bool:
        """True when the search may stop (a grouping of cost 0, or no budget left)."""
        if not left:
            best[0], bound[0] = [list(x) for x in done], spent
            return spent == 0
        for size in sorted(set(left), reverse=True):  # full tables first
            rest = list(left)
            rest.remove(size)
            if members(free[1:], [free[0]], size, rest, done, spent, 0):
                return True
        return False

    def members(free: list[str], table: list[str], size: int, left: list[int], done: list[list[str]], spent: int,
                skip: int) -> bool:
        """`spent`: the cost of the tables in `done`; `table` is the one being filled up to `size`."""
        if len(table) == size:
            return tables(free, left, [*done, table], spent + cost(table))
        need = size - len(table)
        for k in range(skip, len(free) - need + 1):
            budget[0] -= 1
            if budget[0] < 0:
                return True
            candidate = [*table, free[k]]
            # a table's pairs only add to its cost; its seat clash (at most 1) may still go: a lower bound
            if spent + max(0, cost(candidate) - 1) >= bound[0]:
                continue
            if members(free[:k] + free[k + 1:], candidate, size, left, done, spent, k):
                return True
        return False

    if bound[0] > 0:  # rule 1 left a repeat, a forbidden pair or a clash: look for better
        tables(players, sorted(sizes, reverse=True), [], 0)
    return best[0]
