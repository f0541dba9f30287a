"""Gold Mine action phase: take a coin, challenge (bet or bats), pass coins, end the turn.

Each action has one predicate shared by `legal` and `decide`. A challenge is
three roll pairs [challenger, defender]; the challenger wins a tied roll and
whoever wins two rolls wins. The bet's coin goes to a free chamber (no coin,
neither duelist on it) chosen by the winner; the bonus and bats dice are
rolled with the challenge and written into `ChallengeResolved`.
"""

from __future__ import annotations

from domain.goldmine.board import has_chamber
from domain.goldmine.commands import Challenge
from domain.goldmine.events import (ChallengeResolved, CoinPlaced, CoinsPassed, CoinTaken, GoldmineEvent,
                                    TurnCapReached, TurnEnded)
from domain.goldmine.state import GoldmineState, cells, partner, position
from domain.kernel import Rng, RuleViolation

Refusal = tuple[str, str]


def take_coin_refusal(state: GoldmineState) -> Refusal | None:
    """Why the player in turn may not take a coin now (None: he may)."""
    if state.phase not in ("action", "after_bonus"):
        return ("goldmine.wrong_phase", "a coin is taken after the movement, as the action")
    me = state.pirates[state.current]
    cell = cells(state)[(me.x, me.y)]
    if not (has_chamber(cell.tile) and cell.coin):
        return ("goldmine.no_coin_here", "you do not stand on a gold chamber holding a coin")
    return None


def challenge_refusal(state: GoldmineState, kind: str, target: int) -> Refusal | None:
    """Why the player in turn may not challenge `target` with `kind` (None: he may)."""
    if state.phase != "action":
        return ("goldmine.wrong_phase", "a challenge is the action after the movement")
    seat = state.current
    if not 0 <= target < state.seats or target == seat or target == partner(state, seat):
        return ("goldmine.bad_target", "challenge another pirate, not yourself or your ally")
    me, them = state.pirates[seat], state.pirates[target]
    if (me.bets if kind == "bet" else me.bats) < 1:
        return ("goldmine.no_token_left", f"you have no {kind} token left")
    if kind == "bet":
        if (me.x, me.y) != (them.x, them.y):
            return ("goldmine.not_same_tile", "a bet needs both pirates on the same tile")
        if me.coins < 1 or them.coins < 1:
            return ("goldmine.no_coins", "a bet needs both pirates holding at least one coin")
    return None


def challenges(state: GoldmineState) -> list[Challenge]:
    """Every legal challenge of the player in turn."""
    return [Challenge(kind, target) for kind in ("bet", "bats") for target in range(state.seats)
            if challenge_refusal(state, kind, target) is None]


def free_chambers(state: GoldmineState, one: int, other: int) -> list[tuple[int, int]]:
    """Gold chambers with no coin and neither duelist on them, sorted."""
    taken = {(state.pirates[s].x, state.pirates[s].y) for s in (one, other)}
    return sorted((c.x, c.y) for c in state.board
                  if has_chamber(c.tile) and not c.coin and (c.x, c.y) not in taken)


def pass_refusal(state: GoldmineState, amount: int) -> Refusal | None:
    """Why the player in turn may not pass `amount` coins to the partner (None: he may)."""
    if state.phase != "action":
        return ("goldmine.wrong_phase", "coins are passed as the action after the movement")
    ally = partner(state, state.current)
    if ally is None or position(state.pirates[ally]) != position(state.pirates[state.current]):
        return ("goldmine.no_partner_here", "coins pass only to your ally on the same tile and path")
    if not 1 <= amount <= state.pirates[state.current].coins:
        return ("goldmine.bad_amount", "pass between 1 and the coins you hold")
    return None


def pass_amounts(state: GoldmineState) -> list[int]:
    """Every legal number of coins to pass."""
    return [n for n in range(1, state.pirates[state.current].coins + 1) if pass_refusal(state, n) is None]


def _refuse(refusal: Refusal | None) -> None:
    if refusal is not None:
        raise RuleViolation(*refusal)


def take_coin(state: GoldmineState) -> list[GoldmineEvent]:
    """CoinTaken for the player in turn, or RuleViolation."""
    _refuse(take_coin_refusal(state))
    me = state.pirates[state.current]
    return [CoinTaken(seat=state.current, x=me.x, y=me.y)]


def challenge(state: GoldmineState, command: Challenge, rng: Rng) -> list[GoldmineEvent]:
    """Roll the best-of-three (challenger wins ties) and the bonus/bats die; RuleViolation if not allowed."""
    _refuse(challenge_refusal(state, command.kind, command.target))
    me, them = state.current, command.target
    rolls = [[rng.die(), rng.die()] for _ in range(3)]
    won = sum(1 for mine, theirs in rolls if mine >= theirs)
    winner = me if won >= 2 else them
    coin_moves = command.kind == "bet" and bool(free_chambers(state, me, them))
    needs_die = command.kind == "bats" or winner == me
    return [ChallengeResolved(kind=command.kind, challenger=me, defender=them, rolls=rolls, winner=winner,
                              coin_moves=coin_moves, die=rng.die() if needs_die else 0)]


def place_coin(state: GoldmineState, x: int, y: int) -> list[GoldmineEvent]:
    """The bet winner puts the loser's coin on the free chamber at (x, y)."""
    if state.phase != "bet_coin":
        raise RuleViolation("goldmine.wrong_phase", "no bet coin is waiting to be placed")
    if (x, y) not in free_chambers(state, state.current, state.duelist):
        raise RuleViolation("goldmine.not_a_free_chamber",
                            "the coin goes on a gold chamber with no coin and neither duelist on it")
    loser = state.duelist if state.chooser == state.current else state.current
    return [CoinPlaced(loser=loser, x=x, y=y)]


def pass_coins(state: GoldmineState, amount: int) -> list[GoldmineEvent]:
    """Alliances: give `amount` coins to the partner on the same path."""
    _refuse(pass_refusal(state, amount))
    ally = partner(state, state.current)
    assert ally is not None
    return [CoinsPassed(seat=state.current, to=ally, amount=amount)]


def end_turn(state: GoldmineState) -> list[GoldmineEvent]:
    """TurnEnded (and TurnCapReached when the stall guard is reached)."""
    if state.phase not in ("action", "after_bonus", "done"):
        raise RuleViolation("goldmine.wrong_phase", "finish the movement or the pending decision first")
    events: list[GoldmineEvent] = [TurnEnded(seat=state.current, next=(state.current + 1) % state.seats)]
    cap = state.options.turn_cap
    if cap and state.turns + 1 >= cap:
        events.append(TurnCapReached(turns=state.turns + 1))
    return events
