"""`legal` builds its commands directly (rules_listing); here it is checked against its definition.

The definition, kept from before the fast listing: every candidate command below that
`rules.refusal` (what `decide` asks) lets through, in the candidates' order. Over random games
(2 to 4 seats, every option, bots choosing uniformly or going for treasures) both are compared at
every state, for every seat, and on variants of the state where the turn's action, drive steps,
amulets, hand or roses of the seat to act are changed (`variants`); every listed command of the
games themselves must be decided.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from domain.catalog import GAMES
from domain.table import Table
from domain.tobago import rules
from domain.tobago.commands import (
    AmuletStep, CollectTreasure, DoubleRose, Drive, EndTurn, ExchangeClues, PassCard, PlaceAtv, PlayClue,
    RemoveCandidate, StartHunt, SwapRoses, TakeCard)
from domain.tobago.components import MARKERS_PER_MAP
from domain.tobago.island import bits
from domain.tobago.state import TobagoState, board_of, candidates, drive_steps_left, roses_left
from tests.budget import every
from tests.domain.tobago.support import FIXED
from tests.support.listing import play_checked

TABLE = Table(GAMES["tobago"])
OPTIONS: list[dict[str, Any]] = [
    {}, {"curse_effect": "continue", "advanced_amulets": True}, {"curse_effect": "amulet_holders", "curse_cards": 1},
    {"curse_depth": 21, "curse_returns": True, "advanced_amulets": True},
    {"island": "generated", "random_first_seat": True},
    {"landmarks": msgspec.to_builtins(FIXED), "advanced_amulets": True, "random_first_seat": True}]


def _turn_candidates(state: TobagoState, seat: int) -> list[Any]:
    me = state.players[seat]
    maps = range(len(state.maps))
    hand = state.hidden.private[seat].hand
    flags = ([] if state.turn.acted else [False]) + ([True] if me.amulets > 0 else [])  # acted: only amulets pay
    out: list[Any] = [PlayClue(card=c, map=m, amulet=a) for a in flags for c in hand for m in maps]
    out += [ExchangeClues(amulet=a) for a in flags]
    out += [CollectTreasure(map=m) for m in maps]
    dist = board_of(state).geo.steps_from(me.atv)  # type: ignore[arg-type]
    left = drive_steps_left(state)
    out += [Drive(hex=h) for h, d in enumerate(dist) if 0 < d <= left]
    if me.amulets > 0:
        out += [AmuletStep(hex=h) for h, d in enumerate(dist) if d == 1]
        for m in maps:
            cand = bits(candidates(state, m))
            if 1 < len(cand) <= MARKERS_PER_MAP:
                out += [RemoveCandidate(map=m, hex=h) for h in cand]
            if state.options.advanced_amulets:
                slots = state.maps[m].slots
                out += [DoubleRose(map=m, slot=i) for i in range(len(slots))]
                out += [SwapRoses(map=m, a=a, b=b) for a in range(len(slots)) for b in range(a + 1, len(slots))]
    if state.turn.acted:
        out.append(EndTurn())
    return out


def reference_legal(state: TobagoState, seat: int) -> list[Any]:
    """The listing by definition: the candidates `refusal` does not refuse, in their order."""
    if seat not in rules.to_act(state):
        return []
    if state.phase == "place_atv":
        options: list[Any] = [PlaceAtv(hex=h) for h in range(len(state.island))]
    elif state.phase == "share":
        options = [TakeCard(), PassCard()]
    elif state.phase == "new_hunt":
        options = [StartHunt(card=c) for c in state.hidden.private[seat].hand]
    else:
        options = _turn_candidates(state, seat)
    return [c for c in options if rules.refusal(state, seat, c) is None]


def variants(state: TobagoState, rnd: random.Random) -> list[TobagoState]:
    """`state` with the seat to act (in a turn or a new hunt) changed: its action taken or not with
    0 to 3 drive steps left, 0 to 3 amulets, an empty hand, all of the maps' roses its own (some
    doubled, which also spends all its roses), or its roses spent elsewhere."""
    if state.phase not in ("turn", "new_hunt"):
        return []
    seat = min(rules.to_act(state))
    hidden, player = state.hidden, state.players[seat]

    def mine(**changes: Any) -> TobagoState:
        players = list(state.players)
        players[seat] = replace(player, **changes)
        return replace(state, players=tuple(players))

    out = [replace(state, turn=replace(state.turn, acted=acted, steps_left=left))
           for acted in (False, True) for left in range(4)]
    out += [mine(amulets=n) for n in range(4) if n != player.amulets]
    private = list(hidden.private)
    private[seat] = replace(private[seat], hand=())
    out.append(replace(state, hidden=replace(hidden, private=tuple(private))))
    owned = tuple(replace(m, slots=tuple(replace(s, seat=seat, roses=rnd.choice((1, 2))) for s in m.slots))
                  for m in state.maps)
    out.append(replace(state, maps=owned))
    spent = [replace(m, slots=m.slots[:1] + tuple(replace(s, seat=seat) for s in m.slots[1:])) for m in state.maps]
    if spent and spent[0].slots:  # the top clue of map 0 carries all the roses the seat has left
        top = spent[0].slots[0]
        spent[0] = replace(spent[0], slots=(replace(top, seat=seat, roses=top.roses + roses_left(state, seat)),)
                           + spent[0].slots[1:])
    out.append(replace(state, maps=tuple(spent)))
    return [mine_amulets(v, seat, rnd) for v in out]


def mine_amulets(state: TobagoState, seat: int, rnd: random.Random) -> TobagoState:
    """Most variants with at least one amulet, so the amulet powers are listed often."""
    if state.players[seat].amulets or rnd.random() < 0.3:
        return state
    players = list(state.players)
    players[seat] = replace(players[seat], amulets=rnd.choice((1, 2)))
    return replace(state, players=tuple(players))


def check(state: TobagoState, listed: Counter[str]) -> None:
    for seat in range(len(state.players)):
        fast = rules.legal(state, seat)
        assert fast == reference_legal(state, seat), (seat, state)
        listed.update(type(c).__name__ for c in fast)
        if roses_left(state, seat) <= 0 and fast:
            listed["(no roses left)"] += 1


def play(seats: int, options: dict[str, Any], seed: bytes, greedy: bool, listed: Counter[str]) -> int:
    """One random game, checking every state on the way (variants of every fourth); its length."""
    # the greedy bot collects a located treasure and otherwise favours clues, so maps narrow quickly
    return play_checked(TABLE, rules, seats, options, seed, lambda game: check(game, listed), [(4, 0, variants)],
                        lambda game, seat, legal: ([c for c in legal if isinstance(c, (CollectTreasure, PlayClue))]
                                                   if greedy else None, None))


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_fast_listing_is_the_definition_at_every_state_of_random_games(seats: int) -> None:
    listed: Counter[str] = Counter()
    steps = 0
    # the short budget plays each option set once, the two bots taking turns (the long: both)
    games_of = [(n, options, greedy) for n, options in enumerate(OPTIONS) for greedy in (True, False)]
    games = list(every(games_of, 2, start=seats))
    for n, options, greedy in games:
        seed = hashlib.sha256(f"tobago-listing/{seats}/{n}/{greedy}".encode()).digest()
        steps += play(seats, options, seed, greedy, listed)
    # the comparison was not vacuous: long games, every kind of command listed somewhere, and
    # seats without roses seen
    assert steps > 100 * len(games), steps
    assert set(listed) == {"PlaceAtv", "TakeCard", "PassCard", "StartHunt", "PlayClue", "ExchangeClues",
                           "Drive", "CollectTreasure", "AmuletStep", "RemoveCandidate", "DoubleRose",
                           "SwapRoses", "EndTurn", "(no roses left)"}, listed
