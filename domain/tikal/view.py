"""What leaves Tikal's state: `view` for a seat or spectator, and `redact` for events.

Everything in Tikal is public except `TikalState.hidden`: the stack order
(only the next tile's letter and the count left are shown) and the kinds of
face-down treasure tokens (only their number per ruins is shown). Treasures held
are counts per kind, in the order of the components' `treasure_kinds`. Every seat
and the spectator get the same view. `StackShuffled` is blanked for all.
"""

from __future__ import annotations

from typing import Literal, Optional

import msgspec

from domain.tikal.events import StackShuffled, TikalEvent
from domain.tikal.state import Auction, Phase, Player, Space, TikalState, next_letter


class TikalView(msgspec.Struct, frozen=True, kw_only=True):
    seat: Optional[int]
    variant: Literal["standard", "auction"]
    edition: Literal["original", "classic"]
    phase: Phase
    current: int
    ap_left: int
    to_act: list[int]
    board: tuple[Space, ...]
    players: tuple[Player, ...]
    treasure_counts: list[int]
    level_supply: dict[str, int]
    hand: Optional[str]
    next_letter: Optional[str]
    tiles_left: int
    revealed: tuple[str, ...]
    auction: Optional[Auction]
    scoring_round: Optional[Literal["volcano", "final"]]
    scoring_queue: tuple[int, ...]
    scorings: int
    uncovered_this_turn: tuple[tuple[int, int, int], ...]
    dug_this_turn: tuple[tuple[int, int, int], ...]


def view(state: TikalState, seat: Optional[int]) -> TikalView:
    """The public table as `seat` (None = spectator) sees it; never the hidden stack or tokens."""
    return TikalView(
        seat=seat, variant=state.variant, edition=state.edition, phase=state.phase, current=state.current,
        ap_left=state.ap, to_act=[] if state.phase == "over" else [state.current], board=state.board,
        players=state.players,
        treasure_counts=[sum(p.treasures) for p in state.players],
        level_supply={str(v + 2): n for v, n in enumerate(state.levels)}, hand=state.hand,
        next_letter=next_letter(state), tiles_left=len(state.hidden.stack), revealed=state.revealed,
        auction=state.auction, scoring_round=state.round, scoring_queue=state.queue, scorings=state.scorings,
        uncovered_this_turn=state.uncovered, dug_this_turn=state.dug)


def redact(event: TikalEvent, seat: Optional[int]) -> TikalEvent:
    """`event` as `seat` may see it while the game runs: the shuffle is secret for everybody."""
    if isinstance(event, StackShuffled):
        return StackShuffled(tiles=None, treasures=None)
    return event
