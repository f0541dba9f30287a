"""Arena events: facts in the past tense, the only record of an arena.

A stream reads `ArenaCreated` (settings, start and end times, the seed's commitment), then in any
order `PlayerJoined` / `PlayerPaused` / `PlayerLeft`, `PlayersPaired` (games with ids, seats and
secret seeds), `Berserked` and `GameScored`, then `ArenaClosed` at the end time, and, once the last
running game has scored, `ArenaEnded` (the final order) and `SeedRevealed`. Secrets (the arena
seed, the game seeds) sit in fields named `seed` and are stripped by `redact` until the end.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import msgspec


class _Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class ArenaCreated(_Event, tag="arena.ArenaCreated"):
    arena_id: str
    organiser: str
    kind: str
    name: str
    options: dict[str, Any]
    time_control: dict[str, Any]
    seats: int
    starts_at_ms: int
    ends_at_ms: int
    berserk: bool
    seed_commitment: str
    seed: Optional[str] = None  # secret until the end: redacted from every reader while the arena runs
    berserk_moves: int = 0  # own moves a berserk needs for its bonus (0, as every earlier log reads: none)


class PlayerJoined(_Event, tag="arena.PlayerJoined"):
    """A player joined, or came back after a pause (their points kept)."""

    player_id: str
    name: str
    rating: int


class PlayerPaused(_Event, tag="arena.PlayerPaused"):
    player_id: str


class PlayerLeft(_Event, tag="arena.PlayerLeft"):
    player_id: str


class ArenaGame(msgspec.Struct, frozen=True, kw_only=True):
    """One game paired: `number` counts the arena's games from 1; `players` in seat order; `seed` is secret."""

    number: int
    game_id: str
    players: list[str]
    seed: Optional[str] = None


class PlayersPaired(_Event, tag="arena.PlayersPaired"):
    """At `at_ms`, the free players listed in `games` were paired, each game starting now."""

    at_ms: int
    games: list[ArenaGame]


class Berserked(_Event, tag="arena.Berserked"):
    """`player_id` halved their clock in `game_id`."""

    game_id: str
    player_id: str


class GameScored(_Event, tag="arena.GameScored"):
    """A game ended: per seat (in seat order) its rank, the arena points it scored, and whether it was a
    win that counts for a streak; `aborted` games score nothing and leave streaks as they were."""

    game_id: str
    players: list[str]
    ranks: list[int]
    points: list[int]
    wins: list[bool]
    aborted: bool = False
    moves: Optional[list[int]] = None  # each seat's own moves, as recorded (None: not counted, earlier logs)


class ArenaClosed(_Event, tag="arena.ArenaClosed"):
    """The end time passed (noticed at `at_ms`): nobody is paired any more; running games still count."""

    at_ms: int


class ArenaEnded(_Event, tag="arena.ArenaEnded"):
    """The final order, best first (every player who joined, those who left included)."""

    standings: list[str]


class SeedRevealed(_Event, tag="arena.SeedRevealed"):
    seed: str


ArenaEvent = Union[ArenaCreated, PlayerJoined, PlayerPaused, PlayerLeft, PlayersPaired, Berserked, GameScored,
                   ArenaClosed, ArenaEnded, SeedRevealed]
