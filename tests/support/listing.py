"""Random games that check a kind's fast legal listing at every state: shared by the listing tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from domain.kernel import Rng
from domain.simulate import pick, start_table
from domain.table import Table

# (every, at, make): at steps where step % every == at, also check make(game state, rnd)'s variants
Variants = tuple[int, int, Callable[[Any, random.Random], Iterable[Any]]]
# (game state, seat, legal) -> the commands the bot picks among (None: all) and their weights (None: uniform)
Choose = Callable[[Any, int, list[Any]], tuple[list[Any] | None, list[float] | None]]


def play_checked(table: Table, rules: Any, seats: int, options: dict[str, Any], seed: bytes,
                 check: Callable[[Any], None], variants: Iterable[Variants], choose: Choose) -> int:
    """One random game of `table` from `seed`: `check` at every state (and at the chosen steps each of its
    variants), the table's listing the game's own (`rules.legal`), and every listed command accepted by
    `rules.decide`; the bot picks as `choose` says. Returns the game's length."""
    state, _ = start_table(table, options, seats, seed)
    bot, steps, rnd = Rng(seed + b"/bot", 0), 0, random.Random(seed)
    variants = list(variants)
    while state.status == "active":
        game = state.game
        check(game)
        for every, at, make in variants:
            if steps % every == at:
                for variant in make(game, rnd):
                    check(variant)
        seat = min(table.to_act(state))
        legal = table.legal(state, seat)
        assert legal == rules.legal(game, seat)
        for n, command in enumerate(legal):  # decide accepts every listed command
            rules.decide(game, seat, command, Rng(seed + b"/decide", steps * 1000 + n))
        among, weights = choose(game, seat, legal)
        state = table.fold(table.play(state, seat, pick(bot, among or legal, weights)), state)
        steps += 1
    return steps
