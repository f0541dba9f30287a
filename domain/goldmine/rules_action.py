"""Gold Mine action phase: take a coin, challenge (bet or bats), settle a bet's coin, pass coins, end
the turn; and the dead-cave check that ends a game nobody can win any more.

Each command has one predicate (`RuleViolation | None`) shared by `legal` and
`decide`. A challenge is three roll pairs [challenger, defender]; the
challenger wins a tied roll and whoever wins two rolls wins. The bet's
winner may put the loser's coin on a free chamber (no coin, neither duelist
on it) or leave it with the loser; the bonus and bats dice are rolled with
the challenge and written into `ChallengeResolved`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from domain.goldmine.board import Cells, Pos, any_fits, has_chamber, neighbours, secret_positions
from domain.goldmine.commands import Challenge, EndTurn, LeaveCoin, PassCoins, PlaceCoin, TakeCoin
from domain.goldmine.events import (ChallengeResolved, CoinLeft, CoinPlaced, CoinsPassed, CoinTaken,
                                    GoldmineEvent, TilePlaced, TurnCapReached, TurnEnded)
from domain.goldmine.state import GoldmineState, cells, partner, position, team_coins
from domain.kernel import Rng, RuleViolation

ActionCommand = TakeCoin | Challenge | PlaceCoin | LeaveCoin | PassCoins | EndTurn


def _wrong_phase(message: str) -> RuleViolation:
    return RuleViolation("goldmine.wrong_phase", message)


def take_coin_refusal(state: GoldmineState) -> RuleViolation | None:
    """Why the player in turn may not take a coin now (None: he may)."""
    if state.phase not in ("action", "after_bonus"):
        return _wrong_phase("a coin is taken after the movement, as the action")
    me = state.pirates[state.current]
    cell = cells(state)[(me.x, me.y)]
    if not (has_chamber(cell.tile) and cell.coin):
        return RuleViolation("goldmine.no_coin_here", "you do not stand on a gold chamber holding a coin")
    return None


def challenge_refusal(state: GoldmineState, kind: str, target: int) -> RuleViolation | None:
    """Why the player in turn may not challenge `target` with `kind` (None: he may)."""
    if state.phase != "action":
        return _wrong_phase("a challenge is the action after the movement")
    seat = state.current
    if not 0 <= target < state.seats or target == seat or target == partner(state, seat):
        return RuleViolation("goldmine.bad_target", "challenge another pirate, not yourself or your ally")
    me, them = state.pirates[seat], state.pirates[target]
    if (me.bets if kind == "bet" else me.bats) < 1:
        return RuleViolation("goldmine.no_token_left", f"you have no {kind} token left")
    if kind == "bet":
        if (me.x, me.y) != (them.x, them.y):
            return RuleViolation("goldmine.not_same_tile", "a bet needs both pirates on the same tile")
        if me.coins < 1 or them.coins < 1:
            return RuleViolation("goldmine.no_coins", "a bet needs both pirates holding at least one coin")
    return None


def free_chambers(state: GoldmineState, one: int, other: int) -> list[tuple[int, int]]:
    """Gold chambers with no coin and neither duelist on them, sorted."""
    taken = {(state.pirates[s].x, state.pirates[s].y) for s in (one, other)}
    return sorted((c.x, c.y) for c in state.board
                  if has_chamber(c.tile) and not c.coin and (c.x, c.y) not in taken)


def coin_refusal(state: GoldmineState, x: int, y: int) -> RuleViolation | None:
    """Why the bet's winner may not put the loser's coin at (x, y) now (None: he may)."""
    if state.phase != "bet_coin":
        return _wrong_phase("no bet coin is waiting to be placed")
    if (x, y) not in free_chambers(state, state.current, state.duelist):
        return RuleViolation("goldmine.not_a_free_chamber",
                             "the coin goes on a gold chamber with no coin and neither duelist on it")
    return None


def pass_refusal(state: GoldmineState, amount: int) -> RuleViolation | None:
    """Why the player in turn may not pass `amount` coins to the partner (None: he may)."""
    if state.phase != "action":
        return _wrong_phase("coins are passed as the action after the movement")
    ally = partner(state, state.current)
    if ally is None or position(state.pirates[ally]) != position(state.pirates[state.current]):
        return RuleViolation("goldmine.no_partner_here", "coins pass only to your ally on the same tile and path")
    if not 1 <= amount <= state.pirates[state.current].coins:
        return RuleViolation("goldmine.bad_amount", "pass between 1 and the coins you hold")
    return None


def action_refusal(state: GoldmineState, command: ActionCommand) -> RuleViolation | None:
    """Why an action-phase command may not be sent now (None: it may)."""
    match command:
        case TakeCoin():
            return take_coin_refusal(state)
        case Challenge():
            return challenge_refusal(state, command.kind, command.target)
        case PlaceCoin():
            return coin_refusal(state, command.x, command.y)
        case LeaveCoin():
            return None if state.phase == "bet_coin" else _wrong_phase("no bet coin is waiting")
        case PassCoins():
            return pass_refusal(state, command.amount)
        case EndTurn():
            if state.phase not in ("action", "after_bonus", "done"):
                return _wrong_phase("finish the movement or the pending decision first")
            return None


def action_events(state: GoldmineState, command: ActionCommand, rng: Rng) -> list[GoldmineEvent]:
    """The events of an allowed action-phase command."""
    match command:
        case TakeCoin():
            me = state.pirates[state.current]
            return [CoinTaken(seat=state.current, x=me.x, y=me.y)]
        case Challenge():
            return [_challenge(state, command, rng)]
        case PlaceCoin():
            return [CoinPlaced(loser=_loser(state), x=command.x, y=command.y, by=state.chooser)]
        case LeaveCoin():
            return [CoinLeft(loser=_loser(state), by=state.chooser)]
        case PassCoins():
            ally = partner(state, state.current)
            assert ally is not None
            return [CoinsPassed(seat=state.current, to=ally, amount=command.amount)]
        case EndTurn():
            return _end_turn(state)


def _challenge(state: GoldmineState, command: Challenge, rng: Rng) -> ChallengeResolved:
    """Best of three (challenger wins ties), then the bonus or bats die when one is owed."""
    me, them = state.current, command.target
    rolls = [[rng.die(), rng.die()] for _ in range(3)]
    won = sum(1 for mine, theirs in rolls if mine >= theirs)
    winner = me if won >= 2 else them
    coin_moves = command.kind == "bet" and bool(free_chambers(state, me, them))
    needs_die = command.kind == "bats" or winner == me
    return ChallengeResolved(kind=command.kind, challenger=me, defender=them, rolls=rolls, winner=winner,
                             coin_moves=coin_moves, die=rng.die() if needs_die else 0)


def _loser(state: GoldmineState) -> int:
    return state.duelist if state.chooser == state.current else state.current


def _end_turn(state: GoldmineState) -> list[GoldmineEvent]:
    """TurnEnded (and TurnCapReached when the stall guard, `max_rounds` rounds of turns, is reached;
    the event keeps its first name so stored logs replay)."""
    events: list[GoldmineEvent] = [TurnEnded(seat=state.current, next=(state.current + 1) % state.seats)]
    cap = state.options.max_rounds * state.seats
    if cap and state.turns + 1 >= cap:
        events.append(TurnCapReached(turns=state.turns + 1))
    return events


CAVE_CHANGES = (TilePlaced, CoinTaken, CoinPlaced, CoinLeft, ChallengeResolved, CoinsPassed)
"""The events that can make a cave dead: a pirate's move stays within its region, so it never can."""


def dead_cave(state: GoldmineState) -> bool:
    """Whether nobody can win any more (spec "Dead cave"): nobody holds the target, no coin on the board
    lies where a pirate can walk or pass by a secret passage, no bet can move a coin, no tile fits."""
    if state.over or state.phase in ("scout", "place", "bet_coin"):
        return False
    if any(team_coins(state, s) >= state.target for s in range(state.seats)):
        return False
    board = cells(state)
    starts = [position(p) for p in state.pirates]
    if _reach(board, starts, lambda pos: board[(pos[0], pos[1])].coin) is None:
        return False
    regions: list[set[Pos]] = []
    for start in starts:  # (reaching is mutual, walking and by secret passage: pirates of one region share it)
        regions.append(next((r for r in regions if start in r), None) or _reach(board, [start]) or set())
    spots = {(x, y) for region in regions for x, y, _ in region}
    if _bet_can_move_a_coin(state, regions, spots):
        return False
    hands = [t for hand in state.hands for t in hand]
    return not any_fits(board, [*state.hidden.stack, *hands])


def _reach(board: Cells, starts: list[Pos], stop: Callable[[Pos], bool] = lambda pos: False) -> set[Pos] | None:
    """Positions reached from `starts` on foot (mud only slows) or by a secret passage; None as soon
    as one of them is a `stop`."""
    secrets = secret_positions(board)
    secret = set(secrets)
    seen, queue = set(starts), deque(starts)
    while queue:
        pos = queue.popleft()
        if stop(pos):
            return None
        jumps = secrets if pos in secret else []
        for nxt in [*neighbours(board, pos), *jumps]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def _bet_can_move_a_coin(state: GoldmineState, regions: list[set[Pos]], spots: set[tuple[int, int]]) -> bool:
    """Two rival pirates holding coins can meet, one has a bet token, and a coinless chamber is in reach."""
    if not any(has_chamber(cell.tile) and not cell.coin
               for cell in state.board if (cell.x, cell.y) in spots):
        return False
    for a, me in enumerate(state.pirates):
        for b, them in enumerate(state.pirates):
            rivals = a != b and b != partner(state, a)
            if rivals and me.bets and me.coins and them.coins and position(them) in regions[a]:
                return True
    return False
