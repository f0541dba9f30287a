"""Whose a bearer token is, for the request budgets (`service.edge.ratelimit`): a directory from a token's
keyed digest to its subject, the player it acts for (its first token, sign-ins, personal and apps' tokens
alike), so a player's tokens share one budget and a replica knows a token is real without the database.

An entry is made when a token is issued (`issued`: the edge records it before the response that carries
the token leaves, so no replica can see the token before its entry) and when the app authenticates a
token that had none (a token issued before entries were kept, or whose entry lapsed). With Redis the
entries are shared: `who:<digest>` holds `<expiry> <subject>` (expiry in Unix seconds, 0: none) and
lives until the token expires, at most `KEEP` seconds after it was last read, each read extending it
(`_FIND`, one round trip); each process remembers what it read for `HERE_SECONDS`. Without Redis (or
while it fails) the process's own entries are the directory, kept as long. Revoking a token does not
remove its entry at once: the first request it makes afterwards is refused 401 and the edge then
removes it (`forget`), so an entry outliving its token costs one look-up of a token that was real.
"""

from __future__ import annotations

import hashlib
import time
from datetime import datetime
from typing import Any

HERE_SECONDS = 60.0  # how long a process trusts an entry it read from Redis without reading it again
KEEP = 30 * 86_400  # an entry lives at most this long after it was last read or written
ISSUED = "issued_tokens"  # where a request's scope state lists the tokens it issued
_MAX = 100_000  # entries a process keeps at most

# the subject of entry KEYS[1] (nil: none), its life extended to ARGV[1] seconds, never past the token's expiry
_FIND = ("local v = redis.call('GET', KEYS[1]) if not v then return false end "
         "local sep = string.find(v, ' ', 1, true) local expiry = tonumber(string.sub(v, 1, sep - 1)) "
         "local left = tonumber(ARGV[1]) "
         "if expiry > 0 then left = math.min(left, expiry - tonumber(redis.call('TIME')[1])) end "
         "if left <= 0 then redis.call('DEL', KEYS[1]) return false end "
         "redis.call('EXPIRE', KEYS[1], left) return string.sub(v, sep + 1)")


def digest_of(token: str) -> str:
    """A token's name here and in the budgets: a digest of it, keyed apart from the store's token hashes, so
    the shared keys' names are no look-up key of any credential."""
    return "t:" + hashlib.blake2b(token.encode(), digest_size=16, person=b"stela-budget").hexdigest()


def issued(scope: Any, token: str, subject: str, expires_at: datetime | None = None) -> None:
    """Note in the request's scope that it issued `token` for `subject` (expiring at `expires_at`, if ever),
    for the edge to record before the response leaves."""
    until = expires_at.timestamp() if expires_at is not None else None
    scope.setdefault("state", {}).setdefault(ISSUED, []).append((token, subject, until))


class Subjects:
    """Token digest -> subject: in this process, and in Redis when given a client (see the module docstring)."""

    def __init__(self, redis: Any = None, prefix: str = "stela:") -> None:
        self.redis, self.prefix = redis, prefix
        self._here: dict[str, tuple[str, float]] = {}  # digest -> (subject, trusted until: time.monotonic())
        self._find: Any = redis.register_script(_FIND) if redis is not None else None  # no I/O yet

    def here(self, digest: str) -> str | None:
        """The subject this process knows for `digest` (no I/O), else None."""
        entry = self._here.get(digest)
        if entry is None:
            return None
        if entry[1] > time.monotonic():
            return entry[0]
        del self._here[digest]
        return None

    async def find(self, digest: str) -> str | None:
        """The subject Redis knows for `digest` (remembered here `HERE_SECONDS`), else None; raises if Redis fails."""
        found = await self._find(keys=[f"{self.prefix}who:{digest}"], args=[KEEP])
        if found is None:
            return None
        subject = found.decode() if isinstance(found, bytes) else str(found)
        self._remember(digest, subject, HERE_SECONDS)
        return subject

    async def record(self, digest: str, subject: str, until: float | None, shared: bool) -> None:
        """`digest` is `subject`'s token until `until` (Unix seconds; None: no expiry): here, and in Redis if
        `shared` (raises if Redis fails; the entry is kept here either way)."""
        left = KEEP if until is None else min(KEEP, until - time.time())
        if left <= 0:
            return
        self._remember(digest, subject, HERE_SECONDS if shared else left)
        if shared:
            await self.redis.set(f"{self.prefix}who:{digest}", f"{int(until or 0)} {subject}", ex=max(1, int(left)))

    async def forget(self, digest: str, shared: bool) -> None:
        """`digest` is no working token any more: its entry goes, here and (if `shared`) in Redis."""
        self._here.pop(digest, None)
        if shared:
            await self.redis.delete(f"{self.prefix}who:{digest}")

    def _remember(self, digest: str, subject: str, seconds: float) -> None:
        now = time.monotonic()
        if digest not in self._here and len(self._here) >= _MAX:
            for stale in [d for d, (_, until) in self._here.items() if until <= now] or list(self._here)[:_MAX // 10]:
                del self._here[stale]
        self._here[digest] = (subject, now + seconds)
