"""Tobago's legal listing: the commands `rules.refusal` lets through, built directly.

`rules.legal` once offered every candidate command (about 60 a turn, most of them drives to far
hexes and clue plays) to `refusal`, which dispatched each by type and worked out again for each
the island's board, the seat's roses left and a map's candidates, building a RuleViolation for
every refusal. Here those facts are worked out once per listing (the roses left, each map's
candidates, which hand card each map accepts) and only the commands that pass are built, in the
order the candidates had: ATV placement; the share's answers; the new hunt's clue; or in a turn
the clue plays (paid by the action, then by an amulet; by card, then map), the exchanges, the
treasure collections, the drives, then with an amulet the single steps and by map the markers to
remove, the roses to double and the roses to swap, then `EndTurn`. `decide` still asks
`refusal` of every command sent, and tests/domain/tobago/test_listing.py keeps the old
definition and compares the two over random games. The caller checks the seat is one of `to_act`.
"""

from __future__ import annotations

from functools import lru_cache

from domain.tobago.clues import Board, candidates_mask
from domain.tobago.commands import (
    AmuletStep, CollectTreasure, DoubleRose, Drive, EndTurn, ExchangeClues, PassCard, PlaceAtv, PlayClue,
    RemoveCandidate, StartHunt, SwapRoses, TakeCard, TobagoCommand)
from domain.tobago.components import MARKERS_PER_MAP
from domain.tobago.island import Geometry, bits
from domain.tobago.state import TobagoState, TreasureMap, board_of, drive_steps_left, map_clues, roses_left


def listing(state: TobagoState, seat: int) -> list[TobagoCommand]:
    """Every command `seat`, one of `to_act`, may give now."""
    if state.phase == "place_atv":
        return [PlaceAtv(hex=h) for h in range(len(state.island))]
    if state.phase == "share":
        return [TakeCard(), PassCard()]
    hand = state.hidden.private[seat].hand
    if state.phase == "new_hunt":
        assert state.hunt_map is not None
        if roses_left(state, seat) <= 0:
            return []
        b = board_of(state)
        m = state.maps[state.hunt_map]
        before = candidates_mask(b, map_clues(m), m.removed)
        return [StartHunt(card=c) for c in hand if _narrows(b, before, c)]
    return _turn(state, seat, hand)


def _narrows(b: Board, before: int, card: str) -> bool:
    """clues.clue_refusal passes: `card` keeps some of a map's candidates `before` and removes some."""
    after = before & b.masks[card]
    return after != 0 and after != before


def _turn(state: TobagoState, seat: int, hand: tuple[str, ...]) -> list[TobagoCommand]:
    me, turn, maps = state.players[seat], state.turn, state.maps
    b = board_of(state)
    roses = roses_left(state, seat)
    cands = [candidates_mask(b, map_clues(m), m.removed) for m in maps]
    flags = ([] if turn.acted else [False]) + ([True] if me.amulets > 0 else [])  # acted: only amulets pay
    out: list[TobagoCommand] = []
    if roses > 0 and hand:
        fits = [(c, [i for i, before in enumerate(cands) if _narrows(b, before, c)]) for c in hand]
        out += [PlayClue(card=c, map=i, amulet=a) for a in flags for c, ok in fits for i in ok]
    if hand:
        out += [ExchangeClues(amulet=a) for a in flags]
    atv = me.atv
    assert atv is not None
    found = 1 << atv
    out += [CollectTreasure(map=i) for i, m in enumerate(maps) if m.slots and cands[i] == found]
    drives, steps = _drives(b.geo, atv, drive_steps_left(state))
    out += drives
    if me.amulets > 0:
        out += steps
        advanced = state.options.advanced_amulets
        for i, m in enumerate(maps):
            if m.slots:
                cand = bits(cands[i])
                if 1 < len(cand) <= MARKERS_PER_MAP:
                    out += [RemoveCandidate(map=i, hex=h) for h in cand]
            if advanced:
                _roses(out, i, m, seat, roses)
    if turn.acted:
        out.append(EndTurn())
    return out


@lru_cache(maxsize=4096)
def _drives(geo: Geometry, atv: int, left: int) -> tuple[tuple[Drive, ...], tuple[AmuletStep, ...]]:
    """The drives from `atv` with `left` steps (by hex) and the amulet steps from it, built once (commands
    are immutable, so listings share them)."""
    dist = geo.steps_from(atv)
    return (tuple(Drive(hex=h) for h, d in enumerate(dist) if 0 < d <= left),
            tuple(AmuletStep(hex=h) for h, d in enumerate(dist) if d == 1))


def _roses(out: list[TobagoCommand], index: int, m: TreasureMap, seat: int, roses: int) -> None:
    """The advanced amulet powers on map `index`: doubling a single rose of `seat`'s (while it has a rose
    left), swapping a pair of clues of which exactly one seat is `seat`."""
    slots = m.slots
    if roses > 0:
        out += [DoubleRose(map=index, slot=i) for i, s in enumerate(slots) if s.seat == seat and s.roses <= 1]
    out += [SwapRoses(map=index, a=a, b=c) for a in range(len(slots)) for c in range(a + 1, len(slots))
            if slots[a].seat != slots[c].seat and seat in (slots[a].seat, slots[c].seat)]
