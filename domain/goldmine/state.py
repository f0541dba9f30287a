"""Gold Mine state: options, the placed tiles, the pirates, the turn's phase.

Everything is a frozen msgspec Struct of tuples so a replayed state encodes
to the same JSON as the live one. The only secrets (the draw stack's order
and the undrawn scout tiles) live in `GoldmineState.hidden`.

Phases of a turn: `scout` (lay the scout map), `move` (choose a movement),
`place` (place the drawn tile), `step` (optional step onto it), `roll_move`
(destination within `die` steps), `secret` (destination: another secret
passage), `action` (take a coin, challenge, pass coins or end), `bet_coin`
(the bet's winner may put the loser's coin on a chamber), `bonus` (the challenger's
bonus move), `bats_move` (the bats winner moves the loser), `after_bonus`
(take a coin or end) and `done` (end the turn). The game is `over` once a
pirate (or team) escaped, the stall guard was reached (`capped`) or nobody
can win any more (`dead_cave`).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.goldmine.board import Cell, Cells, fits, has_chamber
from domain.goldmine.components import ALL_TILES, ENTRANCE, design
from domain.goldmine.options import GoldmineOptions

Phase = Literal["scout", "move", "place", "step", "roll_move", "secret", "action",
                "bet_coin", "bonus", "bats_move", "after_bonus", "done"]


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
    dead_cave: bool = False

    @property
    def over(self) -> bool:
        return bool(self.winners) or self.capped or self.dead_cave


_LAST_BOARD: list = [None, {}]
"""The last board tuple and its cells by (x, y): legal asks for the same board many times."""


def cells(state: GoldmineState) -> dict[tuple[int, int], Cell]:
    """The placed tiles by (x, y); the caller must not change the mapping."""
    if _LAST_BOARD[0] is not state.board:
        _LAST_BOARD[:] = [state.board, {(c.x, c.y): c for c in state.board}]
    return _LAST_BOARD[1]


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


def invariants(state: GoldmineState) -> None:
    """AssertionError when the state breaks a rule of the components (the shared harness calls it)."""
    held = [c.tile for c in state.board] + list(state.hidden.stack) + list(state.hidden.scout)
    held += [t for hand in state.hands for t in hand] + ([state.drawn] if state.drawn else [])
    assert sorted(held) == sorted(ALL_TILES), "every tile is in exactly one place"
    board = cells(state)
    assert len(board) == len(state.board), "one tile per cell"
    chambers = sum(1 for c in state.board if has_chamber(c.tile))
    coins = sum(p.coins for p in state.pirates) + sum(1 for c in state.board if c.coin)
    assert coins == chambers, "each placed chamber brought one coin, none is lost or made"
    assert all(not c.coin or has_chamber(c.tile) for c in state.board), "coins lie only on chambers"
    for pirate in state.pirates:
        cell = board.get((pirate.x, pirate.y))
        assert cell is not None and 0 <= pirate.path < len(design(cell.tile).paths), "pirates stand on a path"
        assert 0 <= pirate.bets <= 3 and 0 <= pirate.bats <= 3 and pirate.coins >= 0
    others: Cells = dict(board)
    for cell in state.board:
        if cell.tile != ENTRANCE:
            del others[(cell.x, cell.y)]
            matches = fits(others, cell.tile, cell.x, cell.y, cell.rotation)
            others[(cell.x, cell.y)] = cell
            assert matches, f"{cell.tile} matches its neighbours"

