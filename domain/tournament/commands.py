"""Tournament commands: imperative, sent by an organiser, a player or the platform.

`CreateTournament` is decided by `create()` (the service supplies the id and
the secret seed); every other command goes through `decide()`. The actor of a
command is a player id; `RecordResult` comes from the platform itself (the
process that follows finished games), i.e. actor None or an admin.
"""

from __future__ import annotations

from typing import Literal, Union

import msgspec

from domain.kernel import Outcome
from domain.windows import Window
from domain.tournament.codec import Order, Setup

Format = Literal["swiss", "round_robin", "single_elimination"]
TieBreak = Literal["buchholz", "median_buchholz", "sonneborn_berger", "head_to_head", "rating", "draw"]




class Entry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Who may register by themselves (the organiser may register anyone): at least `min_rated_games` rated
    games of the kind and a rating in [`rating_min`, `rating_max`] (both as the platform's ratings have
    them), and, when `invited` is not empty or the tournament has an invitation code, a player named in
    `invited` or one who gives the code."""

    min_rated_games: int = 0
    rating_min: int | None = None
    rating_max: int | None = None
    invited: list[str] = []


class CreateTournament(Setup, tag="tournament.CreateTournament", kw_only=True):
    """Open a tournament of `kind` for registration.

    `options` and `time_control` are opaque here and passed on to every game.
    `seats` is the table size (2-6); `min_seats` the smallest table the kind
    accepts (0 = `seats`, i.e. only full tables). `rounds`: Swiss round count;
    for round robin 0 means "until every pair has met". `advance`: single
    elimination, how many of each table go through. `duplicate`: every table of
    a round plays the same game seed. `min_players` 0 means the smallest table;
    `max_players` 0 means the format's limit (64 for round robin, 100,000 otherwise).
    `bye_points`: what a Swiss or round-robin bye is worth (default: a win, `seats - 1`).
    `points_per_place`: what each place of a table earns, best first, one value per seat (default: rank
    points, `seats - 1` down to 0; see `standings`).
    `tiebreaks`: the tie-breaks after rank points, in order (default Buchholz, rating; the seeded
    draw always comes last); see `tiebreaks`. `late_join_until` (Swiss): players may still register
    after the start until round `late_join_until` is paired (0: no late join); the rounds they missed
    score nothing. `entry`: the entry conditions; `invitation_code`: a code that admits whoever gives it
    (only its hash, salted with the secret seed, is recorded).
    """

    min_seats: int = 0
    format: Format = "swiss"
    rounds: int = 0
    advance: int = 1
    duplicate: bool = False
    min_players: int = 0
    max_players: int = 0
    bye_points: float | None = None
    tiebreaks: list[TieBreak] | None = None
    points_per_place: list[float] | None = None
    late_join_until: int = 0
    entry: Entry | None = None
    invitation_code: str | None = None


class Register(Order, tag="tournament.Register"):
    """Register the actor (or, for the organiser or an admin, `player_id`) with a display name and rating.

    `rated_games` is what the platform's ratings know of the player (the service fills it, with `rating`,
    when the tournament has a rating condition); `code` the invitation code the player gives.
    """

    name: str
    rating: int = 1500
    player_id: str | None = None
    rated_games: int | None = None
    code: str | None = None


class Withdraw(Order, tag="tournament.Withdraw"):
    """Leave the tournament: before the start the entry is removed, after it no further pairings."""

    player_id: str | None = None


class Pause(Order, tag="tournament.Pause"):
    """Swiss: the actor (or, for the organiser, `player_id`) is not paired from the next round until resumed."""

    player_id: str | None = None


class Resume(Order, tag="tournament.Resume"):
    """A paused player is paired again from the next round."""

    player_id: str | None = None


class RemovePlayer(Order, tag="tournament.RemovePlayer"):
    """The organiser removes a player: before the start the entry goes; after it no more pairings, and the
    player ranks below everyone still in."""

    player_id: str
    reason: str = ""


class ForbidPairing(Order, tag="tournament.ForbidPairing"):
    """The organiser forbids these players (teammates) to meet: Swiss pairings honour it whenever any
    pairing of the round does (it outweighs even a repeat)."""

    players: list[str]


class SetPairings(Order, tag="tournament.SetPairings"):
    """Swiss: the organiser sets round `round`'s tables (players in seat order, seat 0 first) and byes; every
    player to be paired (active, not paused) appears exactly once. The round is paired with them when it comes,
    if the players to pair are still exactly those; otherwise it is paired automatically."""

    round: int
    tables: list[list[str]]
    byes: list[str] = []


class SetWindows(Order, tag="tournament.SetWindows"):
    """A player of a slow tournament states the weekly hours (UTC) they play in (`domain.windows`); their
    per-move time in the games paired from then on counts only inside them. `[]`: any time again."""

    windows: list[Window]


class Annul(Order, tag="tournament.Annul"):
    """The organiser annuls a game: its table scores nothing for anyone, as if it was never played."""

    game_id: str


class Adjudicate(Order, tag="tournament.Adjudicate"):
    """The organiser sets a game's ranks (per seat, the game's seat order), replacing any result."""

    game_id: str
    ranks: list[int]


class Start(Order, tag="tournament.Start"):
    """Close registration, draw the seeding and pair round 1 (organiser or admin)."""


class RecordResult(Order, tag="tournament.RecordResult"):
    """The outcome of one of the tournament's games, per seat in the game's seat order."""

    game_id: str
    outcome: Outcome


TournamentCommand = Union[Register, Withdraw, Start, RecordResult, Pause, Resume, RemovePlayer, ForbidPairing, Annul,
                          Adjudicate, SetPairings, SetWindows]
