"""Gold Mine state: options, the placed tiles, the pirates, the turn's phase.

Everything is a frozen msgspec Struct of tuples so a replayed state encodes
to the same JSON as the live one. The only secrets (the draw stack's order
and the undrawn scout tiles) live in `GoldmineState.hidden`.

Phases of a turn: `scout` (lay the scout map), `move` (choose a movement),
`place` (place the drawn tile), `step` (optional step onto it), `roll_move`
(destination within `die` steps), `secret` (destination: another secret
passage), `action` (take a coin, challenge, pass coins or end), `bet_coin`
(the bet's winner puts the coin on a chamber), `bonus` (the challenger's
bonus move), `bats_move` (the bats winner moves the loser), `after_bonus`
(take a coin or end) and `done` (end the turn).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

Phase = Literal["scout", "move", "place", "step", "roll_move", "secret", "action",
                "bet_coin", "bonus", "bats_move", "after_bonus", "done"]


class GoldmineOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Variants of Gold Mine; {} is the basic game."""

    mud: Annotated[bool, msgspec.Meta(
        description="Mud puddles: a pirate entering a path with mud stops there (also when moved by bats)")] = False
    five_tiles: Annotated[bool, msgspec.Meta(
        description="Five tiles: each player holds 1 cavern, 2 secret-passage and 2 mud tiles face up and may "
                    "explore with one instead of drawing (2-4 players, needs mud)")] = False
    alliances: Annotated[bool, msgspec.Meta(
        description="Alliances: seats i and i+n/2 form a team that wins together with 12 (4 players) or "
                    "8 (6 players) coins (4 or 6 players)")] = False
    turn_cap: Annotated[int, msgspec.Meta(
        ge=0, description="Stall guard: after this many turns the game ends by coins, then fewest steps "
                          "to the entrance (0 = no cap)")] = 500


class Cell(msgspec.Struct, frozen=True):
    """A placed tile: grid cell, physical tile id, rotation (quarter turns clockwise), coin on it."""

    x: int
    y: int
    tile: str
    rotation: int
    coin: bool = False


class Pirate(msgspec.Struct, frozen=True):
    """A seat's pirate: position (tile cell and path index), coins and tokens left."""

    x: int
    y: int
    path: int
    coins: int = 0
    bets: int = 3
    bats: int = 3


class Hidden(msgspec.Struct, frozen=True):
    """The secrets: draw stack order (top first) and the undrawn scout tiles (next first)."""

    stack: tuple[str, ...] = ()
    scout: tuple[str, ...] = ()


class GoldmineState(msgspec.Struct, frozen=True, kw_only=True):
    """The whole game; `hidden` is the single place holding secrets."""

    options: GoldmineOptions
    seats: int
    target: int
    hidden: Hidden
    board: tuple[Cell, ...]
    pirates: tuple[Pirate, ...]
    hands: tuple[tuple[str, ...], ...] = ()
    first: int = 0
    current: int = 0
    phase: Phase = "scout"
    drawn: str | None = None
    last_placed: tuple[int, int] = (0, 0)
    die: int = 0
    chooser: int = 0
    mover: int = 0
    origin: tuple[int, int, int] = (0, 0, 0)
    challenger_won: bool = False
    duelist: int = 0
    turns: int = 0
    winners: tuple[int, ...] = ()
    capped: bool = False

    @property
    def over(self) -> bool:
        return bool(self.winners) or self.capped


def cells(state: GoldmineState) -> dict[tuple[int, int], Cell]:
    """The placed tiles by (x, y)."""
    return {(c.x, c.y): c for c in state.board}


def position(pirate: Pirate) -> tuple[int, int, int]:
    """A pirate's (x, y, path)."""
    return (pirate.x, pirate.y, pirate.path)


def partner(state: GoldmineState, seat: int) -> int | None:
    """The seat's ally with `alliances`, else None."""
    if not state.options.alliances:
        return None
    half = state.seats // 2
    return (seat + half) % state.seats


def team(state: GoldmineState, seat: int) -> tuple[int, ...]:
    """The seats that win together with `seat` (itself alone without alliances)."""
    ally = partner(state, seat)
    return (seat,) if ally is None else tuple(sorted((seat, ally)))


def team_coins(state: GoldmineState, seat: int) -> int:
    """Coins held by the seat's team."""
    return sum(state.pirates[s].coins for s in team(state, seat))
