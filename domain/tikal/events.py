"""Tikal events: the facts of a game, past tense, folded by `evolve`.

`StackShuffled` is the only event carrying secrets (the stack order and the
face-down treasure order); `redact` blanks it for every seat. Every other
event is public: a drawn tile or a dug treasure is face up from then on.
"""

from __future__ import annotations

from typing import Literal, Optional, Union

import msgspec


class _Event(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class StackShuffled(_Event, tag="tikal.StackShuffled"):
    """The lettered stack (top first) and the face-down treasure supply (top first); secret."""

    tiles: Optional[list[str]]
    treasures: Optional[list[str]]


class GameSetUp(_Event, tag="tikal.GameSetUp"):
    seats: int
    first_seat: int
    variant: Literal["standard", "auction"]
    edition: Literal["original", "classic"]
    start_score: int


class TileDrawn(_Event, tag="tikal.TileDrawn"):
    """Standard variant: `seat` drew the top tile; it is now face up in his hand."""

    seat: int
    tile: str


class TilesRevealed(_Event, tag="tikal.TilesRevealed"):
    """Auction variant: a new round; these tiles come off the stack face up and every totem turns up."""

    tiles: list[str]


class AuctionOpened(_Event, tag="tikal.AuctionOpened"):
    """Auction variant: bidding for the next pick among `bidders`, `bidders[0]` speaks first."""

    bidders: list[int]


class BidMade(_Event, tag="tikal.BidMade"):
    seat: int
    amount: int


class BidPassed(_Event, tag="tikal.BidPassed"):
    seat: int


class AuctionWon(_Event, tag="tikal.AuctionWon"):
    """`seat` picks the next tile, paying `price` points (0 when the tile comes free)."""

    seat: int
    price: int
    free: bool


class TileTaken(_Event, tag="tikal.TileTaken"):
    seat: int
    tile: str


class ScoringRoundStarted(_Event, tag="tikal.ScoringRoundStarted"):
    """A volcano or the final scoring: each seat of `order` in turn takes 10 AP, then scores."""

    kind: Literal["volcano", "final"]
    order: list[int]
    number: int


class TilePlaced(_Event, tag="tikal.TilePlaced"):
    """The tile is placed; a ruins tile receives `tokens` face-down treasures; `seat` then has 10 AP."""

    seat: int
    tile: str
    q: int
    r: int
    rotation: int
    tokens: int = 0
    forced: bool = False


class PieceEntered(_Event, tag="tikal.PieceEntered"):
    """A piece enters from the supply; `explorer` is the entering explorer's id (None: the leader)."""

    seat: int
    q: int
    r: int
    leader: bool
    cost: int
    explorer: Optional[int] = None


class PieceMoved(_Event, tag="tikal.PieceMoved"):
    seat: int
    from_q: int
    from_r: int
    to_q: int
    to_r: int
    leader: bool
    cost: int
    by_camp: bool = False
    explorer: Optional[int] = None  # the walking explorer's id (None: the leader, or an event from before ids)


class LevelUncovered(_Event, tag="tikal.LevelUncovered"):
    """`piece` (0 = the leader, 1.. explorers) uncovered level `value`."""

    seat: int
    q: int
    r: int
    value: int
    cost: int
    piece: Optional[int] = None


class TreasureDug(_Event, tag="tikal.TreasureDug"):
    """`piece` (0 = the leader, 1.. explorers) dug the top token, `treasure`, face up."""

    seat: int
    q: int
    r: int
    treasure: str
    cost: int
    piece: Optional[int] = None


class TreasureTraded(_Event, tag="tikal.TreasureTraded"):
    seat: int
    other: int
    gave: str
    took: str
    cost: int


class CampBuilt(_Event, tag="tikal.CampBuilt"):
    seat: int
    q: int
    r: int
    cost: int


class GuardPlaced(_Event, tag="tikal.GuardPlaced"):
    """One piece becomes the guard (the leader if `guard_is_leader`); the seat's others there leave the game."""

    seat: int
    q: int
    r: int
    guard_is_leader: bool
    explorers_removed: int
    leader_removed: bool
    cost: int


class TurnEnded(_Event, tag="tikal.TurnEnded"):
    seat: int
    ap_lost: int


class PlayerScored(_Event, tag="tikal.PlayerScored"):
    seat: int
    temples: int
    treasures: int
    points: int
    number: int


class PhaseStarted(_Event, tag="tikal.PhaseStarted"):
    """The next seat of a scoring round takes his 10 AP."""

    seat: int


class ScoringRoundEnded(_Event, tag="tikal.ScoringRoundEnded"):
    kind: Literal["volcano", "final"]
    number: int


class GameFinished(_Event, tag="tikal.GameFinished"):
    scores: list[int]
    scorings: int


TikalEvent = Union[StackShuffled, GameSetUp, TileDrawn, TilesRevealed, AuctionOpened, BidMade, BidPassed,
                   AuctionWon, TileTaken, ScoringRoundStarted, TilePlaced, PieceEntered, PieceMoved,
                   LevelUncovered, TreasureDug, TreasureTraded, CampBuilt, GuardPlaced, TurnEnded, PlayerScored,
                   PhaseStarted, ScoringRoundEnded, GameFinished]
