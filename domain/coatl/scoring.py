"""Pure scoring of a coatl against prophecy and temple cards.

A coatl is read head to tail as a sequence of colours (heads and tails count
as pieces of their colour). Each prophecy kind of the data file counts how
often the coatl fulfils the card; within one card occurrences never share
pieces (the crossed-out borders of the isolated-pair cards are conditions,
not used pieces), across cards the same pieces count again. A card scores
the single highest level reached (levels never add up). A temple scores by
the number of its requirements met; "equal numbers of two colours" needs at
least one piece of each.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Optional, Sequence

from domain.coatl.components import PROPHECIES, TEMPLES, Requirement
from domain.coatl.state import Coatl, CoatlState, card_types, colors


def _runs(colors: Sequence[str]) -> list[tuple[str, int]]:
    """Maximal runs of one colour, as (colour, length) head to tail."""
    runs: list[tuple[str, int]] = []
    for color in colors:
        if runs and runs[-1][0] == color:
            runs[-1] = (color, runs[-1][1] + 1)
        else:
            runs.append((color, 1))
    return runs


def _non_overlapping(intervals: Iterable[tuple[int, int]]) -> int:
    """Most intervals [start, end] that share no position (greedy by earliest end, which is optimal)."""
    count, free_from = 0, 0
    for start, end in sorted(intervals, key=lambda iv: (iv[1], iv[0])):
        if start >= free_from:
            count, free_from = count + 1, end + 1
    return count


def _sequence_at(colors: Sequence[str], pattern: Sequence[str]) -> list[tuple[int, int]]:
    size = len(pattern)
    return [(i, i + size - 1) for i in range(len(colors) - size + 1) if tuple(colors[i:i + size]) == tuple(pattern)]


def _brackets(colors: Sequence[str], first: str, middle: str, last: str) -> list[tuple[int, int]]:
    """Every first, middle+, last occurrence as an interval (one per start: the middle run is maximal)."""
    found = []
    for i, color in enumerate(colors):
        if color != first:
            continue
        j = i + 1
        while j < len(colors) and colors[j] == middle:
            j += 1
        if j > i + 1 and j < len(colors) and colors[j] == last:
            found.append((i, j))
    return found


def _mirror_gap(colors: Sequence[str], outer: str, inner: str) -> bool:
    opens = [i for i in range(len(colors) - 1) if colors[i] == outer and colors[i + 1] == inner]
    closes = [j for j in range(len(colors) - 1) if colors[j] == inner and colors[j + 1] == outer]
    return any(j >= i + 3 for i in opens for j in closes)


def occurrences(prophecy_type: int, colors: Sequence[str]) -> int:
    """How many times the coatl fulfils the card (the piece count for colour-count cards)."""
    card = PROPHECIES[prophecy_type]
    kind, pattern = card.kind, card.pattern
    if isinstance(pattern, dict):  # unordered_counts_once, the one kind with counts
        return 1 if all(sum(1 for c in colors if c == color) >= n for color, n in pattern.items()) else 0
    if kind == "color_count":
        return sum(1 for c in colors if c == pattern[0])
    if kind == "isolated_pair":
        return sum(1 for color, size in _runs(colors) if color == pattern[1] and size == 2)
    if kind == "run":
        return sum(size // 3 for color, size in _runs(colors) if color == pattern[0])
    if kind == "sequence_repeatable":
        return _non_overlapping(_sequence_at(colors, pattern))
    if kind == "sequence_once":
        return 1 if _sequence_at(colors, pattern) else 0
    if kind == "bracket_infinity":
        return _non_overlapping(_brackets(colors, pattern[0], pattern[1].rstrip("+"), pattern[2]))
    if kind == "mirror_gap_once":
        return 1 if _mirror_gap(colors, pattern[0], pattern[1]) else 0
    raise AssertionError(f"unknown prophecy kind {kind}")


def _by_level(points: dict[int, int], reached: int) -> int:
    met = [level for level in sorted(points) if level <= reached]
    return points[met[-1]] if met else 0


def prophecy_points(prophecy_type: int, colors: Sequence[str]) -> int:
    """Points of one prophecy card beside this coatl: its highest level reached, or 0."""
    return _by_level(PROPHECIES[prophecy_type].points, occurrences(prophecy_type, colors))


def prophecy_met(prophecy_type: int, colors: Sequence[str]) -> bool:
    """Whether the coatl reaches the card's first level (the condition to play it)."""
    return _met(prophecy_type, tuple(colors))


@lru_cache(maxsize=32768)  # ~230 bytes an entry; 8,192 missed two asks in five over 250 games at once
def _met(prophecy_type: int, colors: tuple[str, ...]) -> bool:
    # pure; `legal` asks it of every card in hand against every coatl and every completing piece, each version
    return prophecy_points(prophecy_type, colors) > 0


def requirement_met(requirement: Requirement, colors: Sequence[str], prophecy_types: Sequence[int]) -> bool:
    """One temple requirement; `prophecy_types` are the types of the cards beside the coatl."""
    if requirement.no_piece_of is not None:
        return requirement.no_piece_of not in colors
    if requirement.exact_length is not None:
        return len(colors) == requirement.exact_length
    if requirement.equal_count is not None:
        a, b = (sum(1 for c in colors if c == color) for color in requirement.equal_count)
        return a == b >= 1
    if requirement.no_prophecy_card_of_color is not None:
        return all(PROPHECIES[t].card_color != requirement.no_prophecy_card_of_color for t in prophecy_types)
    raise AssertionError(f"unknown temple requirement {requirement}")


def temple_requirements_met(temple_type: int, colors: Sequence[str], prophecy_types: Sequence[int] = ()) -> int:
    """How many of the temple card's requirements the coatl meets."""
    return sum(1 for r in TEMPLES[temple_type].requirements if requirement_met(r, colors, prophecy_types))


def temple_points(temple_type: int, colors: Sequence[str], prophecy_types: Sequence[int] = ()) -> int:
    """Points of a temple card beside this coatl (0 when no requirement is met)."""
    met = temple_requirements_met(temple_type, colors, prophecy_types)
    return TEMPLES[temple_type].points_by_requirements_met.get(met, 0)


def coatl_points(colors: Sequence[str], prophecy_types: Sequence[int], temple_type: Optional[int]) -> int:
    """Total value of a coatl with these prophecy card types and optional temple card."""
    total = sum(prophecy_points(t, colors) for t in prophecy_types)
    if temple_type is not None:
        total += temple_points(temple_type, colors, prophecy_types)
    return total


_cached_points = lru_cache(maxsize=4096)(coatl_points)  # pure, and views recompute every coatl often


def coatl_value(coatl: Coatl) -> int:
    """The current value of a coatl with the cards beside it (scored as if it were finished now)."""
    return _cached_points(colors(coatl), card_types(coatl.cards), coatl.temple)


def seat_scores(state: CoatlState) -> tuple[int, ...]:
    """Each seat's points: its completed coatls only."""
    return tuple(sum(coatl_value(c) for c in p.coatls if c.status != "open") for p in state.players)
