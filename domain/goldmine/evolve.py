"""Gold Mine evolve: fold one event into the state with the function `EVOLVERS` holds for its type.

Never validates, never draws.

Phase changes follow the event: a finished movement leads to the action
phase (or `after_bonus`/`done` for bonus and bats moves), a resolved challenge
to the decision it owes, `TurnEnded` to the next seat's movement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain.goldmine.components import ENTRANCE, TOKENS
from domain.goldmine.events import (ChallengeResolved, CoinLeft, CoinPlaced, CoinsPassed, CoinTaken, DeadCaveFound,
                                    DiceRolled, FirstPlayerChosen, GameSetUp, GoldmineEvent, HandsDealt,
                                    PirateEscaped, PirateMoved, ScoutMapLaid, Stayed, TileDrawn, TilePlaced,
                                    TileReturned, TilesShuffled, TurnCapReached, TurnEnded)
from domain.goldmine.state import Cell, GoldmineState, Hidden, Phase, Pirate, position
from domain.kernel import evolved

AFTER_MOVE: dict[str, Phase] = {"move": "action", "step": "action", "roll_move": "action", "secret": "action",
                                "bonus": "after_bonus", "bats_move": "done"}


def _hands_dealt(state: GoldmineState, event: HandsDealt) -> GoldmineState:
    return replace(state, hands=tuple(tuple(h) for h in event.hands))


def _tiles_shuffled(state: GoldmineState, event: TilesShuffled) -> GoldmineState:
    return replace(state, hidden=Hidden(stack=tuple(event.stack or ()), scout=tuple(event.scout or ())))


def _first_player_chosen(state: GoldmineState, event: FirstPlayerChosen) -> GoldmineState:
    return replace(state, first=event.seat, current=event.seat, chooser=event.seat, mover=event.seat)


def _tile_drawn(state: GoldmineState, event: TileDrawn) -> GoldmineState:
    return _drawn(state, event)


def _tile_returned(state: GoldmineState, event: TileReturned) -> GoldmineState:
    stack = list(state.hidden.stack)
    stack.insert(event.depth or 0, event.tile)
    return replace(state, drawn=None, hidden=replace(state.hidden, stack=tuple(stack)))


def _tile_placed(state: GoldmineState, event: TilePlaced) -> GoldmineState:
    board = tuple(sorted((*state.board, Cell(event.x, event.y, event.tile, event.rotation, event.coin)),
                         key=lambda c: (c.x, c.y)))
    if state.phase == "scout":
        return replace(state, board=board, drawn=None, current=(state.current + 1) % state.seats)
    return replace(state, board=board, drawn=None, phase="step", last_placed=(event.x, event.y))


def _scout_map_laid(state: GoldmineState, event: ScoutMapLaid) -> GoldmineState:
    return _turn_starts(state, event.seat)


def _dice_rolled(state: GoldmineState, event: DiceRolled) -> GoldmineState:
    if event.purpose == "move":
        return replace(state, phase="roll_move", die=event.dice[0])
    a, b = event.dice
    if a == b or a + b == 7:
        return replace(state, phase="secret", die=0)
    return replace(state, phase="roll_move", die=min(a, b))


def _stayed(state: GoldmineState, event: Stayed) -> GoldmineState:
    return replace(state, phase=AFTER_MOVE[state.phase])


def _pirate_moved(state: GoldmineState, event: PirateMoved) -> GoldmineState:
    pirates = _with(state, event.seat, x=event.x, y=event.y, path=event.path)
    return replace(state, pirates=pirates, phase=AFTER_MOVE[state.phase])


def _pirate_escaped(state: GoldmineState, event: PirateEscaped) -> GoldmineState:
    return replace(state, winners=tuple(sorted(event.seats)))


def _coin_taken(state: GoldmineState, event: CoinTaken) -> GoldmineState:
    pirates = _with(state, event.seat, coins=state.pirates[event.seat].coins + 1)
    return replace(state, pirates=pirates, board=_coin(state, event.x, event.y, False), phase="done")


def _challenge_resolved(state: GoldmineState, event: ChallengeResolved) -> GoldmineState:
    return _challenged(state, event)


def _coin_placed(state: GoldmineState, event: CoinPlaced) -> GoldmineState:
    pirates = _with(state, event.loser, coins=state.pirates[event.loser].coins - 1)
    state = replace(state, pirates=pirates, board=_coin(state, event.x, event.y, True))
    return _after_bet(state)


def _coin_left(state: GoldmineState, event: CoinLeft) -> GoldmineState:
    return _after_bet(state)


def _coins_passed(state: GoldmineState, event: CoinsPassed) -> GoldmineState:
    pirates = _with(state, event.seat, coins=state.pirates[event.seat].coins - event.amount)
    pirates = _with(replace(state, pirates=pirates), event.to, coins=pirates[event.to].coins + event.amount)
    return replace(state, pirates=pirates, phase="done")


def _turn_ended(state: GoldmineState, event: TurnEnded) -> GoldmineState:
    return replace(_turn_starts(state, event.next), turns=state.turns + 1)


def _turn_cap_reached(state: GoldmineState, event: TurnCapReached) -> GoldmineState:
    return replace(state, capped=True)


def _dead_cave_found(state: GoldmineState, event: DeadCaveFound) -> GoldmineState:
    return replace(state, dead_cave=True)


EVOLVERS: dict[type, Callable[[GoldmineState, Any], GoldmineState]] = {
    HandsDealt: _hands_dealt, TilesShuffled: _tiles_shuffled, FirstPlayerChosen: _first_player_chosen,
    TileDrawn: _tile_drawn, TileReturned: _tile_returned, TilePlaced: _tile_placed, ScoutMapLaid: _scout_map_laid,
    DiceRolled: _dice_rolled, Stayed: _stayed, PirateMoved: _pirate_moved, PirateEscaped: _pirate_escaped,
    CoinTaken: _coin_taken, ChallengeResolved: _challenge_resolved, CoinPlaced: _coin_placed, CoinLeft: _coin_left,
    CoinsPassed: _coins_passed, TurnEnded: _turn_ended, TurnCapReached: _turn_cap_reached,
    DeadCaveFound: _dead_cave_found,
}


def evolve(state: GoldmineState | None, event: GoldmineEvent) -> GoldmineState:
    """The state after `event`."""
    if isinstance(event, GameSetUp):
        return GoldmineState(
            options=event.options, seats=event.seats, target=event.target, hidden=Hidden(),
            board=(Cell(0, 0, ENTRANCE, 0),),
            pirates=tuple(Pirate(0, 0, 0, 0, TOKENS, TOKENS) for _ in range(event.seats)),
            hands=tuple(() for _ in range(event.seats)))
    assert state is not None, "a goldmine stream starts with GameSetUp"
    return evolved(EVOLVERS, state, event)


def _drawn(state: GoldmineState, event: TileDrawn) -> GoldmineState:
    hidden, hands = state.hidden, state.hands
    if event.source == "scout":
        hidden = replace(hidden, scout=tuple(t for t in hidden.scout if t != event.tile))
    elif event.source == "stack":
        hidden = replace(hidden, stack=tuple(t for t in hidden.stack if t != event.tile))
    else:
        hands = tuple(tuple(t for t in h if t != event.tile) if s == event.seat else h
                      for s, h in enumerate(hands))
    phase: Phase = "scout" if state.phase == "scout" else "place"
    return replace(state, hidden=hidden, hands=hands, drawn=event.tile, phase=phase)


def _challenged(state: GoldmineState, event: ChallengeResolved) -> GoldmineState:
    me = state.pirates[event.challenger]
    spent = {"bets": me.bets - 1} if event.kind == "bet" else {"bats": me.bats - 1}
    state = replace(state, pirates=_with(state, event.challenger, **spent), die=event.die,
                    challenger_won=event.winner == event.challenger, duelist=event.defender)
    loser = event.defender if event.winner == event.challenger else event.challenger
    if event.kind == "bats":
        return replace(state, phase="bats_move", chooser=event.winner, mover=loser)
    if event.coin_moves:
        return replace(state, phase="bet_coin", chooser=event.winner)
    return _after_bet(state)


def _after_bet(state: GoldmineState) -> GoldmineState:
    """After a bet's coin is settled: the challenger's bonus move if he won, else the turn's end."""
    if state.challenger_won:
        me = state.pirates[state.current]
        return replace(state, phase="bonus", chooser=state.current, mover=state.current, origin=position(me))
    return replace(state, phase="done", chooser=state.current)


def _turn_starts(state: GoldmineState, seat: int) -> GoldmineState:
    return replace(state, current=seat, chooser=seat, mover=seat, phase="move", die=0, drawn=None,
                   challenger_won=False, origin=position(state.pirates[seat]))


def _with(state: GoldmineState, seat: int, **changes: int) -> tuple[Pirate, ...]:
    return tuple(replace(p, **changes) if s == seat else p for s, p in enumerate(state.pirates))


def _coin(state: GoldmineState, x: int, y: int, coin: bool) -> tuple[Cell, ...]:
    return tuple(replace(c, coin=coin) if (c.x, c.y) == (x, y) else c for c in state.board)
