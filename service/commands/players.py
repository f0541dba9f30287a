"""Players and who is asking: registration, bearer-token lookup (cached), the `Viewer`.

Tokens are random, shown once and stored as SHA-256 digests. A player may rotate its token (a
new one, the old one revoked) or revoke it; the digest -> player cache therefore keeps an entry
only `CACHE_SECONDS`: this process forgets a revoked token at once, another replica within that
time.
"""

from __future__ import annotations

import hmac
import secrets
import time
import uuid

import msgspec

from service.commands.exceptions import PlayerNotFound, Unauthorized
from service.store.protocol import EventStore, Player, token_hash

_CACHE_MAX = 100_000
CACHE_SECONDS = 5.0


def new_token() -> str:
    return "stl_" + secrets.token_urlsafe(32)


def bearer(authorization: str | None) -> str | None:
    """The token of `Authorization: Bearer <token>`, else None."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


class Viewer(msgspec.Struct, frozen=True):
    """Who is asking: a player (or nobody) and whether they are an admin."""

    player: Player | None = None
    admin: bool = False

    @property
    def player_id(self) -> str | None:
        return self.player.id if self.player else None

    def require_player(self) -> Player:
        """The caller's player; Unauthorized for an anonymous caller."""
        if self.player is None:
            raise Unauthorized("a bearer token is required")
        return self.player


class Players:
    """Registration and authentication against the store."""

    def __init__(self, store: EventStore, admin_token: str | None = None) -> None:
        self.store = store
        self.admin_token = admin_token
        self._by_digest: dict[str, tuple[Player, float]] = {}  # digest -> (player, cached until)

    async def register(self, name: str) -> tuple[Player, str]:
        """A new player and its bearer token (the only time the token is shown)."""
        token = new_token()
        player = await self.store.create_player(str(uuid.uuid4()), name, token_hash(token))
        return player, token

    async def get(self, player_id: str) -> Player:
        player = await self.store.get_player(player_id)
        if player is None:
            raise PlayerNotFound(f"no player with id {player_id!r}")
        return player

    async def authenticate(self, token: str) -> Player | None:
        digest = token_hash(token)
        now = time.monotonic()
        cached = self._by_digest.get(digest)
        if cached is not None and cached[1] > now:
            return cached[0]
        player = await self.store.player_by_token(digest)
        if player is None:
            self._by_digest.pop(digest, None)
            return None
        if len(self._by_digest) > _CACHE_MAX:
            self._by_digest.clear()
        self._by_digest[digest] = (player, now + CACHE_SECONDS)
        return player

    def known(self, authorization: str | None) -> str | None:
        """The id of the player whose token this process authenticated lately (no I/O), else None."""
        token = bearer(authorization)
        cached = self._by_digest.get(token_hash(token)) if token else None
        return cached[0].id if cached is not None and cached[1] > time.monotonic() else None

    async def rotate(self, player: Player, old_token: str) -> str:
        """A new token for `player`; the old one stops working (at once here, within CACHE_SECONDS elsewhere)."""
        token = new_token()
        await self.store.set_token(player.id, token_hash(token))
        self._by_digest.pop(token_hash(old_token), None)
        return token

    async def revoke(self, player: Player, token: str) -> None:
        """No token works for `player` any more (until it is given a new one by an admin)."""
        await self.store.set_token(player.id, None)
        self._by_digest.pop(token_hash(token), None)

    async def viewer(self, authorization: str | None) -> Viewer:
        """The caller from an `Authorization` header: anonymous without one, Unauthorized if it is wrong."""
        if not authorization:
            return Viewer()
        token = bearer(authorization)
        if token is None:
            raise Unauthorized("use `Authorization: Bearer <token>`")
        if self.admin_token and hmac.compare_digest(token.encode(), self.admin_token.encode()):
            return Viewer(admin=True)
        player = await self.authenticate(token)
        if player is None:
            raise Unauthorized("unknown or revoked token")
        return Viewer(player=player)
