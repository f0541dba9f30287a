"""Arena events: facts in the past tense, the only record of an arena.

A stream reads `ArenaCreated` (settings, start and end times, the seed's commitment), then in any
order `PlayerJoined` / `PlayerPaused` / `PlayerWithdrew` (a leave), `PlayersPaired` (games with ids,
seats and secret seeds), `Berserked` and `GameScored`, then `ArenaClosed` at the end time, and, once
the last running game has scored, `TournamentEnded` (the final order) and `SeedRevealed`. Secrets (the
arena seed, the game seeds) sit in fields named `seed` and are stripped by `redact` until the end.

The pause, the leave, the final order and the seed's reveal are the competition's shared facts
(`domain.tournament.facts`, tagged `tournament.*`), written and folded by every format; the rest here is
the arena's own. Arena logs written before the facts were shared name them `arena.PlayerPaused`,
`arena.PlayerLeft`, `arena.ArenaEnded` and `arena.SeedRevealed`, read as the shared classes (`RENAMED`).
"""

from __future__ import annotations

from typing import Optional, Union

import msgspec

from domain.tournament.codec import Fact, Opened
from domain.tournament.facts import RENAMED, PlayerPaused, PlayerWithdrew, SeedRevealed, TournamentEnded

__all__ = ["RENAMED", "ArenaClosed", "ArenaCreated", "ArenaEvent", "ArenaGame", "Berserked", "GameScored",
           "PlayerJoined", "PlayerPaused", "PlayerWithdrew", "PlayersPaired", "SeedRevealed", "TournamentEnded"]

class ArenaCreated(Opened, tag="arena.ArenaCreated", kw_only=True):
    """An arena: its settings (`Opened`'s, and its times and berserk), the seed's commitment."""

    arena_id: str
    starts_at_ms: int
    ends_at_ms: int
    berserk: bool
    berserk_moves: int = 0  # own moves a berserk needs for its bonus (0, as every earlier log reads: none)


class PlayerJoined(Fact, tag="arena.PlayerJoined", omit_defaults=True):  # `by` only when set: stored logs read as written
    """A player joined, or came back after a pause (their points kept); `by` the organiser who entered
    them (None, as every earlier log reads: the player themselves)."""

    player_id: str
    name: str
    rating: int
    by: Optional[str] = None


class ArenaGame(msgspec.Struct, frozen=True, kw_only=True):
    """One game paired: `number` counts the arena's games from 1; `players` in seat order; `seed` is secret."""

    number: int
    game_id: str
    players: list[str]
    seed: Optional[str] = None


class PlayersPaired(Fact, tag="arena.PlayersPaired"):
    """At `at_ms`, the free players listed in `games` were paired, each game starting now."""

    at_ms: int
    games: list[ArenaGame]


class Berserked(Fact, tag="arena.Berserked"):
    """`player_id` halved their clock in `game_id`."""

    game_id: str
    player_id: str


class GameScored(Fact, tag="arena.GameScored"):
    """A game ended: per seat (in seat order) its rank, the arena points it scored, and whether it was a
    win that counts for a streak; `aborted` games score nothing and leave streaks as they were."""

    game_id: str
    players: list[str]
    ranks: list[int]
    points: list[int]
    wins: list[bool]
    aborted: bool = False
    moves: Optional[list[int]] = None  # each seat's own moves, as recorded (None: not counted, earlier logs)


class ArenaClosed(Fact, tag="arena.ArenaClosed"):
    """The end time passed (noticed at `at_ms`): nobody is paired any more; running games still count."""

    at_ms: int


ArenaEvent = Union[ArenaCreated, PlayerJoined, PlayerPaused, PlayerWithdrew, PlayersPaired, Berserked, GameScored,
                   ArenaClosed, TournamentEnded, SeedRevealed]
