"""Given/when/then helpers for tournament tests: build fields, play rounds with seeded random outcomes."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from domain.kernel import Outcome, RuleViolation
from domain.tournament import (CODES, CreateTournament, RecordResult, Register, RoundPaired, Start, TournamentState,
                               create, decide, evolve, rng_for)

ORGANISER = "organiser"
TOURNAMENT_ID = "6f1c2a4e-9d3b-4c7a-8e21-0b5d9f3a7c10"


def seed_of(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def given(*events: Any) -> TournamentState:
    state = None
    for event in events:
        state = evolve(state, event)
    assert state is not None
    return state


def when(state: TournamentState, actor: str | None, command: Any, admin: bool = False) -> tuple[TournamentState, list]:
    """Decide `command` from `actor` and fold its events."""
    events = decide(state, actor, command, rng_for(state), admin=admin)
    assert events, "decide never returns an empty list"
    for event in events:
        state = evolve(state, event)
    return state, events


def refused(state: TournamentState, actor: str | None, command: Any, code: str, admin: bool = False) -> None:
    assert code in CODES
    with pytest.raises(RuleViolation) as exc:
        decide(state, actor, command, rng_for(state), admin=admin)
    assert exc.value.code == code, exc.value


def player(i: int) -> str:
    return f"p{i:03d}"


def opened(players: int, seed: str = "seed", **settings: Any) -> tuple[TournamentState, list]:
    """A tournament created by ORGANISER with `players` registered (ratings spread), not started."""
    events = create(TOURNAMENT_ID, ORGANISER, CreateTournament(kind="tally", **settings), seed_of(seed))
    state = given(*events)
    for i in range(players):
        state, new = when(state, player(i), Register(name=f"Player {i}", rating=1000 + (i * 37) % 500))
        events += new
    return state, events


def started(players: int, seed: str = "seed", **settings: Any) -> tuple[TournamentState, list]:
    state, events = opened(players, seed, **settings)
    state, new = when(state, ORGANISER, Start())
    return state, events + new


def random_outcome(size: int, rnd: random.Random) -> Outcome:
    """Random scores, occasionally tied; ranks as domain.kernel.ranked gives them."""
    scores = [rnd.randrange(4) for _ in range(size)]
    ranks = [1 + sum(1 for other in scores if other > mine) for mine in scores]
    return Outcome(scores=scores, ranks=ranks, winners=[s for s, r in enumerate(ranks) if r == 1])


def play_round(state: TournamentState, rnd: random.Random) -> tuple[TournamentState, list]:
    """Record a random result for every table of the current round, in a random order."""
    events: list = []
    tables = list(state.rounds[-1].tables)
    rnd.shuffle(tables)
    for table in tables:
        state, new = when(state, None, RecordResult(game_id=table.game_id,
                                                    outcome=random_outcome(len(table.players), rnd)))
        events += new
    return state, events


def play_out(state: TournamentState, events: list, rnd: random.Random,
             limit: int = 100) -> tuple[TournamentState, list]:
    """Play rounds until the tournament ends."""
    for _ in range(limit):
        if state.status == "finished":
            return state, events
        state, new = play_round(state, rnd)
        events = events + new
    raise AssertionError("the tournament did not end")


def pairings(events: list) -> list[RoundPaired]:
    return [e for e in events if isinstance(e, RoundPaired)]
