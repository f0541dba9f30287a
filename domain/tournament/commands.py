"""Tournament commands: imperative, sent by an organiser, a player or the platform.

`CreateTournament` is decided by `create()` (the service supplies the id and
the secret seed); every other command goes through `decide()`. The actor of a
command is a player id; `RecordResult` comes from the platform itself (the
process that follows finished games), i.e. actor None or an admin.
"""

from __future__ import annotations

from typing import Any, Literal, Union

import msgspec

from domain.kernel import Outcome

Format = Literal["swiss", "round_robin", "single_elimination"]
TieBreak = Literal["buchholz", "median_buchholz", "sonneborn_berger", "head_to_head", "rating", "draw"]


class _Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class CreateTournament(_Command, tag="tournament.CreateTournament"):
    """Open a tournament of `kind` for registration.

    `options` and `time_control` are opaque here and passed on to every game.
    `seats` is the table size (2-6); `min_seats` the smallest table the kind
    accepts (0 = `seats`, i.e. only full tables). `rounds`: Swiss round count;
    for round robin 0 means "until every pair has met". `advance`: single
    elimination, how many of each table go through. `duplicate`: every table of
    a round plays the same game seed. `min_players` 0 means the smallest table;
    `max_players` 0 means the format's limit (64 for round robin, 100,000 otherwise).
    `bye_points`: what a Swiss or round-robin bye is worth (default: a win, `seats - 1`).
    `tiebreaks`: the tie-breaks after rank points, in order (default Buchholz, rating; the seeded
    draw always comes last); see `tiebreaks`.
    """

    kind: str
    name: str = ""
    options: dict[str, Any] = {}
    time_control: dict[str, Any] = {}
    seats: int = 2
    min_seats: int = 0
    format: Format = "swiss"
    rounds: int = 0
    advance: int = 1
    duplicate: bool = False
    min_players: int = 0
    max_players: int = 0
    bye_points: float | None = None
    tiebreaks: list[TieBreak] | None = None


class Register(_Command, tag="tournament.Register"):
    """Register the actor (or, for the organiser or an admin, `player_id`) with a display name and rating."""

    name: str
    rating: int = 1500
    player_id: str | None = None


class Withdraw(_Command, tag="tournament.Withdraw"):
    """Leave the tournament: before the start the entry is removed, after it no further pairings."""

    player_id: str | None = None


class Start(_Command, tag="tournament.Start"):
    """Close registration, draw the seeding and pair round 1 (organiser or admin)."""


class RecordResult(_Command, tag="tournament.RecordResult"):
    """The outcome of one of the tournament's games, per seat in the game's seat order."""

    game_id: str
    outcome: Outcome


TournamentCommand = Union[Register, Withdraw, Start, RecordResult]
