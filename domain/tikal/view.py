"""What leaves Tikal's state: `view` for a seat or spectator, and `redact` for events.

Everything in Tikal is public except `TikalState.hidden`: the stack order
(only the next tile's letter and the count left are shown) and the kinds of
face-down treasure tokens (only their number per ruins is shown). Every face-up
tile (the one in hand, the revealed auction row, every placed tile) carries its
printed data inline (`TileSpec`: type, stones per side, value, masks). Treasures
held are counts per kind, in the order of the components' `treasure_kinds`, and, in
`treasures_held`, each kind held with its printed data (`TreasureSpec`) and its points.
A guarded space says whether its guard is the leader (`guard_is_leader`).
`ap_left` is what the current seat may still spend this turn: the whole 10 while its tile is still to
be taken or placed (the turn's action points follow the placement and none are spent yet), what is
left during its 10-AP phase, and 0 in an auction (bids spend none) or once the game is over.
Every seat and the spectator get the same view. `StackShuffled` is blanked for all.
"""

from __future__ import annotations

from typing import Literal, Optional

import msgspec

from domain.kernel import View
from domain.tikal.components import (ACTION_POINTS, TREASURE_KINDS, TREASURE_SCORES, TileSpec, TreasureSpec, printed,
                                     treasure)
from domain.tikal.events import StackShuffled, TikalEvent
from domain.tikal.state import Auction, Mark, Player, Space, TikalState, next_letter


class SpaceView(msgspec.Struct, frozen=True, kw_only=True):
    """A placed tile as it lies: its printed face, its turn, what it is now and who stands on it.

    `stones` are after rotation (edges N, NE, SE, S, SW, NW); `kind` may differ from the printed
    one (an emptied ruins is a clearing). Per seat: explorers (count and ids) and the leader.
    """

    q: int
    r: int
    tile: TileSpec
    rotation: int
    kind: str
    stones: tuple[int, ...]
    value: int
    tokens: int
    camp: Optional[int]
    guard: Optional[int]
    guard_is_leader: Optional[bool]
    explorers: tuple[int, ...]
    explorer_ids: tuple[tuple[int, ...], ...]
    leaders: tuple[bool, ...]


class HeldTreasure(msgspec.Struct, frozen=True, kw_only=True):
    """Treasure tokens of one kind a player holds: the kind as printed, how many, what they score."""

    treasure: TreasureSpec
    count: int
    points: int


class TikalView(View, frozen=True, kw_only=True, tag="tikal"):
    variant: Literal["standard", "auction"]
    edition: Literal["original", "classic"]
    current: int
    ap_left: int
    board: list[SpaceView]
    players: list[Player]
    treasure_counts: list[int]
    treasures_held: list[list[HeldTreasure]]
    level_supply: dict[str, int]
    hand: Optional[TileSpec]
    next_letter: Optional[str]
    tiles_left: int
    revealed: list[TileSpec]
    auction: Optional[Auction]
    scoring_round: Optional[Literal["volcano", "final"]]
    scoring_queue: list[int]
    scorings: int
    acted_this_turn: list[Mark]


def _space(space: Space) -> SpaceView:
    return SpaceView(q=space.q, r=space.r, tile=printed(space.tile), rotation=space.rotation, kind=space.kind,
                     stones=space.stones, value=space.value, tokens=space.tokens, camp=space.camp, guard=space.guard,
                     guard_is_leader=space.guard_leader if space.guard is not None else None,
                     explorers=space.explorers, explorer_ids=space.ids, leaders=space.leaders)


def _held(player: Player) -> list[HeldTreasure]:
    return [HeldTreasure(treasure=treasure(kind), count=n, points=TREASURE_SCORES.get(n, 0))
            for kind, n in zip(TREASURE_KINDS, player.treasures) if n]


def ap_left(state: TikalState) -> int:
    """Action points the current seat may still spend this turn (see the module's docstring)."""
    if state.phase in ("place", "take"):
        return ACTION_POINTS
    return state.ap if state.phase == "actions" else 0


def view(state: TikalState, seat: Optional[int]) -> TikalView:
    """The public table as `seat` (None = spectator) sees it; never the hidden stack or tokens."""
    return TikalView(
        seat=seat, phase=state.phase, to_act=[] if state.phase == "over" else [state.current],
        scores=[p.score for p in state.players], variant=state.variant, edition=state.edition,
        current=state.current, ap_left=ap_left(state), board=[_space(s) for s in state.board], players=list(state.players),
        treasure_counts=[sum(p.treasures) for p in state.players],
        treasures_held=[_held(p) for p in state.players],
        level_supply={str(v + 2): n for v, n in enumerate(state.levels)},
        hand=printed(state.hand) if state.hand else None, next_letter=next_letter(state),
        tiles_left=len(state.hidden.stack), revealed=[printed(t) for t in state.revealed], auction=state.auction,
        scoring_round=state.round, scoring_queue=list(state.queue), scorings=state.scorings,
        acted_this_turn=list(state.acted))


def redact(event: TikalEvent, seat: Optional[int]) -> TikalEvent:
    """`event` as `seat` may see it while the game runs: the shuffle is secret for everybody."""
    if isinstance(event, StackShuffled):
        return StackShuffled(tiles=None, treasures=None)
    return event
