"""Tobago's setup: the island and its landmarks, the shuffled decks.

It reads the table's `domain.tobago.options.TobagoOptions`. `setup` builds the island,
places the landmarks (at random unless given) and shuffles the clue deck and
the treasure deck with the curses among its bottom cards. The ATVs, the
starting clues and the hands follow as commands (`rules.py`).
"""

from __future__ import annotations

from domain.kernel import Rng, RuleViolation
from domain.tobago.clues import board, board_problems
from domain.tobago.components import CLASSIC_ISLAND, CLUE_IDS, CURSE, TREASURE_CARDS
from domain.tobago.events import DecksShuffled, IslandBuilt
from domain.tobago.generate import generate_island
from domain.tobago.island import Island, Landmarks, find_landmarks, geometry, landmark_problems
from domain.tobago.options import TobagoOptions


def _bad(message: str) -> RuleViolation:
    return RuleViolation("tobago.bad_options", message)


def _given_landmarks(island: Island, options: TobagoOptions) -> tuple[Landmarks, list[int]]:
    spec = options.landmarks
    assert spec is not None
    if options.island != "classic":
        raise _bad("explicit landmarks need the classic island")
    index = {(q, r): i for i, (q, r, _) in enumerate(island)}

    def at(q: int, r: int) -> int:
        if (q, r) not in index:
            raise _bad(f"landmark hex ({q}, {r}) is not land")
        return index[(q, r)]

    marks = Landmarks(tuple(sorted(at(q, r) for q, r in spec.huts)), tuple(sorted(at(q, r) for q, r in spec.palms)),
                      tuple(at(q, r) for q, r, _ in spec.statues))
    facing = [f for _, _, f in spec.statues]
    problems = landmark_problems(geometry(island), marks, tuple(facing)) or board_problems(board(island, marks))
    if problems:
        raise _bad(f"landmarks break the rules: {problems[0]}")
    return marks, facing


def build_board(options: TobagoOptions, rng: Rng) -> tuple[Island, Landmarks, list[int]]:
    """The island, its landmarks and statue facings (random unless given), valid for every clue card."""
    while True:
        island = CLASSIC_ISLAND if options.island == "classic" else generate_island(rng)
        if options.landmarks is not None:
            marks, facing = _given_landmarks(island, options)
            return island, marks, facing
        marks = find_landmarks(geometry(island), rng)
        if marks is not None and not board_problems(board(island, marks)):
            return island, marks, [rng.below(6) for _ in marks.statues]


def setup(options: TobagoOptions, seats: int, rng: Rng) -> list:
    """The opening events: the island built, then both decks shuffled (curses among the bottom cards)."""
    if not 2 <= seats <= 4:
        raise _bad("Tobago is for 2 to 4 players")
    island, marks, facing = build_board(options, rng)
    first = rng.below(seats) if options.random_first_seat else 0
    clues = rng.shuffle(CLUE_IDS)
    treasures = rng.shuffle(TREASURE_CARDS)
    cut = len(treasures) - options.curse_depth
    deck = treasures[:cut] + rng.shuffle(treasures[cut:] + [CURSE] * options.curse_cards)
    return [IslandBuilt(options=options, seats=seats, first=first, hexes=list(island), landmarks=marks, facing=facing),
            DecksShuffled(clue_deck=clues, treasure_deck=deck)]
