"""Stream tickets: how a browser's `EventSource`, which cannot send headers, follows a seat.

A ticket is `<payload>.<signature>`, both base64url: the payload names the player, the scope
(one game id, or `me` for the personal stream) and the expiry (Unix seconds); the signature
is HMAC-SHA256 over the payload with the deployment's ticket key. Replicas agree because they
share the key (from `STELA_TICKET_SECRET`, or generated once and kept in PostgreSQL). A
ticket only opens streams (read-only), is checked when a stream opens (an open stream
outlives it), and is valid long enough for the browser's automatic reconnects. Bearer tokens
never go into URLs; tickets are never logged.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Callable

import msgspec

PERSONAL = "me"


class InvalidTicket(Exception):
    """The ticket is malformed, forged, expired or for another stream."""


class _Claims(msgspec.Struct, frozen=True, array_like=True):
    player_id: str
    scope: str
    expires: int


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

    def issue(self, player_id: str, game_id: str | None) -> tuple[str, int]:
        """A ticket for `player_id` to follow `game_id` (None: the personal stream); and its expiry."""
        expires = int(self._clock()) + self.ttl_seconds
        payload = _b64(msgspec.json.encode(_Claims(player_id, game_id or PERSONAL, expires)))
        return f"{payload}.{self._sign(payload)}", expires

    def check(self, ticket: str, game_id: str | None) -> str:
        """The player a valid ticket for this stream (`game_id`, None = personal) was issued to."""
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
        return claims.player_id
