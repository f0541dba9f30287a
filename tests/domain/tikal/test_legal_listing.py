"""`legal` lists exactly what the refusal predicate lets through, in the reference order.

The listing is generated directly (domain/tikal/rules.py, rules_actions.py, rules_place.py) for
speed; its definition is kept here: every candidate of the generous generator below (moves to the
tiles within the AP left by `cheapest`, the paths' definition), filtered by
the predicate `decide` uses (`rules.refusal`; for tile placement `placement_refusal` with the
"any placement keeps the rules proper" fact computed once, as `placement_refusal` would compute
it itself). Random games in both variants and both editions, 2 to 4 seats, compare the two at
every state reached and at variations of it (`_variants`), check that every listed command is
decided without refusal and that a sample of the unlisted candidates is refused, and check that
the games met every kind of command and of refusal so the comparison was not vacuous.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import itertools
from collections import Counter
from typing import Any, Optional

import msgspec
import pytest

from domain.kernel import Rng, RuleViolation
from domain.simulate import start_table
from domain.table import Table
from domain.tikal import rules
from domain.tikal.commands import (Bid, BuildCamp, CampMove, DigTreasure, EndTurn, EnterPiece, MovePiece, Pass,
                                   PlaceGuard, PlaceTile, TakeTile, TikalCommand, TradeTreasure, UncoverLevel)
from domain.tikal.components import ACTION_POINTS, BOARD_SPACES, CAMPS, GUARDS, TILES, TREASURE_KINDS
from domain.tikal.game import GAME
from domain.tikal.rules_place import is_forced, placement_refusal, strict_placements
from domain.tikal.state import (LEADER, Mark, Space, TikalState, acted_here, is_camp_of, named_walkers, neighbour,
                                pieces, pieces_on, reach, walker)
from tests.budget import sized

TABLE = Table(GAME)
GAMES = sized(1, 3)  # per option set and seat count (tests/budget.py): the first checked at variations of each state too
OPTIONS = [{}, {"variant": "auction"}, {"edition": "classic"}, {"variant": "auction", "edition": "classic"}]
# one tile of each kind, to try every kind of tile in hand on the boards the games reach
HANDS = [min(t for t, spec in TILES.items() if spec.kind == kind) for kind in sorted({s.kind for s in TILES.values()})]


# -- the reference: generous candidates filtered by the refusal predicate -------------------------

def cheapest(board: tuple[Space, ...], start: tuple[int, int]) -> dict[tuple[int, int], int]:
    """The cheapest stone cost from `start` to every tile a path reaches (start excluded), by
    definition: a step between neighbouring tiles costs the stones on both sides of their edge,
    none (no step) when either is a volcano or there are no stones."""
    return _cheapest(tuple((s.q, s.r, s.stones, s.kind) for s in board), start)


@functools.lru_cache(maxsize=4096)
def _cheapest(tiles: tuple[tuple[int, int, tuple[int, ...], str], ...], start: tuple[int, int]) -> dict:
    spaces = {(q, r): (stones, kind) for q, r, stones, kind in tiles}

    def step(here: tuple[int, int], edge: int) -> int:
        (stones, kind), there = spaces[here], spaces.get(neighbour(*here, edge))
        return 0 if there is None or "volcano" in (kind, there[1]) else stones[edge] + there[0][(edge + 3) % 6]
    best, heap = {start: 0}, [(0, start)]
    while heap:
        cost, here = heapq.heappop(heap)
        if cost == best[here]:
            for edge in range(6):
                there, n = neighbour(*here, edge), step(here, edge)
                if n and cost + n < best.get(there, 1 << 30):
                    best[there] = cost + n
                    heapq.heappush(heap, (cost + n, there))
    del best[start]
    return best


def _move_forms(state: TikalState, seat: int, space: Space) -> list[tuple[bool, Optional[int]]]:
    """(leader, explorer) for each distinct piece of `seat` a move may walk off `space`."""
    forms: list[tuple[bool, Optional[int]]] = [(True, None)] if space.leaders[seat] else []
    if walker(state, seat, space) is not None:
        forms.append((False, None))
    return forms + [(False, p) for p in named_walkers(state, seat, space)]


def _act_forms(state: TikalState, seat: int, space: Space) -> list[tuple[bool, Optional[int]]]:
    """(leader, explorer) naming each piece of `seat` that may act on `space`: the leader, then every
    explorer there by id."""
    done = acted_here(state, space.q, space.r)
    forms: list[tuple[bool, Optional[int]]] = [(True, None)] if space.leaders[seat] and LEADER not in done else []
    return forms + [(False, p) for p in space.ids[seat] if p not in done]


def _action_candidates(state: TikalState, seat: int) -> list[TikalCommand]:
    candidates: list[TikalCommand] = [EndTurn()]
    camps = [s for s in state.board if is_camp_of(s, seat)]
    for camp in camps:
        candidates += [EnterPiece(camp.q, camp.r, False), EnterPiece(camp.q, camp.r, True)]
    for space in state.board:
        if not pieces(space, seat):
            continue
        forms = _move_forms(state, seat, space)
        targets = sorted(c for c, cost in cheapest(state.board, (space.q, space.r)).items() if cost <= state.ap)
        candidates += [MovePiece(space.q, space.r, q, r, leader, explorer)
                       for leader, explorer in forms for q, r in targets]
        if is_camp_of(space, seat):
            candidates += [CampMove(space.q, space.r, o.q, o.r, leader, explorer)
                           for leader, explorer in forms for o in camps if o is not space]
        acts = _act_forms(state, seat, space)
        candidates += [UncoverLevel(space.q, space.r, leader, explorer) for leader, explorer in acts]
        candidates += [DigTreasure(space.q, space.r, leader, explorer) for leader, explorer in acts]
        candidates += [BuildCamp(space.q, space.r)]
        candidates += [PlaceGuard(space.q, space.r, leader) for leader in (True, False)]
    singles = [[k for k, n in zip(TREASURE_KINDS, p.treasures) if n == 1] for p in state.players]
    for other in range(state.seats):
        candidates += [TradeTreasure(other, give, take) for give in singles[seat] for take in singles[other]]
    return candidates


def candidates(state: TikalState, seat: int) -> list[Any]:
    """Everything the reference tries for `seat` now, refused or not."""
    if state.phase == "place":
        return [PlaceTile(q, r, rot) for q, r in BOARD_SPACES for rot in range(6)]
    if state.phase == "take":
        return [TakeTile(t) for t in sorted(set(state.revealed))]
    if state.phase == "auction":
        assert state.auction is not None
        return [Pass()] + [Bid(a) for a in range(state.auction.high + 1, state.players[seat].score + 1)]
    if state.phase == "actions":
        return _action_candidates(state, seat)
    return []


def judged(state: TikalState, seat: int) -> list[tuple[Any, RuleViolation | None]]:
    """Each candidate with the predicate's refusal of it (None: allowed)."""
    if state.phase == "place" and seat in rules.to_act(state):
        strict = bool(strict_placements(state))  # what placement_refusal computes itself when not told
        return [(c, placement_refusal(state, c.q, c.r, c.rotation, strict)) for c in candidates(state, seat)]
    return [(c, rules.refusal(state, seat, c)) for c in candidates(state, seat)]


def reference(state: TikalState, seat: int) -> list[Any]:
    """`legal` by definition: the candidates the refusal predicate does not refuse, in candidate order."""
    return [c for c, refusal in judged(state, seat) if refusal is None]


# -- the comparison ---------------------------------------------------------------------------------

def _decided(state: TikalState, seat: int, command: Any) -> bool:
    try:
        GAME.decide(state, seat, command, Rng(b"tikal-legal-listing", 0))
    except RuleViolation:
        return False
    return True


def _variants(state: TikalState) -> list[TikalState]:
    """`state` itself, then positions next to it the games may not reach: single treasures to trade,
    every camp and guard used, pieces that acted, no temple levels left, other AP left; other tiles
    in hand, also on boards where some or all tiles turned volcano."""
    if state.phase == "actions":
        singles = tuple(msgspec.structs.replace(p, treasures=tuple(int(k in (s, s + 1)) + 2 * (k == s + 2)
                                                                   for k in range(len(TREASURE_KINDS))))
                        for s, p in enumerate(state.players))  # so that trades are offered
        def acted(most: int) -> tuple[Mark, ...]:  # up to `most` pieces of the seat acted on each of its tiles
            return state.acted + tuple(Mark(s.q, s.r, p) for s in state.board
                                       for p in pieces_on(s, state.current)[:most]
                                       if p not in acted_here(state, s.q, s.r))
        spent = tuple(msgspec.structs.replace(p, camps=CAMPS, guards=GUARDS) for p in state.players)
        return [state, msgspec.structs.replace(state, players=singles), msgspec.structs.replace(state, players=spent),
                msgspec.structs.replace(state, acted=acted(1)), msgspec.structs.replace(state, acted=acted(2)),
                msgspec.structs.replace(state, levels=(0,) * len(state.levels))] + [
            msgspec.structs.replace(state, ap=ap) for ap in range(11) if ap != state.ap]
    if state.phase == "place":
        def walled(every: int) -> tuple:  # every `every`-th tile a volcano (1: no path anywhere)
            return tuple(msgspec.structs.replace(s, kind="volcano") if i % every == 0 and s.kind != "base_camp" else s
                         for i, s in enumerate(state.board))
        return [state] + [msgspec.structs.replace(state, board=board, hand=tile)
                          for board in (state.board, walled(1), walled(2), walled(3)) for tile in HANDS
                          if board is not state.board or tile != state.hand]
    return [state]


def check(state: TikalState, seen: Counter, sample: Rng, thorough: bool) -> list[Any]:
    """Compare the listing with the reference for every seat at `state` and (`thorough`) for the acting
    seat at its variants; returns the acting seat's listing at `state` itself (to play from)."""
    playing: list[Any] = []
    if thorough and state.phase == "actions" and state.ap == ACTION_POINTS:  # once per tile layout: the
        # paths `decide` measures moves by, from every tile
        assert all(reach(state.board, (s.q, s.r)) == cheapest(state.board, (s.q, s.r)) for s in state.board)
    for variant in _variants(state) if thorough else [state]:
        for seat in range(variant.seats) if variant is state else [variant.current]:
            listed, pairs = GAME.legal(variant, seat), judged(variant, seat)
            assert listed == [c for c, refusal in pairs if refusal is None], (variant.phase, seat)
            if variant is state and seat == state.current:
                playing = listed
                for command in listed:  # everything listed is decided without refusal
                    assert _decided(variant, seat, command), command
            seen.update(type(c).__name__ for c in listed)
            seen.update("named walker" for c in listed if isinstance(c, MovePiece) and c.explorer is not None)
            seen.update(refusal.code for _, refusal in pairs if refusal is not None)
            if variant.phase == "place" and listed:
                seen["forced" if is_forced(variant, *msgspec.structs.astuple(listed[0])) else "strict"] += 1
            unlisted = [c for c, refusal in pairs if refusal is not None]
            for _ in range(min(3, len(unlisted))):  # a sample of the rest is refused by decide too
                command = unlisted[sample.below(len(unlisted))]
                assert not _decided(variant, seat, command), command
                seen["refused"] += 1
    return playing


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS, ids=["standard", "auction", "classic", "auction-classic"])
def test_legal_lists_exactly_the_candidates_the_refusal_predicate_lets_through(options):
    seen: Counter = Counter()
    states = 0
    for seats, game in itertools.product((2, 3, 4), range(GAMES)):
        seed = hashlib.sha256(f"tikal-legal-listing/{options}/{seats}/{game}".encode()).digest()
        table_state, _ = start_table(TABLE, options, seats, seed)
        bot, sample = Rng(seed + b"/bot", 0), Rng(seed + b"/sample", 0)
        while table_state.status == "active":
            state = table_state.game
            listed = check(state, seen, sample, thorough=game == 0)
            states += 1
            command = bot.choice(listed)
            table_state = TABLE.fold(TABLE.play(table_state, state.current, command), table_state)
        check(table_state.game, seen, sample, thorough=True)  # over: nothing for anyone
        assert table_state.game.phase == "over"
    # the games met every kind of command and of refusal, so the comparison was not vacuous
    kinds = {"PlaceTile", "EndTurn", "EnterPiece", "MovePiece", "CampMove", "UncoverLevel", "DigTreasure",
             "TradeTreasure", "BuildCamp", "PlaceGuard", "strict", "forced", "named walker", "refused",
             "tikal.not_your_turn", "tikal.space_taken", "tikal.not_adjacent", "tikal.tile_needs_path",
             "tikal.not_enough_action_points", "tikal.no_piece_left", "tikal.bad_trade", "tikal.not_a_temple",
             "tikal.not_a_clearing", "tikal.no_treasure_there", "tikal.temple_guarded", "tikal.no_level_left",
             "tikal.not_majority", "tikal.no_piece_there", "tikal.camp_exists", "tikal.no_guard_left",
             "tikal.no_camp_left"}
    if options.get("variant") == "auction":
        kinds |= {"Bid", "Pass", "TakeTile"}
    if options.get("edition") == "classic":
        kinds |= {"tikal.volcano_cuts_off"}
    assert kinds <= set(seen), kinds - set(seen)
    assert states > 300 * GAMES
