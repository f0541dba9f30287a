"""Arena commands: imperative, sent by the organiser, a player or the platform.

`CreateArena` is decided by `create()` (the service supplies the id, the secret seed and the time
of creation); every other command goes through `decide()`. `Pair`, `Close` and `RecordResult` come
from the platform (the arena process manager), which hands in the time as `at_ms`: the domain reads
no clock, so replaying a command with its recorded time decides the same again.
"""

from __future__ import annotations

from typing import Optional, Union


from domain.kernel import Outcome
from domain.tournament.codec import Order, Setup
from domain.tournament.commands import Pause, Withdraw as Leave

# A player's pause and leave are the competition's own commands, whatever the format (`tournament.Pause`,
# `tournament.Withdraw`): in an arena `Pause` stops the pairing (a running game is played out) and `Join`
# resumes it with the points kept; `Leave` (a withdrawal) is for good, the points scored staying in the
# standings. A player pauses and leaves only for themselves here (`player_id` None or their own).
__all__ = ["ArenaCommand", "Berserk", "Close", "CreateArena", "Join", "Leave", "Pair", "Pause", "RecordResult"]




class CreateArena(Setup, tag="arena.CreateArena", kw_only=True):
    """Open an arena of `kind` at `seats` players a game, from `starts_at_ms` for `minutes` minutes.

    `options` and `time_control` are opaque here and passed on to every game. `berserk` lets a
    player halve their own clock in a game for a bonus point on a win (it needs a chess clock,
    `time_control.total_seconds`; the service checks it); the bonus counts only once the berserker has
    made `berserk_moves` moves of their own in the game (None: the kind's default, `BERSERK_MOVES`), so a
    berserk followed by an early resignation or a quick loss on time farms nothing.
    """

    minutes: int = 10
    starts_at_ms: int = 0
    berserk: bool = True
    berserk_moves: Optional[int] = None


class Join(Order, tag="arena.Join"):
    """Take part (or come back after a pause) under a display name and rating; the organiser may enter
    another player, `player_id` (a bot the organiser added), who then plays for themselves."""

    name: str
    rating: int = 1500
    player_id: Optional[str] = None


class Berserk(Order, tag="arena.Berserk"):
    """Halve one's own clock in `game_id` (before one's first move there) for a bonus point on a win."""

    game_id: str


class Pair(Order, tag="arena.Pair"):
    """Platform: pair the players free at `at_ms` (refused when nobody can be paired)."""

    at_ms: int


class Close(Order, tag="arena.Close"):
    """Platform: the arena's time is up at `at_ms`; games running finish and count."""

    at_ms: int


class RecordResult(Order, tag="arena.RecordResult"):
    """Platform: the outcome of one of the arena's games (None: aborted, it scores nothing)."""

    game_id: str
    outcome: Optional[Outcome] = None
    moves: Optional[list[int]] = None  # each seat's own moves in the game (None: not counted)


ArenaCommand = Union[Join, Pause, Leave, Berserk, Pair, Close, RecordResult]
