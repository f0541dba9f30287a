"""Gold Mine's legal listing: the commands `rules.refusal` lets through, built directly.

`rules.legal` once offered every candidate command to `refusal`, which dispatched each by type,
asked `fits` for every (frontier cell, rotation) of the drawn tile, worked out the free chambers
again for each chamber of a bet and built a RuleViolation for every refusal. Here the facts those
refusals share are worked out once per listing and only the commands that pass are built, in the
order the candidates had: placements of the drawn tile (by frontier cell, then rotation);
at the start of a turn exploring from the stack, then with each hand tile (sorted), rolling, the
secret passage, staying; the action
phase's coin, challenges (bets, then bats, by target), coin passes and `EndTurn`; a bet's coin on
each free chamber (in board order), then leaving it. What a frontier cell asks of the tile put
there (`_needs`) is read from its neighbours once per board, and which rotations of a design meet
such needs is remembered (`_rotations`).
`decide` still asks `refusal` of every command sent, and tests/domain/goldmine/test_listing.py
keeps the old definition and compares the two over random games. The caller checks the seat is
one of `to_act` and lists the moves of a movement (`MOVE_PHASES`) itself: every destination, then
staying.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from domain.goldmine.board import DELTA, Cell, Cells, frontier, has_chamber, shape, spec
from domain.goldmine.commands import (Challenge, EndTurn, Explore, GoldmineCommand, LeaveCoin, PassCoins,
                                      PlaceCoin, PlaceTile, Roll, SecretPassage, Stay, TakeCoin)
from domain.goldmine.components import DESIGN_OF, ENTRANCE
from domain.goldmine.state import GoldmineState, cells, partner, position

# a frontier cell with, per touching side that constrains the tile, the opening the tile must have there
# (None: a path leading on from that side, the entrance's rule)
Needs = tuple[tuple[int, bool | None], ...]
Front = list[tuple[int, int, Needs]]
MOVE_PHASES = ("step", "roll_move", "secret", "bonus", "bats_move")


def listing(state: GoldmineState, seat: int) -> list[GoldmineCommand]:
    """Every command `seat`, one of `to_act`, may send now, outside the movements of MOVE_PHASES."""
    phase = state.phase
    if phase in ("scout", "place"):
        if state.drawn is None:
            return []
        design = DESIGN_OF[state.drawn]
        return [PlaceTile(x, y, r) for x, y, needs in _front(state)[0] for r in _rotations(design, needs)]
    if phase == "move":
        return _movements(state, seat)
    if phase == "bet_coin":
        taken = {(state.pirates[s].x, state.pirates[s].y) for s in (state.current, state.duelist)}
        return [*(PlaceCoin(c.x, c.y) for c in state.board
                  if has_chamber(c.tile) and not c.coin and (c.x, c.y) not in taken), LeaveCoin()]
    return _actions(state)


_last_front: tuple[Any, Front, tuple[Needs, ...]] = (None, [], ())
"""The last board asked (held, so its id stays its own), its frontier cells with their needs, and the
distinct needs among them: the tiles stay the same over the listings of a turn until one is placed.
Replaced whole, never changed in place: a listing in another thread reads one board's entry or another's,
never a mix."""


def _front(state: GoldmineState) -> tuple[Front, tuple[Needs, ...]]:
    """Each frontier cell (sorted) with what its placed neighbours ask of a tile put there (see `fits`),
    and the distinct needs."""
    global _last_front
    last, front, needs = _last_front
    if last is not state.board:
        if not _same_tiles(last, state.board):
            board = cells(state)
            front = [(x, y, _needs(board, x, y)) for x, y in frontier(board)]
            needs = tuple(set(n for _, _, n in front))
        _last_front = (state.board, front, needs)
    return front, needs


def _same_tiles(one: tuple[Cell, ...] | None, other: tuple[Cell, ...]) -> bool:
    """Whether two boards hold the same tiles the same way (their coins aside: taking one makes a new board)."""
    return one is not None and len(one) == len(other) and all(
        a is b or (a.x == b.x and a.y == b.y and a.tile == b.tile and a.rotation == b.rotation)
        for a, b in zip(one, other))


def _needs(board: Cells, x: int, y: int) -> Needs:
    out: list[tuple[int, bool | None]] = []
    for side, (dx, dy) in enumerate(DELTA):
        other = board.get((x + dx, y + dy))
        if other is None:
            continue
        if other.tile == ENTRANCE:
            out.append((side, None))
            continue
        other_wild, other_open, _ = shape(DESIGN_OF[other.tile], other.rotation)
        if not other_wild:
            out.append((side, other_open[(side + 2) % 4]))
    return tuple(out)


@cache
def _rotations(design: str, needs: Needs) -> tuple[int, ...]:
    """The rotations in which a tile of `design` fits a frontier cell asking `needs` (it touches the cave)."""
    out = []
    for r in range(4):
        wild, open_sides, leads = shape(design, r)
        if wild or all(leads[side] if want is None else open_sides[side] == want for side, want in needs):
            out.append(r)
    return tuple(out)


def _movements(state: GoldmineState, seat: int) -> list[GoldmineCommand]:
    """Exploring (from the stack, or with a hand tile that fits), rolling, the secret passage, staying."""
    keys = _front(state)[1]
    known: dict[str, bool] = {}

    def fits(tile: str) -> bool:  # somewhere on the frontier, in some rotation
        design = DESIGN_OF[tile]
        if design not in known:
            known[design] = any(_rotations(design, needs) for needs in keys)
        return known[design]

    out: list[GoldmineCommand] = [Explore()] if any(fits(t) for t in state.hidden.stack) else []
    hand = sorted(state.hands[seat]) if state.hands else []
    out += [Explore(t) for t in hand if fits(t)]
    out.append(Roll())
    x, y, path = position(state.pirates[state.current])
    if spec(cells(state)[(x, y)], path).secret:
        out.append(SecretPassage())
    out.append(Stay())
    return out


def _actions(state: GoldmineState) -> list[GoldmineCommand]:
    """The action phase (`action`, `after_bonus`, `done`) of the player in turn."""
    phase, seat = state.phase, state.current
    me = state.pirates[seat]
    out: list[GoldmineCommand] = []
    if phase in ("action", "after_bonus"):
        cell = cells(state)[(me.x, me.y)]
        if has_chamber(cell.tile) and cell.coin:
            out.append(TakeCoin())
    if phase == "action":
        ally = partner(state, seat)
        rivals = [(t, state.pirates[t]) for t in range(state.seats) if t != seat and t != ally]
        if me.bets >= 1 and me.coins >= 1:
            out += [Challenge("bet", t) for t, them in rivals if (me.x, me.y) == (them.x, them.y) and them.coins >= 1]
        if me.bats >= 1:
            out += [Challenge("bats", t) for t, _ in rivals]
        if ally is not None and position(state.pirates[ally]) == position(me):
            out += [PassCoins(n) for n in range(1, me.coins + 1)]
    out.append(EndTurn())
    return out
