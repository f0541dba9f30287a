"""`legal` builds its commands directly (rules_listing); here it is checked against its definition.

The definition, kept from before the fast listing: every candidate command below that
`rules.refusal` (what `decide` asks) lets through, in the candidates' order. Over random games
(2 to 6 seats, every option, bots choosing uniformly or going for coins and challenges) both are
compared at every state, for every seat, and on variants of the state (`variants`): the drawn tile
swapped for every other design, other hands and stacks (tiles that fit nowhere too), the pirates gathered on one
tile with coins and tokens, a bet's coin waiting; every listed command of the games themselves
must be decided.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

import pytest
from msgspec.structs import replace

from domain.catalog import GAMES
from domain.goldmine import rules
from domain.goldmine.board import fits_anywhere, frontier, has_chamber
from domain.goldmine.commands import (Challenge, EndTurn, Explore, LeaveCoin, Move, PassCoins, PlaceCoin, PlaceTile,
                                      Roll, SecretPassage, Stay, TakeCoin)
from domain.goldmine.components import ALL_TILES, DESIGN_OF, ENTRANCE
from domain.goldmine.options import GoldmineOptions, options_refusal
from domain.goldmine.state import GoldmineState, cells
from domain.table import Table
from tests.budget import every
from tests.support.listing import play_checked

TABLE = Table(GAMES["goldmine"])
CASES: list[tuple[int, dict[str, Any]]] = [
    (seats, options) for seats in (2, 3, 4, 5, 6)
    for options in ({}, {"mud": True}, {"mud": True, "five_tiles": True}, {"alliances": True}, {"max_rounds": 6})
    if options_refusal(GoldmineOptions(**options), seats) is None]
ONE_PER_DESIGN = sorted({DESIGN_OF[t]: t for t in ALL_TILES}.values())


def candidates(state: GoldmineState, seat: int) -> list[Any]:
    """Every command worth asking `refusal` about in the current phase."""
    phase = state.phase
    if phase in ("scout", "place"):
        return [PlaceTile(x, y, r) for x, y in frontier(cells(state)) for r in range(4)]
    if phase == "move":
        hand = sorted(state.hands[seat]) if state.hands else []
        return [Explore(), *(Explore(t) for t in hand), Roll(), SecretPassage(), Stay()]
    if phase in rules.MOVE_PHASES:
        return [*(Move(*p) for p in rules.destinations(state)), Stay()]
    if state.phase == "bet_coin":
        return [*(PlaceCoin(c.x, c.y) for c in state.board if has_chamber(c.tile)), LeaveCoin()]
    challenges = [Challenge(kind, target) for kind in ("bet", "bats") for target in range(state.seats)]
    amounts = [PassCoins(n) for n in range(1, state.pirates[state.current].coins + 1)]
    return [TakeCoin(), *challenges, *amounts, EndTurn()]


def reference_legal(state: GoldmineState, seat: int) -> list[Any]:
    """The listing by definition: the candidates `refusal` does not refuse, in their order."""
    if seat not in rules.to_act(state):
        return []
    return [c for c in candidates(state, seat) if rules.refusal(state, seat, c) is None]


def variants(state: GoldmineState, rnd: random.Random) -> list[GoldmineState]:
    """Other states near `state`: another drawn tile (each design); other hands and stacks, also of tiles
    that fit nowhere (on this cave or on the bare entrance); the pirates on one tile holding coins and
    tokens (in each action phase); a bet's coin waiting to be placed."""
    if state.over:
        return []
    out: list[GoldmineState] = []
    if state.phase in ("scout", "place"):
        out += [replace(state, drawn=t) for t in ONE_PER_DESIGN]
    if state.phase == "move":
        hands = [tuple(rnd.sample(ONE_PER_DESIGN, rnd.choice((0, 1, 3, 5)))) for _ in range(state.seats)]
        out += [replace(state, hands=tuple(hands)), replace(state, hidden=replace(state.hidden, stack=()))]
        out.append(replace(state, hidden=replace(state.hidden, stack=tuple(rnd.sample(ONE_PER_DESIGN, 2)))))
        # the cave shrunk to its entrance, where dead ends fit nowhere: stacks and hands of them too
        bare = replace(state, board=tuple(c for c in state.board if c.tile == ENTRANCE),
                       pirates=tuple(replace(p, x=0, y=0, path=0) for p in state.pirates))
        for near in (state, bare):
            nowhere = [t for t in ONE_PER_DESIGN if not fits_anywhere(cells(near), t)]  # by the reference's `fits`
            if nowhere:
                out.append(replace(near, hidden=replace(near.hidden, stack=tuple(nowhere)), hands=tuple(
                    tuple(rnd.sample(ONE_PER_DESIGN, 2) + rnd.sample(nowhere, 1)) for _ in state.pirates)))
                out.append(replace(near, hidden=replace(near.hidden, stack=(*nowhere, rnd.choice(ONE_PER_DESIGN)))))
    if state.phase in ("action", "after_bonus", "done", "bet_coin"):
        me = state.pirates[state.current]
        gathered = tuple(replace(p, x=me.x, y=me.y, path=me.path if rnd.random() < 0.7 else p.path,
                                 coins=rnd.choice((0, 1, 2)), bets=rnd.choice((0, 1, 3)), bats=rnd.choice((0, 1)))
                         for p in state.pirates)
        out += [replace(state, pirates=gathered, phase=phase) for phase in ("action", "after_bonus", "done")]
        duelist = rnd.choice([s for s in range(state.seats) if s != state.current])
        out.append(replace(state, phase="bet_coin", duelist=duelist, chooser=rnd.choice((state.current, duelist))))
    return out


def check(state: GoldmineState, listed: Counter[str]) -> None:
    for seat in range(state.seats):
        fast = rules.legal(state, seat)
        assert fast == reference_legal(state, seat), (seat, state)
        listed.update(type(c).__name__ for c in fast)
        if state.phase == "move" and state.hidden.stack and fast and Explore() not in fast:
            listed["(stack fits nowhere)"] += 1


def play(seats: int, options: dict[str, Any], seed: bytes, greedy: bool, listed: Counter[str]) -> int:
    """One random game, checking every state on the way and variants of every third; its length."""
    # the greedy bot takes coins and challenges when it can, so coins move and bets are won
    keen = (TakeCoin, Challenge, PassCoins, PlaceCoin)
    return play_checked(TABLE, rules, seats, options, seed, lambda game: check(game, listed), [(3, 0, variants)],
                        lambda game, seat, legal: ([c for c in legal if isinstance(c, keen)] if greedy else None,
                                                   None))


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_the_fast_listing_is_the_definition_at_every_state_of_random_games(seats: int) -> None:
    listed: Counter[str] = Counter()
    steps = games = 0
    # the short budget plays each option set once, greedy and uniform bots taking turns (the long: both)
    games_of = [(n, options, greedy) for n, (_, options) in enumerate(c for c in CASES if c[0] == seats)
                for greedy in (True, False)]
    for n, options, greedy in every(games_of, 2, start=seats):
        seed = hashlib.sha256(f"goldmine-listing/{seats}/{n}/{greedy}".encode()).digest()
        steps += play(seats, options, seed, greedy, listed)
        games += 1
    # the comparison was not vacuous: long games, and every kind of command was listed somewhere
    # (coins pass between allies only)
    assert steps > 150 * games, steps
    allies = {"PassCoins"} if any(o.get("alliances") for s, o in CASES if s == seats) else set()
    assert set(listed) == {"PlaceTile", "Explore", "Roll", "SecretPassage", "Stay", "Move", "TakeCoin",
                           "Challenge", "PlaceCoin", "LeaveCoin", "EndTurn", "(stack fits nowhere)"} | allies, listed
