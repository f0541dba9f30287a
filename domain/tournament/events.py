"""Tournament events: facts in the past tense, the only record of a tournament.

A stream reads `TournamentCreated` (settings and the seed's commitment),
`PlayerRegistered` / `PlayerWithdrew`, `TournamentStarted` (the seeded draw),
then per round one `RoundPaired` (tables with game ids, seats and game seeds,
byes) and one `ResultRecorded` per table, and finally `TournamentEnded` (the
final order) and `SeedRevealed`. Secrets (the tournament seed, the game seeds)
sit in fields named `seed` and are stripped by `redact` until the end. `PlayerWithdrew`, `PlayerPaused`,
`TournamentEnded` and `SeedRevealed` are the facts every format shares, declared once in `facts`.
"""

from __future__ import annotations

from typing import Annotated, Union

import msgspec

from domain.tournament.codec import Fact, Opened
from domain.tournament.commands import Entry, Format, TieBreak
from domain.tournament.facts import PlayerPaused, PlayerWithdrew, SeedRevealed, TournamentEnded
from domain.windows import Window

__all__ = ["PairedTable", "PairingForbidden", "PairingRule", "PairingsSet", "PlayerPaused", "PlayerRegistered",
           "PlayerRemoved", "PlayerResumed", "PlayerWithdrew", "ResultAdjudicated", "ResultAnnulled", "ResultRecorded",
           "RoundPaired", "SeedRevealed", "TournamentCreated", "TournamentEnded", "TournamentEvent", "TournamentStarted",
           "WindowsSet"]

PairingRule = Annotated[int, msgspec.Meta(description=(
    "The Swiss pairing rule the tournament was created with; it keeps it for ever, so older logs still verify. "
    "1 (recorded before rule 2): tables filled top-down in standings order, then swaps that remove repeats. "
    "2: at two seats an exact least-cost matching (forbidden pairs, then repeats, then score floats) in blocks "
    "of 48 players down the standings; at 3-6 seats as 1. 3: two seats as 2; at 3-6 seats an exact least-cost "
    "grouping within blocks of 8 tables. 4: at two seats exact matchings in blocks of "
    "at least 2D + 2 players (D: the most players of the round one player has met or is forbidden to meet), "
    "so no repeat or forbidden pair is ever made that some pairing of the round avoids; at 3-6 seats rule 3, "
    "then swaps between tables that remove a repeat or forbidden pair and add none, which leaves none at all "
    "once the round has at least D + 1 + floor(((k - 1)D - 1) / s) tables (k seats at the largest, s at the "
    "smallest); in a smaller round a bounded search then looks for a grouping without any. 5 (every new "
    "tournament): as 4, and when that search runs out of its budget without proving that every grouping has a "
    "conflict, a seeded tabu search over swaps looks for one without any. Documented in docs/tournaments.md."))]


class TournamentCreated(Opened, tag="tournament.TournamentCreated", kw_only=True):
    """A tournament of rounds: its settings (`Opened`'s, and the format's), the seed's commitment."""

    tournament_id: str
    min_seats: int
    format: Format
    rounds: int
    advance: int
    duplicate: bool
    min_players: int
    max_players: int
    pairing: PairingRule = 1  # the pairing rule's version: 1 for tournaments recorded before rule 2 existed
    bye_points: float | None = None  # what a bye is worth (None, as recorded by rule 1: (seats - 1) / 2)
    tiebreaks: list[TieBreak] | None = None  # the organiser's order (None: Buchholz, rating, the draw)
    late_join_until: int = 0  # Swiss: registration stays open until this round is paired (0: closes at the start)
    entry: Entry | None = None  # the entry conditions (None: open to all)
    # the organiser's points per place, best first; left out (UNSET) when not set, so older logs encode as recorded
    points_per_place: list[float] | msgspec.UnsetType = msgspec.UNSET
    code_hash: str | None = None  # SHA-256 of the invitation code salted with the seed (`rules.code_hash`)


class PlayerRegistered(Fact, tag="tournament.PlayerRegistered"):
    player_id: str
    name: str
    rating: int
    rated_games: int | None = None  # as the platform's ratings had it, when the entry conditions ask
    code: str | None = None  # the invitation code given (secret until the end, like the seeds)
    invited_by: str | None = None  # the organiser, when they registered the player (no entry conditions then)


class PlayerResumed(Fact, tag="tournament.PlayerResumed"):
    player_id: str


class PlayerRemoved(Fact, tag="tournament.PlayerRemoved"):
    player_id: str
    reason: str = ""


class PairingForbidden(Fact, tag="tournament.PairingForbidden"):
    """No two of `players` are to meet (Swiss)."""

    players: list[str]


class PairingsSet(Fact, tag="tournament.PairingsSet"):
    """The organiser set round `round`'s tables (seat order as given) and byes (`SetPairings`)."""

    round: int
    tables: list[list[str]]
    byes: list[str] = []


class WindowsSet(Fact, tag="tournament.WindowsSet"):
    """`player_id` plays in these weekly windows (UTC) from the next pairing on (`[]`: any time)."""

    player_id: str
    windows: list[Window]


class ResultAnnulled(Fact, tag="tournament.ResultAnnulled"):
    """The organiser annulled a table: whatever it scored is taken back, and nothing it records counts."""

    round: int
    table: int
    game_id: str
    players: list[str]


class ResultAdjudicated(Fact, tag="tournament.ResultAdjudicated"):
    """The organiser set a table's ranks (and so its rank points), replacing any recorded result."""

    round: int
    table: int
    game_id: str
    players: list[str]
    ranks: list[int]
    points: list[float]


class TournamentStarted(Fact, tag="tournament.TournamentStarted"):
    """`draw` is every entrant in the seeded draw order (the last tie-break), drawn from the Rng."""

    draw: list[str]


class PairedTable(msgspec.Struct, frozen=True, kw_only=True):
    """One game of a round: `players` in seat order (seat 0 first); `seed` is the game's secret seed (hex)."""

    table: int
    game_id: str
    players: list[str]
    seed: str | None = None


class RoundPaired(Fact, tag="tournament.RoundPaired"):
    """Round `round` (1-based) begins: its tables, and the players with a bye (each credited `bye_points`)."""

    round: int
    tables: list[PairedTable]
    byes: list[str] = []
    bye_points: float = 0.0


class ResultRecorded(Fact, tag="tournament.ResultRecorded"):
    """A table's game ended: `ranks`, `scores` and the rank `points` per seat, in seat order."""


    round: int
    table: int
    game_id: str
    players: list[str]
    ranks: list[int]
    scores: list[int]
    points: list[float]
    advancing: list[str] = []  # single elimination: who goes through to the next round


TournamentEvent = Union[TournamentCreated, PlayerRegistered, PlayerWithdrew, TournamentStarted, RoundPaired,
                        ResultRecorded, TournamentEnded, SeedRevealed, PlayerPaused, PlayerResumed, PlayerRemoved,
                        PairingForbidden, ResultAnnulled, ResultAdjudicated, PairingsSet, WindowsSet]
