"""The server's `RateLimit` and `RateLimit-Policy` fields, and opt-in pacing that waits instead of meeting 429.

Every answer of a rate-limited request says where its budget stands (IETF draft-ietf-httpapi-ratelimit-headers):
`RateLimit-Policy: "api";q=600;w=60` (the budget: its quota per window of seconds) and `RateLimit: "api";r=599;t=42`
(what is left in this window, and the seconds until it ends). `RateLimit.parse` reads both; the client keeps
the last one seen (`client.rate_limit`).

`Pacer` (a client made with `pace=True`) spends the budget it was told about: each request takes one from
what is left, and once nothing is left the next request waits until the window ends instead of being refused
with 429. Only an answer carrying the fields corrects the count: after one without them (a route or server
that does not send them, an error answered before the limiter) the count goes on down from what was known,
as if that request was spent. The count belongs to the credential (`Authorization`) its answers came to: a
request with another one (the token a registration or sign-in gave, a rotated token) starts unknown, since
the anonymous per-address budget, or another player's, says nothing of this one's. It only knows what answers
said (the budget may be shared with other clients of the same token), so a 429 can still happen and is then
waited out as before (`retry.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass


def _items(value: str) -> dict[str, dict[str, str]]:
    """A structured-field list of `"name";key=value;...` members, by name (quotes and spaces dropped)."""
    out: dict[str, dict[str, str]] = {}
    for member in value.split(","):
        name, *params = (part.strip() for part in member.split(";"))
        if not name:
            continue
        out[name.strip('"')] = dict(p.partition("=")[::2] for p in params if "=" in p)
    return out


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


@dataclass(frozen=True)
class RateLimit:
    """One answer's budget: `policy` (`api`, `streams`, ...), `remaining` in this window, `reset` seconds until
    the window ends, and the policy's `quota` per `window` seconds (None where the server did not say)."""

    policy: str
    remaining: int | None
    reset: float | None
    quota: int | None
    window: float | None

    @classmethod
    def parse(cls, headers: Mapping[str, str]) -> RateLimit | None:
        """The fields of an answer's headers (None when it has no `RateLimit` field)."""
        state = _items(headers.get("RateLimit") or headers.get("ratelimit") or "")
        if not state:
            return None
        policies = _items(headers.get("RateLimit-Policy") or headers.get("ratelimit-policy") or "")
        name, params = next(iter(state.items()))
        policy = policies.get(name, {})
        remaining, quota = _number(params.get("r")), _number(policy.get("q"))
        return cls(policy=name, remaining=None if remaining is None else int(remaining),
                   reset=_number(params.get("t")), quota=None if quota is None else int(quota),
                   window=_number(policy.get("w")))


class Pacer:
    """Waits before a request once the known budget is spent, until its window ends (one per client)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.remaining: int | None = None
        self.resets_at = 0.0
        self.waited = 0.0  # seconds spent waiting, in all
        self.holder: str | None = None  # the credential whose budget `remaining` counts (None: anonymous)

    def before(self, credential: str | None = None) -> float:
        """Seconds to wait before the next request, sent with `credential` (and count it against what is left)."""
        now = self.clock()
        if credential != self.holder:
            self.holder, self.remaining = credential, None  # another budget: nothing known until an answer says
        if now >= self.resets_at:
            self.remaining = None  # a new window: nothing known about it until an answer says
        if self.remaining is None:
            return 0.0
        if self.remaining > 0:
            self.remaining -= 1
            return 0.0
        wait = self.resets_at - now
        self.waited += wait
        self.remaining = None
        return wait

    def told(self, limit: RateLimit | None, credential: str | None = None) -> None:
        """Learn from the fields of an answer to a request sent with `credential`, None when it had none (the
        count then stays as `before` left it). Only the `api` budget paces requests; streams have their own."""
        if credential != self.holder:
            return  # an answer about a budget no longer spent
        if limit is None or limit.remaining is None or limit.reset is None or limit.policy == "streams":
            return
        self.remaining, self.resets_at = limit.remaining, self.clock() + limit.reset
