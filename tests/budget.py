"""How much the randomised proofs spend: `STELA_TEST_BUDGET=short` (the default: `make check`, `make test`,
CI) or `long` (`make test-long`, nightly). The short budget keeps every kind of case (each seat count, each
option set) and plays fewer random games and hypothesis examples; the long one plays them all. Any other
value is refused, so a typo cannot quietly run the short budget.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
BUDGET = os.environ.get("STELA_TEST_BUDGET", "short")
if BUDGET not in ("short", "long"):
    raise RuntimeError(f"STELA_TEST_BUDGET={BUDGET!r}: say short or long")
LONG = BUDGET == "long"


def sized(short: int, long: int) -> int:
    """`long` on the long budget, else `short`."""
    return long if LONG else short


def every(items: Iterable[T], nth: int, start: int = 0) -> Iterator[T]:
    """All of `items` on the long budget; on the short one every `nth`, from the `start`-th (mod `nth`)."""
    for n, item in enumerate(items):
        if LONG or n % nth == start % nth:
            yield item
