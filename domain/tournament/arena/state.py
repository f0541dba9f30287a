"""Arena state: the fold of its events, with small pure queries.

`players` keeps everyone who joined, in joining order (`index`); `games` maps a game id to its
record (players, whether each berserked, its result once scored). The one secret is `seed`
(hex), revealed at the end.
"""

from __future__ import annotations

from typing import Literal, Optional

import msgspec

from domain.tournament.arena.events import ArenaCreated

Status = Literal["open", "closing", "finished"]
Presence = Literal["active", "paused", "left"]


class Player(msgspec.Struct, frozen=True, kw_only=True):
    """One player and what pairing and scoring need to know: points, the current win `streak`
    (on fire from 2), the game being played, the opponents of the last game and the `sheet` (each
    scored game's points, oldest first)."""

    player_id: str
    name: str
    rating: int
    index: int
    presence: Presence = "active"
    points: int = 0
    games: int = 0
    wins: int = 0
    streak: int = 0
    berserks: int = 0
    firsts: int = 0  # games played from the first seat
    playing: Optional[str] = None
    last_opponents: tuple[str, ...] = ()
    sheet: tuple[int, ...] = ()

    @property
    def fire(self) -> bool:
        """On a streak of two wins or more: the next game scores double."""
        return self.streak >= 2


class GameRecord(msgspec.Struct, frozen=True, kw_only=True):
    number: int
    game_id: str
    players: tuple[str, ...]
    seed: Optional[str] = None
    berserked: tuple[str, ...] = ()
    ranks: Optional[tuple[int, ...]] = None
    points: Optional[tuple[int, ...]] = None
    aborted: bool = False

    @property
    def over(self) -> bool:
        return self.points is not None


class ArenaState(msgspec.Struct, frozen=True, kw_only=True):
    """Everything known about one arena after folding `version` events."""

    settings: ArenaCreated
    seed: str
    players: dict[str, Player] = {}
    games: dict[str, GameRecord] = {}
    running: int = 0
    closed: bool = False
    finished: bool = False
    final: tuple[str, ...] = ()
    version: int = 0
    revealed: bool = False

    @property
    def status(self) -> Status:
        return "finished" if self.finished else "closing" if self.closed else "open"

    @property
    def organiser(self) -> str:
        return self.settings.organiser

    def free(self) -> list[Player]:
        """Players who may be paired now: active and not in a game, in joining order."""
        return [p for p in self.players.values() if p.presence == "active" and p.playing is None]
