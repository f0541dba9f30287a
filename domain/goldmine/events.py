"""Gold Mine events: facts, past tense. Every die and shuffle is written here.

`TilesShuffled` (the stack order and scout tiles) and the depth in
`TileReturned` are the only secret fields; `view.redact` blanks them.
"""

from __future__ import annotations

from typing import Literal, Union

import msgspec

from domain.goldmine.options import GoldmineOptions


class GameSetUp(msgspec.Struct, frozen=True, tag="goldmine.GameSetUp", tag_field="type"):
    """The options, seat count and coin target (public)."""

    options: GoldmineOptions
    seats: int
    target: int


class HandsDealt(msgspec.Struct, frozen=True, tag="goldmine.HandsDealt", tag_field="type"):
    """five_tiles: each seat's face-up tiles."""

    hands: list[list[str]]


class TilesShuffled(msgspec.Struct, frozen=True, tag="goldmine.TilesShuffled", tag_field="type"):
    """The face-down stack (top first) and the scout tiles (next first); secret."""

    stack: list[str] | None
    scout: list[str] | None


class FirstPlayerChosen(msgspec.Struct, frozen=True, tag="goldmine.FirstPlayerChosen", tag_field="type"):
    """Every round of first-player rolls (0 = did not roll that round) and the winner."""

    rolls: list[list[int]]
    seat: int


class TileDrawn(msgspec.Struct, frozen=True, tag="goldmine.TileDrawn", tag_field="type"):
    """A tile turned face up from the scout tiles, the stack or a hand."""

    seat: int
    tile: str
    source: Literal["scout", "stack", "hand"]


class TileReturned(msgspec.Struct, frozen=True, tag="goldmine.TileReturned", tag_field="type"):
    """The drawn tile fitted nowhere and went back into the stack at `depth` (secret)."""

    tile: str
    depth: int | None


class TilePlaced(msgspec.Struct, frozen=True, tag="goldmine.TilePlaced", tag_field="type"):
    """The drawn tile was placed; a gold chamber gets its coin."""

    seat: int
    tile: str
    x: int
    y: int
    rotation: int
    coin: bool


class ScoutMapLaid(msgspec.Struct, frozen=True, tag="goldmine.ScoutMapLaid", tag_field="type"):
    """The scout map is complete; the first player's turn starts."""

    seat: int


class DiceRolled(msgspec.Struct, frozen=True, tag="goldmine.DiceRolled", tag_field="type"):
    """A movement roll: one die (`move`) or two (`secret`)."""

    seat: int
    dice: list[int]
    purpose: Literal["move", "secret"]


class Stayed(msgspec.Struct, frozen=True, tag="goldmine.Stayed", tag_field="type"):
    """The pirate being moved (`seat`'s) did not move; `by` is the seat that chose so (the bats winner
    moves another seat's pirate; None in logs from before the field)."""

    seat: int
    by: int | None = None


class PirateMoved(msgspec.Struct, frozen=True, tag="goldmine.PirateMoved", tag_field="type"):
    """A pirate now stands on (x, y, path); `by` is the seat that moved it."""

    seat: int
    x: int
    y: int
    path: int
    by: int


class PirateEscaped(msgspec.Struct, frozen=True, tag="goldmine.PirateEscaped", tag_field="type"):
    """The pirate (or team) left the mine with enough coins and won."""

    seats: list[int]


class CoinTaken(msgspec.Struct, frozen=True, tag="goldmine.CoinTaken", tag_field="type"):
    """A pirate took the coin of the chamber at (x, y)."""

    seat: int
    x: int
    y: int


class ChallengeResolved(msgspec.Struct, frozen=True, tag="goldmine.ChallengeResolved", tag_field="type"):
    """A bet or bats challenge: the three roll pairs [challenger, defender], the winner,
    whether the bet's winner may move a coin to a chamber (bet), and the die of the bonus or bats move."""

    kind: Literal["bet", "bats"]
    challenger: int
    defender: int
    rolls: list[list[int]]
    winner: int
    coin_moves: bool
    die: int


class CoinPlaced(msgspec.Struct, frozen=True, tag="goldmine.CoinPlaced", tag_field="type"):
    """The bet's loser's coin now lies on the chamber at (x, y); `by` is the bet's winner who placed it
    (None in logs from before the field)."""

    loser: int
    x: int
    y: int
    by: int | None = None


class CoinLeft(msgspec.Struct, frozen=True, tag="goldmine.CoinLeft", tag_field="type"):
    """The bet's winner (`by`; None in logs from before the field) chose not to take a coin from the loser."""

    loser: int
    by: int | None = None


class CoinsPassed(msgspec.Struct, frozen=True, tag="goldmine.CoinsPassed", tag_field="type"):
    """Alliances: coins given to the partner."""

    seat: int
    to: int
    amount: int


class TurnEnded(msgspec.Struct, frozen=True, tag="goldmine.TurnEnded", tag_field="type"):
    """The turn is over; `next` plays now."""

    seat: int
    next: int


class TurnCapReached(msgspec.Struct, frozen=True, tag="goldmine.TurnCapReached", tag_field="type"):
    """The stall guard ended the game after `turns` turns."""

    turns: int


class DeadCaveFound(msgspec.Struct, frozen=True, tag="goldmine.DeadCaveFound", tag_field="type"):
    """Nobody can win any more (no tile fits, no coin within reach, no bet can move one): the game ends."""

    turns: int


GoldmineEvent = Union[GameSetUp, HandsDealt, TilesShuffled, FirstPlayerChosen, TileDrawn, TileReturned,
                      TilePlaced, ScoutMapLaid, DiceRolled, Stayed, PirateMoved, PirateEscaped, CoinTaken,
                      ChallengeResolved, CoinPlaced, CoinLeft, CoinsPassed, TurnEnded, TurnCapReached,
                      DeadCaveFound]
