"""Players and who is asking: registration, bearer-token lookup (cached), the `Viewer` and its scopes.

Tokens are random, shown once and stored as SHA-256 digests. A player's first token (from
registration, rotated or revoked by itself) has every scope; its other tokens (sign-in sessions,
personal access tokens, OAuth access tokens: `service.store.accounts.Credential`) have the scopes
they were given, and some expire. A player may rotate its first token (a new one, the old one
revoked) or revoke any token; the digest -> identity cache therefore keeps an entry only
`CACHE_SECONDS` (and never past the token's expiry): this process forgets a revoked token at once,
another replica within that time. A player's name is a display name (not unique; an account signs in
with its own handle, `service.commands.accounts`): `display_name` keeps it NFC-normalised and
printable, so two spellings of one text are one name and no name hides, reorders or breaks lines.
A token that holds a stream open here is asked about every
half second anyway (`service.live.revocation`); each answer that it still works (`confirm`) counts
as a lookup, so a connected player's requests make no query of their own, and an answer that it
works no longer is believed at once, here as on the replica that revoked it.
"""

from __future__ import annotations

import hmac
import secrets
import time
import unicodedata
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime

import msgspec

from service.commands.exceptions import Forbidden, InvalidRequest, PlayerNotFound, Unauthorized
from service.store.protocol import EventStore, Player, token_hash

_CACHE_MAX = 100_000
CACHE_SECONDS = 5.0

READ, PLAY, ORGANISE = "read", "play", "tournaments:organise"
ACCOUNT = "account"  # managing the account itself (password, tokens, apps): a player's first token and sessions only
GRANTABLE = (READ, PLAY, ORGANISE)  # what a personal access token or an app may be given
EVERY = frozenset((READ, PLAY, ORGANISE, ACCOUNT))


class InsufficientScope(Forbidden):
    """The token is valid but was not given the scope this operation needs."""

    def __init__(self, scope: str) -> None:
        super().__init__(f"this token lacks the `{scope}` scope")
        self.scope = scope


class InvalidName(InvalidRequest):
    """A name (or login handle) that is empty once stripped, or holds a character a name may not."""


# Categories no name may hold: controls, line and paragraph separators, surrogates, private use, unassigned.
_REFUSED_CATEGORIES = frozenset(("Cc", "Zl", "Zp", "Cs", "Co", "Cn"))
# Format characters (Cf) are invisible: bidi controls reorder what others see, zero-width ones hide text.
# Only the two joiners that emoji and some scripts need are kept, and never as the whole name.
_JOINERS = frozenset("\u200c\u200d")
# Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern): never the visible part.
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(char: str) -> bool:
    """Whether `char` draws something by itself: not a space, joiner, blank, or a mark that only decorates."""
    return not char.isspace() and char not in _JOINERS and char not in _BLANKS \
        and unicodedata.category(char) not in ("Mn", "Me")


def display_name(text: str) -> str:
    """`text` NFC-normalised and trimmed; InvalidName if it holds a control, format (bidi, zero-width) or
    separator character, or nothing visible."""
    name = unicodedata.normalize("NFC", text).strip()
    for char in name:
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES or (category == "Cf" and char not in _JOINERS):
            raise InvalidName(f"a name may not contain U+{ord(char):04X} ({unicodedata.name(char, category)})")
    if not any(_visible(char) for char in name):
        raise InvalidName("a name needs at least one visible character")
    return name


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
    scopes: frozenset[str] = EVERY  # what the token may do (every scope: a player's first token, or a session)
    digest: str | None = None  # the SHA-256 of the token the caller used

    @property
    def player_id(self) -> str | None:
        return self.player.id if self.player else None

    def require_player(self) -> Player:
        """The caller's player; Unauthorized for an anonymous caller."""
        if self.player is None:
            raise Unauthorized("a bearer token is required")
        return self.player

    def require_scope(self, scope: str) -> None:
        """InsufficientScope unless the caller's token (if any) has `scope`; the admin token has every scope."""
        if self.player is not None and scope not in self.scopes:
            raise InsufficientScope(scope)


class Identity(msgspec.Struct, frozen=True):
    """Whose a token is and what it may do."""

    player: Player
    scopes: frozenset[str]


class Players:
    """Registration and authentication against the store."""

    def __init__(self, store: EventStore, admin_token: str | None = None) -> None:
        self.store = store
        self.admin_token = admin_token
        # digest -> (identity, cached until, the token's expiry or inf), in time.monotonic() seconds
        self._by_digest: dict[str, tuple[Identity, float, float]] = {}

    async def register(self, name: str) -> tuple[Player, str]:
        """A new player named `display_name(name)` and its bearer token (the only time the token is shown)."""
        token = new_token()
        player = await self.store.create_player(str(uuid.uuid4()), display_name(name), token_hash(token))
        return player, token

    async def get(self, player_id: str) -> Player:
        player = await self.store.get_player(player_id)
        if player is None:
            raise PlayerNotFound(f"no player with id {player_id!r}")
        return player

    async def identify(self, digest: str) -> Identity | None:
        """Whose token of `digest` is and its scopes (cached `CACHE_SECONDS`), None if it works no longer."""
        now = time.monotonic()
        cached = self._by_digest.get(digest)
        if cached is not None and cached[1] > now:
            return cached[0]
        found = await self._lookup(digest)
        if found is None:
            self._by_digest.pop(digest, None)
            return None
        if len(self._by_digest) > _CACHE_MAX:
            self._by_digest.clear()
        identity, expires = found
        self._by_digest[digest] = (identity, min(now + CACHE_SECONDS, now + expires), now + expires)
        return identity

    def confirm(self, digests: Iterable[str], gone: Iterable[str], at: float) -> None:
        """The tokens of `digests` were found working at `at` (time.monotonic(), taken before asking): their
        cached identities are good for `CACHE_SECONDS` from then, never past the token's expiry. Those of
        `gone` were found not working: forgotten at once."""
        self.forget(list(gone))
        for digest in digests:
            cached = self._by_digest.get(digest)
            if cached is not None and (later := min(at + CACHE_SECONDS, cached[2])) > cached[1]:
                self._by_digest[digest] = (cached[0], later, cached[2])

    async def _lookup(self, digest: str) -> tuple[Identity, float] | None:
        """The identity of a token and the seconds until it expires (inf: it does not)."""
        player = await self.store.player_by_token(digest)
        if player is not None:
            return Identity(player, EVERY), float("inf")
        credential = await self.store.accounts().credential(digest)
        wall = datetime.now(UTC)
        if credential is None or not credential.live(wall):
            return None
        owner = await self.store.get_player(credential.player_id)
        if owner is None:
            return None
        left = (credential.expires_at - wall).total_seconds() if credential.expires_at else float("inf")
        return Identity(owner, frozenset(credential.scopes)), left

    async def authenticate(self, token: str) -> Player | None:
        identity = await self.identify(token_hash(token))
        return identity.player if identity is not None else None

    def forget(self, digests: list[str]) -> None:
        """This process stops trusting these token digests at once (they were revoked)."""
        for digest in digests:
            self._by_digest.pop(digest, None)

    def known(self, authorization: str | None) -> str | None:
        """The id of the player whose token this process authenticated lately (no I/O), else None."""
        token = bearer(authorization)
        cached = self._by_digest.get(token_hash(token)) if token else None
        return cached[0].player.id if cached is not None and cached[1] > time.monotonic() else None

    async def rotate(self, player: Player, old_token: str) -> str:
        """A new first token for `player`; the token used and the previous first token stop working (at once
        here, within CACHE_SECONDS elsewhere)."""
        token = new_token()
        await self._drop(player, token_hash(old_token), replacement=token_hash(token))
        return token

    async def revoke(self, player: Player, token: str) -> None:
        """The token used stops working: the player's first token (then the player has none until it rotates
        one with another token) or the other credential it is."""
        await self._drop(player, token_hash(token))

    async def _drop(self, player: Player, digest: str, replacement: str | None = None) -> None:
        current = (await self.store.token_digests([player.id])).get(player.id)
        first = current is not None and hmac.compare_digest(current, digest)
        if not first:
            credential = await self.store.accounts().credential(digest)
            if credential is not None and credential.player_id == player.id:
                await self.store.accounts().revoke(player.id, credential_id=credential.id)
        if first or replacement is not None:
            await self.store.set_token(player.id, replacement)
        self.forget([digest] + ([current] if current is not None and replacement is not None else []))

    async def viewer(self, authorization: str | None) -> Viewer:
        """The caller from an `Authorization` header: anonymous without one, Unauthorized if it is wrong."""
        if not authorization:
            return Viewer()
        token = bearer(authorization)
        if token is None:
            raise Unauthorized("use `Authorization: Bearer <token>`")
        if self.admin_token and hmac.compare_digest(token.encode(), self.admin_token.encode()):
            return Viewer(admin=True)
        digest = token_hash(token)
        identity = await self.identify(digest)
        if identity is None:
            raise Unauthorized("unknown, expired or revoked token")
        return Viewer(player=identity.player, scopes=identity.scopes, digest=digest)
