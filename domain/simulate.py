"""Random legal play, the shared harness for every game.

`play_random` seats bots, starts a game and has the seats that must act pick
uniformly among their legal commands until the game ends. Along the way it
checks the contract every game owes: whoever must act has a legal command,
everything `legal` offers `decide` accepts (a sample of the alternatives is
tried too), refolding the whole log reproduces the live state, and every view
and redacted event serialises. Bots draw from their own `Rng`, never the game's.
"""

from __future__ import annotations

from typing import Any, Callable

import msgspec

from domain.kernel import Outcome, Rng, RuleViolation
from domain.table import Table, TableState


class Played(msgspec.Struct, kw_only=True):
    """What one random game did: counts, the outcome, and the first contract breach."""

    commands: int = 0
    events: list[Any] = []
    outcome: Outcome | None = None
    error: str | None = None
    capped: bool = False


def start_table(table: Table, options: dict[str, Any] | None, players: int, seed: bytes) -> tuple[TableState, list[Any]]:
    """A started game with `players` bot seats; returns its state and full log."""
    events = table.create(options, players, seed)
    state = table.fold(events)
    for seat in range(players):
        new = table.join(state, f"bot-{seat}", f"Bot {seat}", seat)
        state = table.fold(new, state)
        events += new
    new = table.start(state, "bot-0")
    state = table.fold(new, state)
    return state, events + new


def pick(bot: Rng, commands: list[Any], weights: list[int] | None) -> Any:
    """A command drawn uniformly, or in proportion to non-negative integer `weights`."""
    if weights is None or len(weights) != len(commands) or sum(weights) <= 0:
        return bot.choice(commands)
    target = bot.below(sum(weights))
    for command, weight in zip(commands, weights):
        if target < weight:
            return command
        target -= weight
    raise AssertionError("unreachable")


def play_random(table: Table, options: dict[str, Any] | None, players: int, seed: bytes,
                max_commands: int = 20000, alternatives: int = 2, check_views: bool = True,
                invariant: Callable[[Any], None] | None = None, heuristic: bool = True,
                on_step: Callable[[TableState, list[Any]], None] | None = None) -> Played:
    """Play one game with random legal commands; never raises for a rules bug, reports it.

    A game may offer `bot_weights(state, seat, commands) -> list[int]` to bias the random choice
    towards sensible play (every command keeps a chance unless its weight is 0); `heuristic=False`
    ignores it and plays uniformly. `on_step(state, new_events)` sees every position reached.
    """
    result = Played()
    bot = Rng(seed + b"/bots", 0)
    weigh = table.game.bot_weights if heuristic else None
    invariant = invariant or table.game.invariants
    try:
        state, events = start_table(table, options, players, seed)
        while state.status == "active":
            if result.commands >= max_commands:
                result.capped = True
                break
            acting = table.to_act(state)
            if not acting:
                result.error = f"v{state.version}: nobody may act in an active game"
                break
            seat = bot.choice(acting)
            options_now = table.legal(state, seat)
            if not options_now:
                result.error = f"v{state.version}: seat {seat} must act but has no legal command"
                break
            for _ in range(min(alternatives, len(options_now) - 1)):
                other = bot.choice(options_now)
                table.play(state, seat, other)  # must not raise
            command = pick(bot, options_now, weigh(state.game, seat, options_now) if weigh else None)
            wire = msgspec.json.decode(msgspec.json.encode(command))
            new = table.play(state, seat, table.decode_command(wire))
            state = table.fold(new, state)
            events += new
            result.commands += 1
            if invariant is not None:
                invariant(state.game)
            if check_views:
                _check_visibility(table, state, new)
            if on_step is not None:
                on_step(state, new)
        result.events = events
        result.outcome = state.outcome
        replayed = table.fold(events)
        if msgspec.json.encode(replayed) != msgspec.json.encode(state):
            result.error = result.error or "replaying the log does not reproduce the state"
    except RuleViolation as exc:
        result.error = f"legal command refused: {exc.code}: {exc.message}"
    except Exception as exc:  # noqa: BLE001 - the harness reports any crash of the rules
        result.error = f"{type(exc).__name__}: {exc}"
    return result


def _check_visibility(table: Table, state: TableState, new: list[Any]) -> None:
    for seat in [None, *range(state.seat_count)]:
        msgspec.json.encode(table.view(state, seat))
        for event in new:
            msgspec.json.encode(table.redact(event, seat, public=False))
