"""Streams and tickets end with the token that opened them: revoking, rotating or (an app's) expiring.

Each stream opened by a player (with a bearer token, or with a ticket issued for one) is watched
under that token's digest (`Revocations.watch` gives it a `StreamEnd`, the event its loop checks
between frames, set too when the process closes). While any is open, the process asks the store
every `every` seconds which of the watched digests still work (a player's first token, or a live
credential: a session, a personal access token, an app's access token), and ends
each stream whose token works no longer, then wakes every connection of the process so the ended
ones notice at once. The replica that revokes checks at once (`revoked`); the others within
`every` seconds, with or without Redis. Asking costs one small read while nothing changed: the
store counts every change that can stop a token working (`token_changes`, kept by triggers in
PostgreSQL), and the watched digests are looked up again, in one query, only when that count moved,
a new stream's token was never looked up or a known token's expiry is near. `CredentialTickets`
refuses a ticket at once when the token it was issued with works no longer, whichever of the
player's tokens it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import time
import weakref
from collections.abc import Callable

import structlog

from service.live.fanout import Broker
from service.live.tickets import InvalidTicket, TicketOffice
from service.store.protocol import EventStore

log = structlog.get_logger("stela.revocation")
EVERY = 0.5
# a token's expiry is the database's clock; this process looks its tokens up again from this many seconds
# before it (by its own clock), so a clock a little behind the database's cannot keep an expired stream open
EXPIRY_MARGIN = 5.0


class StreamEnd(asyncio.Event):
    """Set when its stream must end: its token was revoked, or (`process`) the process is closing."""

    def __init__(self, process: asyncio.Event) -> None:
        super().__init__()
        self.process = process

    def is_set(self) -> bool:
        return super().is_set() or self.process.is_set()


class Revocations:
    """The streams of this process by (player, token digest); see the module docstring."""

    def __init__(self, store: EventStore, broker: Broker, closing: asyncio.Event, every: float = EVERY,
                 confirmed: Callable[[set[str], set[str], float], None] | None = None) -> None:
        self.store, self.broker, self.closing, self.every = store, broker, closing, every
        # told after each check which digests work, which no longer do, and when it asked (time.monotonic())
        self.confirmed = confirmed
        # a stream's entry goes with its `StreamEnd`, when the connection holding it is gone
        self._open: weakref.WeakKeyDictionary[StreamEnd, tuple[str, str]] = weakref.WeakKeyDictionary()
        self._task: asyncio.Task[None] | None = None
        self._now = asyncio.Event()
        # the last look-up: the store's `token_changes` then, and the digests that worked (with expiries)
        self._changes: int | None = None
        self._known: dict[str, float | None] = {}
        self._look_again_at = 0.0  # (time.time()) a known digest's expiry, less EXPIRY_MARGIN
        self.lookups = 0  # checks that looked every watched digest up (the others read one count)

    def watch(self, player_id: str, digest: str) -> StreamEnd:
        """The end of a stream opened with the token of `digest` (watched while the stream holds it)."""
        end = StreamEnd(self.closing)
        self._open[end] = (player_id, digest)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._loop(), name="stream-revocations")
        return end

    def revoked(self) -> None:
        """A token was revoked or rotated here: look now, not at the next round."""
        self._now.set()

    async def check(self) -> int:
        """End every watched stream whose token is no longer its player's; how many ended."""
        watched = list(self._open.items())
        if not watched:
            return 0
        digests = {digest for _, (_, digest) in watched}
        asked = time.monotonic()
        live = await self._live(digests)
        ended = [end for end, (_, digest) in watched if digest not in live and not end.is_set()]
        for end in ended:
            end.set()
            self._open.pop(end, None)
        if ended:
            log.info("streams_revoked", streams=len(ended))
            self.broker.wake_all()
        if self.confirmed is not None:  # after the streams have ended: nothing here can keep one open
            self.confirmed(live, digests - live, asked)
        return len(ended)

    async def _live(self, digests: set[str]) -> set[str]:
        """Which of `digests` work now. When each was found working by the last look-up, none of them has
        reached its expiry since and the store's `token_changes` has not moved, all of them (one small
        read); else every one is looked up again, with the count, in one snapshot."""
        accounts = self.store.accounts()
        if (self._changes is not None and digests <= self._known.keys() and time.time() < self._look_again_at
                and await accounts.token_changes() == self._changes):
            return digests
        self.lookups += 1
        self._changes, self._known = await accounts.live_until(sorted(digests))
        self._look_again_at = min((until for until in self._known.values() if until is not None),
                                  default=float("inf")) - EXPIRY_MARGIN
        return set(self._known)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _loop(self) -> None:
        while self._open:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.every):
                    await self._now.wait()
            self._now.clear()
            try:
                await self.check()
            except Exception as exc:  # noqa: BLE001 - the database is down: tried again next round
                log.warning("revocation_check_failed", error_type=type(exc).__name__)


class CredentialTickets(TicketOffice):
    """Stream tickets of any of a player's tokens: a ticket is good while the token it names works."""

    async def holder(self, ticket: str, game_id: str | None) -> tuple[str, str]:
        """The player a valid ticket for this stream names and its token's digest, checked now: a ticket whose
        token was revoked, rotated or has expired since is InvalidTicket, at once on every replica."""
        tickets = await self.tickets()
        claims = tickets.claims(ticket, game_id)
        for digest in await self.store.accounts().player_digests(claims.player_id):
            if hmac.compare_digest(tickets.credential(digest), claims.credential):
                return claims.player_id, digest
        raise InvalidTicket("the ticket's token was revoked or replaced; ask for a new ticket")
