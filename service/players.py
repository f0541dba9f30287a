"""Players and who is asking: registration, bearer-token lookup (cached), the `Viewer`.

Tokens are random, shown once and stored as SHA-256 digests; a token is never reissued, so a
digest -> player cache needs no invalidation.
"""

from __future__ import annotations

import hmac
import secrets
import uuid

import msgspec

from service.exceptions import PlayerNotFound, Unauthorized
from service.store.protocol import EventStore, Player, token_hash

_CACHE_MAX = 100_000


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
        self._by_digest: dict[str, Player] = {}

    async def register(self, name: str) -> tuple[Player, str]:
        """A new player and its bearer token (the only time the token is shown)."""
        token = "stl_" + secrets.token_urlsafe(32)
        player = await self.store.create_player(str(uuid.uuid4()), name, token_hash(token))
        return player, token

    async def get(self, player_id: str) -> Player:
        player = await self.store.get_player(player_id)
        if player is None:
            raise PlayerNotFound(f"no player with id {player_id!r}")
        return player

    async def authenticate(self, token: str) -> Player | None:
        digest = token_hash(token)
        player = self._by_digest.get(digest)
        if player is None:
            player = await self.store.player_by_token(digest)
            if player is not None:
                if len(self._by_digest) > _CACHE_MAX:
                    self._by_digest.clear()
                self._by_digest[digest] = player
        return player

    async def viewer(self, authorization: str | None) -> Viewer:
        """The caller from an `Authorization` header: anonymous without one, Unauthorized if it is wrong."""
        if not authorization:
            return Viewer()
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthorized("use `Authorization: Bearer <token>`")
        if self.admin_token and hmac.compare_digest(token.encode(), self.admin_token.encode()):
            return Viewer(admin=True)
        player = await self.authenticate(token)
        if player is None:
            raise Unauthorized("unknown or revoked token")
        return Viewer(player=player)
