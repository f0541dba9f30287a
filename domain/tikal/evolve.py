"""Folding Tikal events into state: one small function per event type, found through `EVOLVERS`.

No validation, no randomness.
Transitions that follow from the rules (whose bid is next, a ruins tile
taking the top face-down tokens of the supply, an emptied ruins becoming a
clearing) are applied here deterministically; `decide` already checked them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from msgspec.structs import replace

from domain.kernel import evolved
from domain.tikal.components import ACTION_POINTS, EXPLORERS, LEVELS, PRINTED_VOLCANO, START_SPACES, TILES, TREASURE_KINDS
from domain.tikal.events import (AuctionOpened, AuctionWon, BidMade, BidPassed, CampBuilt, GameFinished, GameSetUp,
                                 GuardPlaced, LevelUncovered, PhaseStarted, PieceEntered, PieceMoved, PlayerScored,
                                 ScoringRoundEnded, ScoringRoundStarted, StackShuffled, TikalEvent, TileDrawn,
                                 TilePlaced, TilesRevealed, TileTaken, TreasureDug, TreasureTraded, TurnEnded)
from domain.tikal.state import (LEADER, Auction, Hidden, Mark, Player, RuinsTokens, Space, TikalState, actor,
                                next_explorer, rotated, walker)


def _blank(seats: int, q: int, r: int, tile: str, kind: str, stones: tuple[int, ...], value: int = 0,
           rotation: int = 0) -> Space:
    return Space(q=q, r=r, tile=tile, kind=kind, stones=stones, explorers=(0,) * seats,  # type: ignore[arg-type]
                 leaders=(False,) * seats, value=value, base=value, ids=((),) * seats, rotation=rotation)


def _setup(event: GameSetUp) -> TikalState:
    n = event.seats
    board = [_blank(n, q, r, spec.id, spec.kind, spec.stones, spec.value) for q, r, spec in START_SPACES]
    if event.edition == "classic":
        board.append(_blank(n, *PRINTED_VOLCANO, "printed_volcano", "volcano", (0,) * 6))
    return TikalState(
        seats=n, variant=event.variant, edition=event.edition, first=event.first_seat,
        players=tuple(Player(score=event.start_score, explorers=EXPLORERS) for _ in range(n)),
        board=tuple(sorted(board, key=lambda s: (s.q, s.r))),
        levels=tuple(LEVELS[v] for v in sorted(LEVELS)), hidden=Hidden(stack=(), treasures=()),
        current=event.first_seat)


def _index(board: tuple[Space, ...], q: int, r: int) -> int:
    """Where the space at (q, r) lies on the board, -1 if nowhere."""
    for i, s in enumerate(board):
        if s.q == q and s.r == r:
            return i
    return -1


def _space(state: TikalState, q: int, r: int, **changes) -> tuple[Space, ...]:
    board = state.board
    i = _index(board, q, r)
    return board if i < 0 else (*board[:i], replace(board[i], **changes), *board[i + 1:])


def _at(state: TikalState, q: int, r: int) -> Space:
    i = _index(state.board, q, r)
    if i < 0:
        raise LookupError(f"no space at ({q}, {r})")
    return state.board[i]


def _add(values: tuple, seat: int, delta) -> tuple:
    out = list(values)
    out[seat] = out[seat] + delta if not isinstance(delta, bool) else delta
    return tuple(out)


def _player(state: TikalState, seat: int, **changes) -> tuple[Player, ...]:
    return tuple(replace(p, **changes) if i == seat else p for i, p in enumerate(state.players))


def _pieces(state: TikalState, q: int, r: int, seat: int, piece: int, arrives: bool) -> tuple[Space, ...]:
    """The board after piece `piece` of `seat` arrives on or leaves (q, r)."""
    space = _at(state, q, r)
    if piece == LEADER:
        return _space(state, q, r, leaders=_add(space.leaders, seat, arrives))
    mine = set(space.ids[seat]) | {piece} if arrives else set(space.ids[seat]) - {piece}
    ids = tuple(tuple(sorted(mine)) if i == seat else t for i, t in enumerate(space.ids))
    return _space(state, q, r, explorers=_add(space.explorers, seat, 1 if arrives else -1), ids=ids)


def _walking(state: TikalState, event: PieceMoved) -> int:
    """The piece a move event names; events written before pieces had ids name none."""
    if event.leader:
        return LEADER
    if event.explorer is not None:
        return event.explorer
    space = _at(state, event.from_q, event.from_r)
    found = walker(state, event.seat, space)
    return found if found is not None else space.ids[event.seat][0]


def _acting(state: TikalState, seat: int, q: int, r: int, piece: Optional[int]) -> tuple[Mark, ...]:
    """The marks after a piece of `seat` uncovered or dug on (q, r); older events name no piece."""
    chosen = piece if piece is not None else actor(state, seat, _at(state, q, r))
    return state.acted + (Mark(q=q, r=r, piece=chosen if chosen is not None else LEADER),)


def _fresh_phase(state: TikalState, seat: int) -> TikalState:
    return replace(state, phase="actions", current=seat, ap=ACTION_POINTS, acted=())


def _next_bidder(auction: Auction, after: int) -> int:
    order = auction.bidders
    i = order.index(after)
    for step in range(1, len(order) + 1):
        seat = order[(i + step) % len(order)]
        if seat not in auction.passed:
            return seat
    return after


def _treasure(player: Player, kind: str, delta: int) -> tuple[int, ...]:
    return _add(player.treasures, TREASURE_KINDS.index(kind), delta)


def _stack_shuffled(state: TikalState, event: StackShuffled) -> TikalState:
    return replace(state, hidden=Hidden(stack=tuple(event.tiles or ()), treasures=tuple(event.treasures or ())))


def _tile_drawn(state: TikalState, event: TileDrawn) -> TikalState:
    return replace(state, hidden=replace(state.hidden, stack=state.hidden.stack[1:]), hand=event.tile,
                   current=event.seat, phase="place", ap=0)


def _tiles_revealed(state: TikalState, event: TilesRevealed) -> TikalState:
    return replace(state, hidden=replace(state.hidden, stack=state.hidden.stack[len(event.tiles):]),
                   revealed=tuple(event.tiles), players=tuple(replace(p, totem=True) for p in state.players))


def _auction_opened(state: TikalState, event: AuctionOpened) -> TikalState:
    return replace(state, phase="auction", current=event.bidders[0],
                   auction=Auction(bidders=tuple(event.bidders), current=event.bidders[0]))


def _bid_made(state: TikalState, event: BidMade) -> TikalState:
    assert state.auction is not None
    auction = replace(state.auction, high=event.amount, high_bidder=event.seat)
    auction = replace(auction, current=_next_bidder(auction, event.seat))
    return replace(state, auction=auction, current=auction.current)


def _bid_passed(state: TikalState, event: BidPassed) -> TikalState:
    assert state.auction is not None
    auction = replace(state.auction, passed=state.auction.passed + (event.seat,))
    auction = replace(auction, current=_next_bidder(auction, event.seat))
    return replace(state, auction=auction, current=auction.current)


def _auction_won(state: TikalState, event: AuctionWon) -> TikalState:
    players = _player(state, event.seat, score=state.players[event.seat].score - event.price)
    return replace(state, players=players, auction=None, phase="take", current=event.seat)


def _tile_taken(state: TikalState, event: TileTaken) -> TikalState:
    revealed = list(state.revealed)
    revealed.remove(event.tile)
    return replace(state, revealed=tuple(revealed), hand=event.tile, phase="place", current=event.seat)


def _scoring_round_started(state: TikalState, event: ScoringRoundStarted) -> TikalState:
    owner = event.order[0] if event.kind == "volcano" else None
    return replace(_fresh_phase(state, event.order[0]), round=event.kind, queue=tuple(event.order),
                   round_owner=owner)


def _tile_placed(state: TikalState, event: TilePlaced) -> TikalState:
    spec = TILES[event.tile]
    board = state.board + (_blank(state.seats, event.q, event.r, spec.id, spec.kind,
                                  rotated(spec.stones, event.rotation), spec.value, event.rotation),)
    hidden = state.hidden
    if event.tokens:
        hidden = replace(hidden, treasures=hidden.treasures[event.tokens:], ruins=hidden.ruins + (
            RuinsTokens(q=event.q, r=event.r, kinds=hidden.treasures[:event.tokens]),))
    board = tuple(sorted(board, key=lambda s: (s.q, s.r)))
    if event.tokens:
        board = tuple(replace(s, tokens=event.tokens) if (s.q, s.r) == (event.q, event.r) else s for s in board)
    return replace(_fresh_phase(state, event.seat), board=board, hidden=hidden, hand=None,
                   last_placer=event.seat)


def _piece_entered(state: TikalState, event: PieceEntered) -> TikalState:
    player = state.players[event.seat]
    players = (_player(state, event.seat, leader="board") if event.leader
               else _player(state, event.seat, explorers=player.explorers - 1))
    piece = LEADER if event.leader else (event.explorer or next_explorer(player))
    return replace(state, players=players, ap=state.ap - event.cost,
                   board=_pieces(state, event.q, event.r, event.seat, piece, True))


def _piece_moved(state: TikalState, event: PieceMoved) -> TikalState:
    piece = _walking(state, event)
    moved = replace(state, board=_pieces(state, event.from_q, event.from_r, event.seat, piece, False))
    return replace(moved, ap=state.ap - event.cost,
                   board=_pieces(moved, event.to_q, event.to_r, event.seat, piece, True))


def _level_uncovered(state: TikalState, event: LevelUncovered) -> TikalState:
    levels = list(state.levels)
    levels[event.value - 2] -= 1
    return replace(state, board=_space(state, event.q, event.r, value=event.value), levels=tuple(levels),
                   acted=_acting(state, event.seat, event.q, event.r, event.piece), ap=state.ap - event.cost)


def _treasure_dug(state: TikalState, event: TreasureDug) -> TikalState:
    left = _at(state, event.q, event.r).tokens - 1
    changes = {"tokens": left} if left else {"tokens": 0, "kind": "clearing"}
    ruins = tuple(replace(t, kinds=t.kinds[1:]) for t in state.hidden.ruins if (t.q, t.r) == (event.q, event.r))
    others = tuple(t for t in state.hidden.ruins if (t.q, t.r) != (event.q, event.r))
    hidden = replace(state.hidden, ruins=others + tuple(t for t in ruins if t.kinds))
    players = _player(state, event.seat, treasures=_treasure(state.players[event.seat], event.treasure, 1))
    return replace(state, board=_space(state, event.q, event.r, **changes), hidden=hidden, players=players,
                   acted=_acting(state, event.seat, event.q, event.r, event.piece), ap=state.ap - event.cost)


def _treasure_traded(state: TikalState, event: TreasureTraded) -> TikalState:
    me, other = state.players[event.seat], state.players[event.other]
    players = _player(state, event.seat, treasures=_treasure(_treasure_player(me, event.gave, -1), event.took, 1))
    players = tuple(replace(p, treasures=_treasure(_treasure_player(other, event.took, -1), event.gave, 1))
                    if i == event.other else p for i, p in enumerate(players))
    return replace(state, players=players, ap=state.ap - event.cost)


def _camp_built(state: TikalState, event: CampBuilt) -> TikalState:
    players = _player(state, event.seat, camps=state.players[event.seat].camps + 1)
    return replace(state, board=_space(state, event.q, event.r, camp=event.seat), players=players,
                   ap=state.ap - event.cost)


def _guard_placed(state: TikalState, event: GuardPlaced) -> TikalState:
    space = _at(state, event.q, event.r)
    player = state.players[event.seat]
    gone = event.explorers_removed + (0 if event.guard_is_leader else 1)
    leader = "gone" if (event.guard_is_leader or event.leader_removed) else player.leader
    players = _player(state, event.seat, guards=player.guards + 1, removed=player.removed + gone, leader=leader)
    board = _space(state, event.q, event.r, guard=event.seat, guard_leader=event.guard_is_leader, explorers=_add(space.explorers, event.seat,
                   -space.explorers[event.seat]), leaders=_add(space.leaders, event.seat, False),
                   ids=tuple(() if i == event.seat else t for i, t in enumerate(space.ids)))
    return replace(state, board=board, players=players, ap=state.ap - event.cost)


def _turn_ended(state: TikalState, event: TurnEnded) -> TikalState:
    players = state.players
    if state.variant == "auction" and state.round is None:
        players = _player(state, event.seat, totem=False)
    return replace(state, ap=0, players=players)


def _player_scored(state: TikalState, event: PlayerScored) -> TikalState:
    players = _player(state, event.seat, score=state.players[event.seat].score + event.points)
    return replace(state, players=players, queue=state.queue[1:])


def _phase_started(state: TikalState, event: PhaseStarted) -> TikalState:
    return _fresh_phase(state, event.seat)


def _scoring_round_ended(state: TikalState, event: ScoringRoundEnded) -> TikalState:
    after = replace(state, scorings=event.number, round=None, queue=(), round_owner=None)
    if event.kind == "volcano" and state.round_owner is not None:
        return replace(after, phase="place", current=state.round_owner, ap=0)
    return after


def _game_finished(state: TikalState, event: GameFinished) -> TikalState:
    return replace(state, phase="over", final_scores=tuple(event.scores), ap=0)


EVOLVERS: dict[type, Callable[[TikalState, Any], TikalState]] = {
    StackShuffled: _stack_shuffled, TileDrawn: _tile_drawn, TilesRevealed: _tiles_revealed,
    AuctionOpened: _auction_opened, BidMade: _bid_made, BidPassed: _bid_passed, AuctionWon: _auction_won,
    TileTaken: _tile_taken, ScoringRoundStarted: _scoring_round_started, TilePlaced: _tile_placed,
    PieceEntered: _piece_entered, PieceMoved: _piece_moved, LevelUncovered: _level_uncovered,
    TreasureDug: _treasure_dug, TreasureTraded: _treasure_traded, CampBuilt: _camp_built,
    GuardPlaced: _guard_placed, TurnEnded: _turn_ended, PlayerScored: _player_scored, PhaseStarted: _phase_started,
    ScoringRoundEnded: _scoring_round_ended, GameFinished: _game_finished,
}


def evolve(state: Optional[TikalState], event: TikalEvent) -> TikalState:
    """The state after `event`."""
    if isinstance(event, GameSetUp):
        return _setup(event)
    assert state is not None, "a Tikal stream starts with GameSetUp"
    return evolved(EVOLVERS, state, event)


def _treasure_player(player: Player, kind: str, delta: int) -> Player:
    return replace(player, treasures=_treasure(player, kind, delta))
