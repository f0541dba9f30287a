"""Tournament state: the fold of its events, with small pure queries.

`entrants` keeps every registered player in registration order (withdrawn ones
stay, marked inactive, so standings stay complete); `rounds` holds every round
paired so far with each table's result once recorded; `games` maps a game id
to its (round, table). The one secret is `seed` (hex), revealed at the end.
"""

from __future__ import annotations

from typing import Literal, Optional

import msgspec

from domain.kernel import Rng
from domain.windows import Window
from domain.tournament.events import PairingsSet, TournamentCreated

Status = Literal["registration", "running", "finished"]


class Entrant(msgspec.Struct, frozen=True, kw_only=True):
    """One registered player and what the pairings need to know about their past.

    `met` counts the games shared with each opponent; `lateness` sums, over the
    games played, the seat position scaled to [0, 1] (0 = first seat, 1 = last),
    so `lateness - games / 2` > 0 means the player has mostly sat late.
    `last_seat` is the seat taken in the last game (-1 before any). `reached` is the last round the player was paired in (a table or a bye) and
    `last_rank` their rank at their last table; `out` marks single-elimination losers.
    """

    player_id: str
    name: str
    rating: int
    active: bool = True
    points: float = 0.0
    games: int = 0
    byes: int = 0
    met: dict[str, int] = {}
    lateness: float = 0.0
    firsts: int = 0
    last_seat: int = -1
    reached: int = 0
    last_rank: int = 0
    out: bool = False
    paused: bool = False  # Swiss: not paired until resumed
    removed: bool = False  # removed by the organiser: ranks below everyone still in
    windows: tuple[Window, ...] = ()  # slow formats: the weekly hours (UTC) the player plays in (none: any time)

    def balance(self) -> float:
        """How much later than average this player has sat (positive: should sit early next)."""
        return self.lateness - self.games / 2


class TableRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A table of a round: players in seat order and, once the game ended, its ranks and rank points."""

    table: int
    game_id: str
    players: tuple[str, ...]
    seed: str | None = None
    ranks: tuple[int, ...] | None = None
    scores: tuple[int, ...] | None = None
    points: tuple[float, ...] | None = None
    annulled: bool = False  # the organiser annulled it: it counts for nothing
    adjudicated: bool = False  # the organiser set its ranks


class RoundRecord(msgspec.Struct, frozen=True, kw_only=True):
    round: int
    tables: tuple[TableRecord, ...]
    byes: tuple[str, ...] = ()
    bye_points: float = 0.0


class TournamentState(msgspec.Struct, frozen=True, kw_only=True):
    """Everything known about one tournament after folding `version` events."""

    settings: TournamentCreated
    seed: str
    status: Status = "registration"
    entrants: dict[str, Entrant] = {}
    draw: tuple[str, ...] = ()
    rounds: tuple[RoundRecord, ...] = ()
    games: dict[str, tuple[int, int]] = {}
    pending: int = 0
    final: tuple[str, ...] = ()
    version: int = 0
    revealed: bool = False
    forbidden: tuple[tuple[str, str], ...] = ()  # pairs that must not meet (sorted within and between)
    manual: Optional[PairingsSet] = None  # the organiser's pairings of a round not paired yet (`SetPairings`)

    @property
    def organiser(self) -> str:
        return self.settings.organiser

    @property
    def round(self) -> int:
        """The current (last paired) round, 0 before the start."""
        return len(self.rounds)

    def active_ids(self) -> list[str]:
        """Players to pair: still taking part and not paused, in registration order."""
        return [pid for pid, e in self.entrants.items() if e.active and not e.paused]

    def forbidden_pairs(self) -> frozenset[tuple[str, str]]:
        """The pairs that must not meet, each as (a, b) with a < b."""
        return frozenset(self.forbidden)

    def draw_index(self) -> dict[str, int]:
        return {pid: i for i, pid in enumerate(self.draw)}

    def done(self, table: TableRecord) -> bool:
        """Has `table` its result (recorded, adjudicated, or annulled)?"""
        return table.ranks is not None or table.annulled

    def table_of(self, game_id: str) -> TableRecord | None:
        where = self.games.get(game_id)
        if where is None:
            return None
        return self.rounds[where[0] - 1].tables[where[1] - 1]


def rng_for(state: TournamentState) -> Rng:
    """The Rng of the next decision: the tournament's secret seed and the stream version so far."""
    return Rng(bytes.fromhex(state.seed), state.version)
