"""Tikal's game flow: `decide`, `legal`, `to_act` and `outcome` across phases.

Phases: `place` (the tile in hand goes on the board, rules_place.py),
`actions` (10 AP ended by EndTurn, rules_actions.py), and in the auction
variant `auction` (bids and passes) and `take` (the winner picks a revealed
tile). Volcano and final scoring rounds are sequences of 10-AP phases, each
closed by that seat's scoring. `decide` folds its events as it goes
(`kernel.Emitter`) so follow-up events see the new state.
"""

from __future__ import annotations

from typing import Any, Optional

import msgspec

from domain.kernel import Emitter, Outcome, Rng, RuleViolation, ranked, require
from domain.tikal.commands import Bid, EndTurn, Pass, PlaceTile, TakeTile, TikalCommand
from domain.tikal.components import TILES
from domain.tikal.events import (AuctionOpened, AuctionWon, BidMade, BidPassed, GameFinished, PhaseStarted,
                                 PlayerScored, ScoringRoundEnded, ScoringRoundStarted, TikalEvent, TileDrawn,
                                 TilePlaced, TilesRevealed, TileTaken, TurnEnded)
from domain.tikal.evolve import evolve
from domain.tikal.rules_actions import action_events, action_refusal, legal_actions
from domain.tikal.rules_place import is_forced, legal_placements, placement_refusal
from domain.tikal.state import TikalState, controller, left_of, ring, temple_points, treasure_points

Emit = Emitter[TikalState, TikalEvent]


def draw(state: TikalState, seat: int) -> list[TikalEvent]:
    """Standard variant: `seat` draws the top tile; a volcano starts a scoring round."""
    tile = state.hidden.stack[0]
    return [TileDrawn(seat=seat, tile=tile)] + _volcano_check(state, seat, tile)


def _volcano_check(state: TikalState, seat: int, tile: str) -> list[TikalEvent]:
    if TILES[tile].kind != "volcano":
        return []
    return [ScoringRoundStarted(kind="volcano", order=ring(state, seat), number=state.scorings + 1)]


def new_round(state: TikalState, opener: int) -> list[TikalEvent]:
    """Auction variant: reveal one tile per seat and open the first auction."""
    tiles = list(state.hidden.stack[:state.seats])
    return [TilesRevealed(tiles=tiles), AuctionOpened(bidders=ring(state, opener))]


def _final_round(state: TikalState) -> list[TikalEvent]:
    order = ring(state, left_of(state, state.current))
    if state.variant == "auction":
        order.sort(key=lambda seat: state.players[seat].score)  # stable: ties keep turn order
    return [ScoringRoundStarted(kind="final", order=order, number=state.scorings + 1)]


def _after_turn(state: TikalState) -> list[TikalEvent]:
    """What follows a normal turn: the next draw or auction, or the final scoring."""
    if not state.hidden.stack and not state.revealed:
        return _final_round(state)
    if state.variant == "standard":
        return draw(state, left_of(state, state.current))
    if not state.revealed:
        return new_round(state, left_of(state, state.current))
    up = [s for s in ring(state, left_of(state, state.current)) if state.players[s].totem]
    if len(up) == 1:
        return [AuctionWon(seat=up[0], price=0, free=True)]
    return [AuctionOpened(bidders=up)]


def _score(emit: Emit, seat: int) -> None:
    state = emit.state
    assert state is not None and state.round is not None
    temples, treasures = temple_points(state, seat), treasure_points(state.players[seat])
    number = state.scorings + 1
    emit(PlayerScored(seat=seat, temples=temples, treasures=treasures, points=temples + treasures, number=number))
    if len(state.queue) > 1:
        emit(PhaseStarted(seat=state.queue[1]))
        return
    after = emit(ScoringRoundEnded(kind=state.round, number=number))
    if state.round == "final":
        emit(GameFinished(scores=[p.score for p in after.players], scorings=after.scorings))


def _end_turn(emit: Emit, state: TikalState, seat: int) -> None:
    after = emit(TurnEnded(seat=seat, ap_lost=state.ap))
    if state.round is not None:
        _score(emit, seat)
    else:
        emit(*_after_turn(after))


def _bid_refusal(state: TikalState, seat: int, cmd: TikalCommand) -> RuleViolation | None:
    auction = state.auction
    assert auction is not None
    match cmd:
        case Bid():
            if cmd.amount <= auction.high or cmd.amount < 1:
                return RuleViolation("tikal.bid_too_low", f"bid more than {auction.high} (at least 1)")
            if cmd.amount > state.players[seat].score:
                return RuleViolation("tikal.bid_too_high", "a bid may not exceed your score")
            return None
        case Pass():
            return None
    return RuleViolation("tikal.wrong_phase", "bid or pass: an auction is running")


def _auction_end(state: TikalState) -> list[TikalEvent]:
    auction = state.auction
    assert auction is not None
    active = [s for s in auction.bidders if s not in auction.passed]
    if auction.high_bidder is not None and active == [auction.high_bidder]:
        return [AuctionWon(seat=auction.high_bidder, price=auction.high, free=False)]
    if not active:
        return [AuctionWon(seat=auction.passed[0], price=0, free=True)]
    return []


def _take_refusal(state: TikalState, cmd: TikalCommand) -> RuleViolation | None:
    if not isinstance(cmd, TakeTile):
        return RuleViolation("tikal.wrong_phase", "take one of the revealed tiles first")
    if cmd.tile not in state.revealed:
        return RuleViolation("tikal.not_revealed", f"{cmd.tile} is not among the revealed tiles")
    return None


def _place_refusal(state: TikalState, cmd: TikalCommand) -> RuleViolation | None:
    if not isinstance(cmd, PlaceTile):
        return RuleViolation("tikal.wrong_phase", "place the tile in hand first")
    return placement_refusal(state, cmd.q, cmd.r, cmd.rotation)


def refusal(state: TikalState, seat: int, command: TikalCommand) -> RuleViolation | None:
    """Why `seat` may not send `command` now, or None: the one predicate `decide` and `legal` share."""
    if state.phase == "over":
        return RuleViolation("tikal.game_over", "the game is over")
    if seat not in to_act(state):
        return RuleViolation("tikal.not_your_turn", "another seat must act now")
    if state.phase == "place":
        return _place_refusal(state, command)
    if state.phase == "auction":
        return _bid_refusal(state, seat, command)
    if state.phase == "take":
        return _take_refusal(state, command)
    return action_refusal(state, seat, command)


def decide(state: TikalState, seat: int, command: TikalCommand, rng: Rng) -> list[TikalEvent]:
    """The events `command` from `seat` produces, or RuleViolation."""
    require(refusal(state, seat, command))
    emit = Emitter(evolve, state)
    match command:
        case PlaceTile(q=q, r=r, rotation=rotation):
            tile = state.hand or ""
            emit(TilePlaced(seat=seat, tile=tile, q=q, r=r, rotation=rotation, tokens=TILES[tile].masks,
                            forced=is_forced(state, q, r, rotation)))
        case Bid() | Pass():
            bid = BidMade(seat=seat, amount=command.amount) if isinstance(command, Bid) else BidPassed(seat=seat)
            emit(*_auction_end(emit(bid)))
        case TakeTile(tile=tile):
            emit(TileTaken(seat=seat, tile=tile), *_volcano_check(state, seat, tile))
        case EndTurn():
            _end_turn(emit, state, seat)
        case _:
            emit(*action_events(state, seat, command))
    return emit.events


def to_act(state: TikalState) -> frozenset[int]:
    """The one seat that acts now (none once the game is over)."""
    return frozenset() if state.phase == "over" else frozenset({state.current})


def legal(state: TikalState, seat: int) -> list[Any]:
    """Every command `seat` may send now; [] when it is not his to act.

    Exactly the commands `refusal` lets through, generated directly rather than filtered one by one
    (tests/domain/tikal/test_legal_listing.py keeps that definition and checks the two agree)."""
    if state.phase == "over" or seat != state.current:  # not in to_act(state)
        return []
    if state.phase == "place":
        return [PlaceTile(q, r, rot) for q, r, rot in legal_placements(state)]
    if state.phase == "take":
        return [TakeTile(t) for t in sorted(set(state.revealed))]
    if state.phase == "auction":
        assert state.auction is not None  # bids above the high bid, at least 1, at most the score
        return [Pass()] + [Bid(a) for a in range(max(state.auction.high + 1, 1), state.players[seat].score + 1)]
    return legal_actions(state, seat)


def _tie_keys(state: TikalState, seat: int) -> tuple[int, int]:
    temples = [s for s in state.board if s.kind == "temple"]
    if state.edition == "classic":
        best = max((s.value for s in temples if s.guard == seat), default=0)
    else:
        best = max((s.value for s in temples if controller(s) == seat), default=0)
    return best, sum(state.players[seat].treasures)


def outcome(state: TikalState) -> Optional[Outcome]:
    """Scores, ranks and winners once the game is over: ties broken by the best temple, then treasures."""
    if state.phase != "over":
        return None
    scores = [p.score for p in state.players]
    keys = [(scores[s], *_tie_keys(state, s)) for s in range(state.seats)]
    details = {"scorings": state.scorings, "tie_break": [list(_tie_keys(state, s)) for s in range(state.seats)]}
    return msgspec.structs.replace(ranked(scores, keys), details=details)
