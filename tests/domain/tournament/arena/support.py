"""Builders for arena tests: a fresh arena, players joining, and a whole random arena played out."""

from __future__ import annotations

import random
import uuid
from typing import Any

import domain.tournament.arena as A
from domain.kernel import Outcome, RuleViolation, ranked

ARENA = "7d3c2a1b-0f4e-4d5c-9b8a-6e5f4d3c2b1a"
ORGANISER = "organiser"
START = 1_000_000
SEED = bytes(range(32))


def opened(seats: int = 2, minutes: int = 10, berserk: bool = True) -> list[Any]:
    return A.create(ARENA, ORGANISER, A.CreateArena(kind="coatl", seats=seats, minutes=minutes, starts_at_ms=START,
                                                    berserk=berserk), SEED)


def given(*events: Any) -> A.ArenaState:
    return A.fold(list(events))


def joined(state: A.ArenaState, *players: str, rating: int = 1500) -> A.ArenaState:
    for pid in players:
        state = A.fold(A.decide(state, pid, A.Join(name=pid.upper(), rating=rating)), state)
    return state


def apply(state: A.ArenaState, actor: str | None, command: Any) -> tuple[A.ArenaState, list[Any]]:
    events = A.decide(state, actor, command)
    return A.fold(events, state), events


def outcome(ranks: list[int]) -> Outcome:
    return Outcome(scores=[len(ranks) - r for r in ranks], ranks=ranks, winners=[s for s, r in enumerate(ranks) if r == 1])


def random_arena(rnd: random.Random, seats: int, players: int, steps: int, moves: bool = True,
                 berserk_moves: int | None = None) -> list[Any]:
    """A whole arena, played with random joins, pauses, leaves, berserks, results (with each seat's own
    `moves` counted, or none) and pairings, then closed and played out; its full event list."""
    arena_id = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
    events = A.create(arena_id, ORGANISER, A.CreateArena(kind="coatl", seats=seats, minutes=10, starts_at_ms=START,
                                                         berserk_moves=berserk_moves), rnd.randbytes(32))

    def result(game: Any) -> A.RecordResult:
        counted = [rnd.randint(0, 16) for _ in game.players] if moves else None
        return A.RecordResult(game_id=game.game_id, outcome=_random_outcome(rnd, len(game.players)), moves=counted)

    state = A.fold(events)
    ids = [f"p{i}" for i in range(players)]
    now = START
    for _ in range(steps):
        now += rnd.randint(0, 2000)
        if now >= state.settings.ends_at_ms:
            break
        roll = rnd.random()
        pid = rnd.choice(ids)
        running = [g for g in state.games.values() if not g.over]
        if roll < 0.25:
            command, actor = A.Join(name=pid, rating=rnd.randint(1000, 2000)), pid
        elif roll < 0.3:
            command, actor = (A.Pause() if rnd.random() < 0.7 else A.Leave()), pid
        elif roll < 0.4 and running:
            game = rnd.choice(running)
            command, actor = A.Berserk(game_id=game.game_id), rnd.choice(game.players)
        elif roll < 0.75 and running:
            game = rnd.choice(running)
            command, actor = result(game), None
        else:
            command, actor = A.Pair(at_ms=now), None
        try:
            new = A.decide(state, actor, command)
        except RuleViolation:
            continue
        events += new
        state = A.fold(new, state)
    new = A.decide(state, None, A.Close(at_ms=state.settings.ends_at_ms))
    events += new
    state = A.fold(new, state)
    for game in [g for g in state.games.values() if not g.over]:
        new = A.decide(state, None, result(game))
        events += new
        state = A.fold(new, state)
    assert state.finished
    return events


def _random_outcome(rnd: random.Random, seats: int) -> Outcome | None:
    if rnd.random() < 0.05:
        return None
    scores = [rnd.randint(0, 3) for _ in range(seats)]
    return ranked(scores, [(s,) for s in scores])
