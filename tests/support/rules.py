"""Given / when / then for every game's rule tests, one argument order for all kinds.

`given(GAME, *events)` folds events into a state; `when(GAME, state, seat, command)` asserts
that `legal` offers the command, decides it and returns the new state with the events;
`refused(GAME, state, seat, command, code)` asserts the refusal's documented code and that
`legal` does not offer the command. Tests read as the rulebook does.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.kernel import Game, Rng, RuleViolation, fold

RNG_SEED = b"stela-rule-tests"


def rng(version: int = 0, seed: bytes = RNG_SEED) -> Rng:
    """The Rng a test decision draws from (deterministic, like the store's per-version Rng)."""
    return Rng(seed, version)


def given(game: Game, *events: Any) -> Any:
    """The state after `events`, folded from nothing."""
    return fold(game.evolve, None, events)


def started(game: Game, options: Any = None, seats: int = 2, seed: bytes = RNG_SEED) -> Any:
    """The state right after `setup` with `options` (default options when None)."""
    options = options if options is not None else game.options_type()
    return given(game, *game.setup(options, seats, Rng(seed, 0)))


def when(game: Game, state: Any, seat: int, command: Any, rng_: Rng | None = None) -> tuple[Any, list[Any]]:
    """Decide `command` for `seat` (legal() must offer it, or another spelling of it: a command with the
    same events, such as an unnamed piece taking the documented default); the state after it and its events."""
    offered = game.legal(state, seat)
    events = game.decide(state, seat, command, rng_ or rng())
    assert command in offered or any(game.decide(state, seat, c, rng_ or rng()) == events for c in offered), \
        f"{command} is not offered by legal()"
    return fold(game.evolve, state, events), events


def then(game: Game, state: Any, *events: Any) -> Any:
    """`state` after `events` (for a position built from a decision and some facts)."""
    return fold(game.evolve, state, events)


def refused(game: Game, state: Any, seat: int, command: Any, code: str, rng_: Rng | None = None) -> RuleViolation:
    """`decide` refuses `command` with the documented `code`, and `legal` does not offer it."""
    with pytest.raises(RuleViolation) as exc:
        game.decide(state, seat, command, rng_ or rng())
    assert exc.value.code == code, exc.value
    assert code in game.codes, f"{code} is not documented in {game.kind}'s codes"
    assert command not in game.legal(state, seat), f"{command} is refused but legal() offers it"
    return exc.value
