"""Stream tickets: how a browser's `EventSource`, which cannot send headers, follows a seat.

A ticket is `<payload>.<signature>`, both base64url: the payload names the player, the scope
(one game id, `me` for the personal stream, `*` for the multiplexed stream), the expiry (Unix seconds) and the token it was
issued with (`credential`: a keyed tag of that token's digest, never the digest); the signature
is HMAC-SHA256 over the payload with the deployment's ticket key. Replicas agree because they
share the key (from `STELA_TICKET_SECRET`, or generated once and kept in PostgreSQL). A
ticket only opens streams (read-only), is checked when a stream opens, and is valid long enough
for the browser's automatic reconnects, but only while its token is the player's: once the token
is revoked or rotated its tickets are refused (`TicketOffice.holder`), and the streams they opened
end (`service.live.revocation`). Bearer tokens never go into URLs; tickets are never logged.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import math
import os
import time
from collections.abc import Callable, Mapping

import msgspec

from service.commands.exceptions import Unauthorized
from service.store.protocol import EventStore

PERSONAL = "me"
MULTIPLEXED = "*"  # the scope of a ticket for the multiplexed stream (any set of games; not a game id)
TTL_DEFAULT = 3600
MIN_SECRET = 16
# replicas without STELA_TICKET_SECRET share a key generated once: the first to start inserts it
_KEY_NAME = "stream-tickets"


class InvalidTicket(Unauthorized):
    """The ticket is malformed, forged, expired or for another stream (a 401 at the edge)."""


class _Claims(msgspec.Struct, frozen=True, array_like=True):
    player_id: str
    scope: str
    expires: int
    credential: str = ""  # tickets issued before tickets named their token have none: refused


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Tickets:
    """Issues and checks signed, short-lived, read-only stream tickets."""

    def __init__(self, key: bytes, ttl_seconds: int = 3600, clock: Callable[[], float] = time.time) -> None:
        if len(key) < 16:
            raise ValueError("a ticket key needs at least 16 bytes")
        self._key = key
        self.ttl_seconds = ttl_seconds
        self._clock = clock

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())

    def credential(self, token_digest: str) -> str:
        """The tag a ticket carries of the token (by its digest) it was issued with."""
        return _b64(hmac.new(self._key, b"credential\0" + token_digest.encode(), hashlib.sha256).digest()[:12])

    def issue(self, player_id: str, game_id: str | None, token_digest: str = "") -> tuple[str, int]:
        """A ticket for `player_id` to follow `game_id` (None: the personal stream), issued with the token
        of `token_digest`; and its expiry."""
        expires = math.ceil(self._clock() + self.ttl_seconds)  # whole seconds, never sooner than the TTL
        claims = _Claims(player_id, game_id or PERSONAL, expires, self.credential(token_digest))
        payload = _b64(msgspec.json.encode(claims))
        return f"{payload}.{self._sign(payload)}", expires

    def check(self, ticket: str, game_id: str | None) -> str:
        """The player a valid ticket for this stream (`game_id`, None = personal) was issued to."""
        return self.claims(ticket, game_id).player_id

    def claims(self, ticket: str, game_id: str | None) -> _Claims:
        """What a valid ticket for this stream says; InvalidTicket for any other."""
        payload, _, signature = ticket.partition(".")
        if not payload or not signature or not hmac.compare_digest(signature, self._sign(payload)):
            raise InvalidTicket("the ticket is not valid")
        try:
            claims = msgspec.json.decode(_unb64(payload), type=_Claims)
        except (ValueError, msgspec.DecodeError) as exc:
            raise InvalidTicket("the ticket is not valid") from exc
        if claims.scope != (game_id or PERSONAL):
            raise InvalidTicket("the ticket is for another stream")
        if claims.expires < self._clock():
            raise InvalidTicket("the ticket has expired")
        return claims


class TicketSettings(msgspec.Struct, frozen=True):
    """`STELA_TICKET_SECRET` (a shared signing secret, at least 16 characters) and
    `STELA_TICKET_TTL_SECONDS` (default 3600); read here until service.ops.settings carries them."""

    secret: str | None = None
    ttl_seconds: int = TTL_DEFAULT


def ticket_settings(env: Mapping[str, str] | None = None) -> TicketSettings:
    env = os.environ if env is None else env
    secret = env.get("STELA_TICKET_SECRET") or None
    if secret is not None and len(secret) < MIN_SECRET:
        raise ValueError(f"STELA_TICKET_SECRET needs at least {MIN_SECRET} characters")
    return TicketSettings(secret, int(env.get("STELA_TICKET_TTL_SECONDS") or TTL_DEFAULT))


async def ticket_key(store: EventStore, secret: str | None) -> bytes:
    """The signing key: from the secret if set, else the one the store keeps for every replica (generated
    by the first to ask; a memory store's lives as long as it does)."""
    if secret is not None:
        return hashlib.sha256(b"stela-stream-tickets\0" + secret.encode()).digest()
    return await store.shared_key(_KEY_NAME)


class TicketOffice:
    """The process's `Tickets`, keyed on first use (the key may need a query)."""

    def __init__(self, store: EventStore, settings: TicketSettings | None = None) -> None:
        self.store = store
        self.settings = settings or ticket_settings()
        self._tickets: Tickets | None = None
        self._lock = asyncio.Lock()

    async def tickets(self) -> Tickets:
        if self._tickets is None:
            async with self._lock:
                if self._tickets is None:
                    key = await ticket_key(self.store, self.settings.secret)
                    self._tickets = Tickets(key, self.settings.ttl_seconds)
        return self._tickets

    async def holder(self, ticket: str, game_id: str | None) -> tuple[str, str]:
        """The player a valid ticket for this stream names and their token's digest, checked now: a
        ticket whose token was revoked or rotated since is InvalidTicket, at once on every replica."""
        tickets = await self.tickets()
        claims = tickets.claims(ticket, game_id)
        digest = (await self.store.token_digests([claims.player_id])).get(claims.player_id)
        if digest is None or not hmac.compare_digest(tickets.credential(digest), claims.credential):
            raise InvalidTicket("the ticket's token was revoked or replaced; ask for a new ticket")
        return claims.player_id, digest
