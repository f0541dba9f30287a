"""When to try again, and how long to wait: `Backoff` and `retry_after`.

What is retried (by `Client` and the streams), and what is not:
- 429 `rate_limited`: always (the server refused before doing anything), after `Retry-After`; a request
  whose `Retry-After` is longer than `max_wait` (429 `sign_in_throttled`: its 15-minute window) is raised at once.
- 503 (database down, shutting down): only a request that is safe to repeat, a read (GET) or a
  write carrying an `Idempotency-Key` (the server answers a resent key with the first result).
- a transport failure (no answer at all): the same safe requests only; the same key is resent.
- 409 `version_conflict` / 412: never; the game moved on and the caller must decide again.
- any other problem: never; it is raised as its typed error.
Waits without `Retry-After` grow exponentially from `base` to `cap`; every wait gets up to `jitter`
more at random, so a crowd of clients refused together does not come back together.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime


def retry_after(value: str | None) -> float | None:
    """Seconds from a `Retry-After` header (delta-seconds or an HTTP date), None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds()
        except (TypeError, ValueError):
            return None
    return max(seconds, 0.0)


@dataclass(frozen=True)
class Backoff:
    """Retry budget and waits of one request (or of one stream's consecutive failed connections)."""

    attempts: int = 8  # tries of one request, the first included
    base: float = 0.2  # first wait when the server names none
    cap: float = 10.0  # longest wait when the server names none
    max_wait: float = 65.0  # longest `Retry-After` a request waits for (longer: raised at once); a stream's cap
    jitter: float = 0.25  # up to this fraction more, at random

    def delay(self, failures: int, told: float | None, rng: random.Random) -> float:
        """Seconds to wait after the `failures`-th failure in a row (1-based); `told` is Retry-After."""
        wait = min(told, self.max_wait) if told is not None else min(self.base * 2 ** max(failures - 1, 0), self.cap)
        return wait * (1 + self.jitter * rng.random())


@dataclass
class Counters:
    """What a client absorbed: throttled answers (429/503) retried, transport retries, stream reconnects."""

    throttled: int = 0
    transport_retries: int = 0
    reconnects: int = 0
    skipped_duplicates: int = 0
    rng: random.Random = field(default_factory=random.Random, repr=False)
