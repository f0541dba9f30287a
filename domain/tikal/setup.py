"""Tikal's opening: the lettered stack, the treasure supply and the first draw or auction.

The options it reads are `domain.tikal.options.TikalOptions`.
"""

from __future__ import annotations

from domain.kernel import Emitter, Rng, RuleViolation
from domain.tikal.components import LETTERS, TILES, TREASURE_KINDS, TREASURE_PER_KIND
from domain.tikal.events import GameSetUp, StackShuffled, TikalEvent
from domain.tikal.evolve import evolve
from domain.tikal.options import MAX_PLAYERS, MIN_PLAYERS, TikalOptions
from domain.tikal.rules import draw, new_round


def setup(options: TikalOptions, seats: int, rng: Rng) -> list[TikalEvent]:
    """The opening events: the stack (A on top, each letter shuffled), the treasures, the first draw or auction."""
    if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise RuleViolation("tikal.bad_options", f"Tikal is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {seats}")
    first = rng.below(seats) if options.random_first else 0
    stack = [t for letter in LETTERS for t in rng.shuffle(sorted(i for i, s in TILES.items() if s.letter == letter))]
    treasures = rng.shuffle([k for k in TREASURE_KINDS for _ in range(TREASURE_PER_KIND)])
    emit = Emitter(evolve, None)
    state = emit(GameSetUp(seats=seats, first_seat=first, variant=options.variant, edition=options.edition,
                           start_score=20 if options.variant == "auction" else 0),
                 StackShuffled(tiles=stack, treasures=treasures))
    emit(*(draw(state, first) if options.variant == "standard" else new_round(state, first)))
    return emit.events
