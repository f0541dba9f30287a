"""The next round of each format, a pure function of the tournament state.

Swiss: the active players in standings order; byes (when they cannot all be
seated) to those with the fewest byes, lowest in the standings first, each
worth the organiser's `bye_points` (rule 1, recorded before it existed:
(seats - 1) / 2). At two seats, pairing rule 2 (`matching`) pairs by an exact
least-cost matching in blocks of 48 down the standings, floats by the smallest
score difference; rules 4 and 5 size the blocks so that no repeat or
forbidden pair is ever made that a pairing of the round could avoid (proved in
`matching`). At 3-6 seats, rule 3 (`grouping`) groups rounds after the first by an exact least-cost
search within blocks of 8 tables (no avoidable repeat or forbidden pair within a block, then
standings order); rule 4 then swaps players between tables while a swap removes a conflicting pair
and adds none, which leaves none at all in a field large enough for its degree (proved in
`conflicts`), and in a smaller one searches the whole round for a grouping without any
(`conflicts.settle`); rule 5 (the default) adds, when that search runs out of budget without a proof,
a seeded tabu search (`reseat`). Otherwise (rule 1): round 1
deals the seeds to tables like pots (snake order) so the best seeds sit apart;
later rounds fill tables top-down in standings order (so tables group players
of equal score), each with the next players it has met least, then swap
players between the nearest tables while that removes repeat opponents.

Round robin: with 2 seats, the circle method over the seeded draw (every pair
meets exactly once; with an odd field each player has one bye; a withdrawn
player's opponent gets a bye). With 3-6 seats, each round groups the active
players so that pairs who met least sit together, until every pair of active
players has met (or after `rounds` rounds when it is set; at most
`round_robin_limit` rounds).

Single elimination: the players still in, in seed order (rating, then the
draw); the top seeds get the byes; tables are dealt like pots; the top
`advance` of each table (ties at the cut go to the better seed) go through.
When the survivors fit one table they play the final; the tournament ends
after it, or when fewer remain than a table the kind accepts.

Seat order at every table: whoever sat first in their last game sits later,
then players who have sat late so far sit early (`arrange.seat_order`); the
Swiss and round-robin grouping avoid, between neighbouring tables, a table
where everyone sat first last time.
"""

from __future__ import annotations

from typing import assert_never

from domain.tournament.arrange import (FORBIDDEN, game_id, game_seed, group, improve, penalty, pick_byes, seat_order, spread,
                                      table_sizes)
from domain.tournament.conflicts import conflicts, count, settled, untangle
from domain.tournament.events import PairedTable, RoundPaired
from domain.tournament.grouping import exact_group
from domain.tournament.matching import match, round_cost
from domain.tournament.reseat import reseat
from domain.tournament.standings import bye_points, order, seeding
from domain.tournament.state import TournamentState

Plan = tuple[list[list[str]], list[str]]


def smallest_table(seats: int, min_seats: int) -> int:
    """The smallest table the pairings ever make: `seats - 1` when the kind accepts it, else `seats`."""
    return seats - 1 if 2 <= min_seats <= seats - 1 else seats


def round_robin_limit(players: int, seats: int) -> int:
    """The most rounds a round robin of `players` at `seats`-seat tables may last."""
    least = -(-(players - 1) // (seats - 1))
    return 2 * least + 2


def next_round(state: TournamentState) -> RoundPaired | None:
    """The pairing of the round after the current one, or None when the tournament is over."""
    settings = state.settings
    number = state.round + 1
    manual = _manual(state, number) if settings.format == "swiss" else None
    match settings.format:
        case "swiss":
            plan = manual or _swiss(state, number)
        case "round_robin":
            plan = _round_robin(state, number)
        case "single_elimination":
            plan = _elimination(state, number)
        case _:
            assert_never(settings.format)
    if plan is None or not plan[0]:
        return None
    tables, byes = plan
    seed = bytes.fromhex(state.seed)
    draw = state.draw_index()
    paired = [PairedTable(table=t, game_id=game_id(settings.tournament_id, number, t),
                          players=list(players) if manual else seat_order(players, state.entrants, draw),
                          seed=game_seed(seed, number, t, settings.duplicate).hex())
              for t, players in enumerate(tables, start=1)]
    worth = 0.0 if settings.format == "single_elimination" else (
        settings.bye_points if settings.bye_points is not None else bye_points(settings.seats))
    return RoundPaired(round=number, tables=paired, byes=byes, bye_points=worth if byes else 0.0)


def equivalent(state: TournamentState, recorded: RoundPaired, derived: RoundPaired) -> bool:
    """Does `recorded` keep every constraint of the round `derived` pairs, at no more cost? (Rules 2 and 4 at
    two seats, where the audit checks a pairing's optimality rather than one solver's exact output.)"""
    s = state.settings
    if s.pairing < 2 or s.seats != 2 or s.format != "swiss" or _manual(state, recorded.round) is not None:
        return False  # the organiser's tables are the only right ones
    if (recorded.round, recorded.byes, recorded.bye_points) != (derived.round, derived.byes, derived.bye_points):
        return False
    seed, draw = bytes.fromhex(state.seed), state.draw_index()
    for t, table in enumerate(recorded.tables, start=1):
        if (table.table != t or table.game_id != game_id(s.tournament_id, recorded.round, t) or len(table.players) != 2
                or table.seed != game_seed(seed, recorded.round, t, s.duplicate).hex()
                or table.players != seat_order(table.players, state.entrants, draw)):
            return False
    seated = sorted(p for t in recorded.tables for p in t.players)
    if seated != sorted(p for t in derived.tables for p in t.players) or len(set(seated)) != len(seated):
        return False
    standing = [pid for pid in order(state, state.active_ids()) if pid not in set(derived.byes)]
    return (round_cost(state, standing, [t.players for t in recorded.tables])
            <= round_cost(state, standing, [t.players for t in derived.tables]))


def _seated(state: TournamentState, standing: list[str], sizes: list[int]) -> tuple[list[str], list[str]]:
    """Byes for whoever cannot be seated, and the others in `standing` order."""
    byes = pick_byes(standing, state.entrants, len(standing) - sum(sizes))
    taken = set(byes)
    return [pid for pid in standing if pid not in taken], byes


def _manual(state: TournamentState, number: int) -> Plan | None:
    """The organiser's pairings of round `number` (`SetPairings`), while the players to pair are still theirs."""
    m = state.manual
    if m is None or m.round != number or number > state.settings.rounds:
        return None
    listed = [pid for table in m.tables for pid in table] + list(m.byes)
    if sorted(listed) != sorted(state.active_ids()):
        return None
    return [list(t) for t in m.tables], list(m.byes)


def _swiss(state: TournamentState, number: int) -> Plan | None:
    settings = state.settings
    if number > settings.rounds:
        return None
    standing = order(state, state.active_ids())
    sizes = table_sizes(len(standing), settings.seats, settings.min_seats)
    if not sizes:
        return None
    players, byes = _seated(state, standing, sizes)
    if settings.pairing >= 2 and settings.seats == 2:
        return match(state, players, settings.pairing), byes
    cost = penalty(state.entrants, forbidden=state.forbidden_pairs())
    if number == 1:
        tables = spread(seeding(state, players), sizes)
        if state.forbidden:
            improve(tables, cost)
            if settings.pairing >= 3 and sum(map(cost, tables)) >= FORBIDDEN:
                tables = exact_group(players, sizes, cost)
    elif settings.pairing >= 3:
        tables = exact_group(players, sizes, cost)
    else:
        tables = group(players, sizes, cost)
    if settings.pairing >= 4:
        graph = conflicts(state, players)
        place = {pid: i for i, pid in enumerate(players)}
        tables = untangle(tables, graph, place)
        if count(tables, graph):
            found, final = settled(players, sizes, graph)
            if found is None and not final and settings.pairing >= 5:
                found = reseat(tables, graph, place)
            tables = found or tables
    return tables, byes


def _round_robin(state: TournamentState, number: int) -> Plan | None:
    settings = state.settings
    if settings.seats == 2:
        return _circle(state, number)
    active = [pid for pid in state.draw if state.entrants[pid].active]
    if settings.rounds and number > settings.rounds:
        return None
    if number > round_robin_limit(len(state.draw), settings.seats):
        return None
    entrants = state.entrants
    if not settings.rounds and all(entrants[a].met.get(b) for i, a in enumerate(active) for b in active[i + 1:]):
        return None
    sizes = table_sizes(len(active), settings.seats, settings.min_seats)
    if not sizes:
        return None
    players, byes = _seated(state, order(state, active), sizes)
    unmet = {a: sum(1 for b in active if b != a and not entrants[a].met.get(b)) for a in players}
    draw = state.draw_index()
    return group(sorted(players, key=lambda pid: (-unmet[pid], draw[pid])), sizes, penalty(state.entrants, coverage=True)), byes


def _circle(state: TournamentState, number: int) -> Plan | None:
    roster: list[str | None] = list(state.draw)
    if len(roster) % 2:
        roster.append(None)
    last = len(roster) - 1
    rounds = min(last, state.settings.rounds) if state.settings.rounds else last
    if number > rounds:
        return None
    shift = (number - 1) % last
    ring = [roster[0], *roster[1:][-shift:], *roster[1:][:-shift]] if shift else roster
    tables: list[list[str]] = []
    byes: list[str] = []
    for i in range(len(ring) // 2):
        pair = [pid for pid in (ring[i], ring[last - i]) if pid is not None and state.entrants[pid].active]
        if len(pair) == 2:
            tables.append(pair)
        else:
            byes += pair
    return tables, byes


def _elimination(state: TournamentState, number: int) -> Plan | None:
    settings = state.settings
    if state.rounds and len(state.rounds[-1].tables) == 1 and not state.rounds[-1].byes:
        return None  # that single table of every survivor was the final
    alive = seeding(state, [pid for pid in state.active_ids() if not state.entrants[pid].out])
    smallest = smallest_table(settings.seats, settings.min_seats)
    if len(alive) <= settings.seats:
        return ([alive], []) if len(alive) >= max(smallest, 2) else None
    sizes = table_sizes(len(alive), settings.seats, max(settings.min_seats, settings.advance + 1))
    byes = alive[:len(alive) - sum(sizes)]
    return spread(alive[len(byes):], sizes), byes
