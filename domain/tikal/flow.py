"""Tikal's game flow: setup, `decide`, `legal` and `to_act` across phases.

Phases: `place` (the tile in hand goes on the board), `actions` (10 AP, ended
by EndTurn), and in the auction variant `auction` (bids and passes) and
`take` (the winner picks a revealed tile). Volcano and final scoring rounds
are sequences of 10-AP phases, each closed by that seat's scoring. `decide`
folds its own events as it goes so follow-up events see the new state.
"""

from __future__ import annotations

from typing import Any

from domain.kernel import Rng, RuleViolation
from domain.tikal.commands import (Bid, BuildCamp, CampMove, DigTreasure, EndTurn, EnterPiece, MovePiece, Pass,
                                   PlaceGuard, PlaceTile, TakeTile, TikalCommand, TradeTreasure, UncoverLevel)
from domain.tikal.components import LETTERS, TILES, TREASURE_KINDS, TREASURE_PER_KIND
from domain.tikal.events import (AuctionOpened, AuctionWon, BidMade, BidPassed, CampBuilt, GameFinished, GameSetUp,
                                 GuardPlaced, LevelUncovered, PhaseStarted, PieceEntered, PieceMoved, PlayerScored,
                                 ScoringRoundEnded, ScoringRoundStarted, StackShuffled, TikalEvent, TileDrawn,
                                 TilePlaced, TilesRevealed, TileTaken, TreasureDug, TreasureTraded, TurnEnded)
from domain.tikal.evolve import evolve
from domain.tikal.placement import check_placement, legal_placements
from domain.tikal.rules import (check_ap, cost_of_camp, cost_of_camp_move, cost_of_dig, cost_of_enter, cost_of_guard,
                                cost_of_move, cost_of_trade, cost_of_uncover, legal_actions)
from domain.tikal.state import TikalState, board_map, left_of, ring, temple_points, treasure_points


def setup_events(variant: str, edition: str, seats: int, first: int, start_score: int, rng: Rng) -> list[TikalEvent]:
    """The opening events: the stack (A on top, each letter shuffled), the treasures, the first draw."""
    stack = [t for letter in LETTERS for t in rng.shuffle(sorted(i for i, s in TILES.items() if s.letter == letter))]
    treasures = rng.shuffle([k for k in TREASURE_KINDS for _ in range(TREASURE_PER_KIND)])
    events: list[TikalEvent] = [
        GameSetUp(seats=seats, first_seat=first, variant=variant, edition=edition,  # type: ignore[arg-type]
                  start_score=start_score),
        StackShuffled(tiles=stack, treasures=treasures)]
    state = _fold(None, events)
    return events + (_draw(state, first) if variant == "standard" else _new_round(state, first))


def _fold(state: TikalState | None, events: list[TikalEvent]) -> TikalState:
    for event in events:
        state = evolve(state, event)
    assert state is not None
    return state


def _draw(state: TikalState, seat: int) -> list[TikalEvent]:
    tile = state.hidden.stack[0]
    return [TileDrawn(seat=seat, tile=tile)] + _volcano_check(state, seat, tile)


def _volcano_check(state: TikalState, seat: int, tile: str) -> list[TikalEvent]:
    if TILES[tile].kind != "volcano":
        return []
    return [ScoringRoundStarted(kind="volcano", order=ring(state, seat), number=state.scorings + 1)]


def _new_round(state: TikalState, opener: int) -> list[TikalEvent]:
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
        return _draw(state, left_of(state, state.current))
    if not state.revealed:
        return _new_round(state, left_of(state, state.current))
    up = [s for s in ring(state, left_of(state, state.current)) if state.players[s].totem]
    if len(up) == 1:
        return [AuctionWon(seat=up[0], price=0, free=True)]
    return [AuctionOpened(bidders=up)]


def _scored(state: TikalState, seat: int) -> list[TikalEvent]:
    temples, treasures = temple_points(state, seat), treasure_points(state.players[seat])
    events: list[TikalEvent] = [PlayerScored(seat=seat, temples=temples, treasures=treasures,
                                             points=temples + treasures, number=state.scorings + 1)]
    if len(state.queue) > 1:
        return events + [PhaseStarted(seat=state.queue[1])]
    assert state.round is not None
    events.append(ScoringRoundEnded(kind=state.round, number=state.scorings + 1))
    if state.round == "final":
        after = _fold(state, events)
        events.append(GameFinished(scores=[p.score for p in after.players], scorings=after.scorings))
    return events


def _end_turn(state: TikalState, seat: int) -> list[TikalEvent]:
    events: list[TikalEvent] = [TurnEnded(seat=seat, ap_lost=state.ap)]
    after = _fold(state, events)
    return events + (_scored(after, seat) if state.round is not None else _after_turn(after))


def _place(state: TikalState, seat: int, cmd: PlaceTile) -> list[TikalEvent]:
    forced = check_placement(state, cmd.q, cmd.r, cmd.rotation)
    tile = state.hand or ""
    return [TilePlaced(seat=seat, tile=tile, q=cmd.q, r=cmd.r, rotation=cmd.rotation, tokens=TILES[tile].masks,
                       forced=forced)]


def _guard(state: TikalState, seat: int, cmd: PlaceGuard, cost: int) -> list[TikalEvent]:
    space = board_map(state)[(cmd.q, cmd.r)]
    explorers, leader = space.explorers[seat], space.leaders[seat]
    return [GuardPlaced(seat=seat, q=cmd.q, r=cmd.r, guard_is_leader=explorers == 0,
                        explorers_removed=max(explorers - 1, 0), leader_removed=leader and explorers > 0, cost=cost)]


def _action(state: TikalState, seat: int, cmd: TikalCommand) -> list[TikalEvent]:
    match cmd:
        case EnterPiece():
            cost = check_ap(state, cost_of_enter(state, seat, cmd))
            return [PieceEntered(seat=seat, q=cmd.q, r=cmd.r, leader=cmd.leader, cost=cost)]
        case MovePiece() | CampMove():
            camp = isinstance(cmd, CampMove)
            cost = check_ap(state, cost_of_camp_move(state, seat, cmd) if camp else cost_of_move(state, seat, cmd))
            return [PieceMoved(seat=seat, from_q=cmd.from_q, from_r=cmd.from_r, to_q=cmd.to_q, to_r=cmd.to_r,
                               leader=cmd.leader, cost=cost, by_camp=camp)]
        case UncoverLevel():
            cost = check_ap(state, cost_of_uncover(state, seat, cmd))
            value = board_map(state)[(cmd.q, cmd.r)].value + 1
            return [LevelUncovered(seat=seat, q=cmd.q, r=cmd.r, value=value, cost=cost)]
        case DigTreasure():
            cost = check_ap(state, cost_of_dig(state, seat, cmd))
            top = next(t.kinds[0] for t in state.hidden.ruins if (t.q, t.r) == (cmd.q, cmd.r))
            return [TreasureDug(seat=seat, q=cmd.q, r=cmd.r, treasure=top, cost=cost)]
        case TradeTreasure():
            cost = check_ap(state, cost_of_trade(state, seat, cmd))
            return [TreasureTraded(seat=seat, other=cmd.other, gave=cmd.give, took=cmd.take, cost=cost)]
        case BuildCamp():
            cost = check_ap(state, cost_of_camp(state, seat, cmd))
            return [CampBuilt(seat=seat, q=cmd.q, r=cmd.r, cost=cost)]
        case PlaceGuard():
            return _guard(state, seat, cmd, check_ap(state, cost_of_guard(state, seat, cmd)))
        case EndTurn():
            return _end_turn(state, seat)
    raise RuleViolation("tikal.wrong_phase", f"{type(cmd).__name__} is not allowed during your actions")


def _auction_end(state: TikalState) -> list[TikalEvent]:
    auction = state.auction
    assert auction is not None
    active = [s for s in auction.bidders if s not in auction.passed]
    if auction.high_bidder is not None and active == [auction.high_bidder]:
        return [AuctionWon(seat=auction.high_bidder, price=auction.high, free=False)]
    if not active:
        return [AuctionWon(seat=auction.passed[0], price=0, free=True)]
    return []


def _bidding(state: TikalState, seat: int, cmd: TikalCommand) -> list[TikalEvent]:
    auction = state.auction
    assert auction is not None
    match cmd:
        case Bid():
            if cmd.amount <= auction.high or cmd.amount < 1:
                raise RuleViolation("tikal.bid_too_low", f"bid more than {auction.high} (at least 1)")
            if cmd.amount > state.players[seat].score:
                raise RuleViolation("tikal.bid_too_high", "a bid may not exceed your score")
            events: list[TikalEvent] = [BidMade(seat=seat, amount=cmd.amount)]
        case Pass():
            events = [BidPassed(seat=seat)]
        case _:
            raise RuleViolation("tikal.wrong_phase", "bid or pass: an auction is running")
    return events + _auction_end(_fold(state, events))


def _take(state: TikalState, seat: int, cmd: TikalCommand) -> list[TikalEvent]:
    if not isinstance(cmd, TakeTile):
        raise RuleViolation("tikal.wrong_phase", "take one of the revealed tiles first")
    if cmd.tile not in state.revealed:
        raise RuleViolation("tikal.not_revealed", f"{cmd.tile} is not among the revealed tiles")
    events: list[TikalEvent] = [TileTaken(seat=seat, tile=cmd.tile)]
    return events + _volcano_check(state, seat, cmd.tile)


def decide(state: TikalState, seat: int, command: TikalCommand, rng: Rng) -> list[TikalEvent]:
    """The events `command` from `seat` produces, or RuleViolation."""
    if state.phase == "over":
        raise RuleViolation("tikal.game_over", "the game is over")
    if seat not in to_act(state):
        raise RuleViolation("tikal.not_your_turn", "another seat must act now")
    if state.phase == "place":
        if not isinstance(command, PlaceTile):
            raise RuleViolation("tikal.wrong_phase", "place the tile in hand first")
        return _place(state, seat, command)
    if state.phase == "auction":
        return _bidding(state, seat, command)
    if state.phase == "take":
        return _take(state, seat, command)
    return _action(state, seat, command)


def to_act(state: TikalState) -> frozenset[int]:
    return frozenset() if state.phase == "over" else frozenset({state.current})


def legal(state: TikalState, seat: int) -> list[Any]:
    """Every command `seat` may send now; [] when it is not his to act."""
    if seat not in to_act(state):
        return []
    if state.phase == "place":
        return [PlaceTile(q, r, rot) for q, r, rot in legal_placements(state)]
    if state.phase == "take":
        return [TakeTile(t) for t in sorted(set(state.revealed))]
    if state.phase == "auction":
        assert state.auction is not None
        return [Pass()] + [Bid(a) for a in range(state.auction.high + 1, state.players[seat].score + 1)]
    return legal_actions(state, seat)
