"""Accounts: a password to sign in with, sign-in sessions and personal access tokens, each revocable.

Passwords are hashed with Argon2id (argon2-cffi, its RFC 9106 defaults). Signing in costs the same
hash work whether the name is known or not: an unknown name is checked against a dummy hash made
with the same parameters, so neither the answer nor the work tells which names have accounts
(`Passwords.verifications` counts them, for the tests). Failed sign-ins are counted per name and
per address in the store (shared by every replica); past `max_failures` in `window_seconds` for a
name (`ADDRESS_FACTOR` times as many for an address, which many people may share) it is refused
(429) without any hash work until the window ends, for known and unknown names alike.
Tokens other than a player's first are `Credential`s with scopes (`service.commands.players`).
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from service.commands.exceptions import Conflict, InvalidRequest, NotFound, ServiceError, Unauthorized
from service.commands.players import EVERY, GRANTABLE, Players, new_token
from service.store.accounts import Credential
from service.store.protocol import EventStore, Player, token_hash

MIN_PASSWORD, MAX_PASSWORD = 8, 256
SESSION_DAYS = 30
ADDRESS_FACTOR = 10


class SignInFailed(Unauthorized):
    """The name and password do not match an account (which of the two is never said)."""


class SignInThrottled(ServiceError):
    """Too many failed sign-ins for this name or from this address; `headers` say when to retry."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("too many failed sign-ins; wait before trying again")
        self.headers = {"Retry-After": str(retry_after)}


class NameTaken(Conflict):
    """Another player signs in with this name already."""


class WeakPassword(InvalidRequest):
    """The password is too short or too long."""


class UnknownScope(InvalidRequest):
    """A scope that is not one of `GRANTABLE`."""


class TokenNotFound(NotFound):
    """No live token of the caller's with this id."""


def login_of(name: str) -> str:
    """The key a name signs in under: trimmed and case-folded."""
    return name.strip().casefold()


def scopes_of(requested: list[str]) -> list[str]:
    """The requested scopes in a stable order; UnknownScope for one that cannot be granted."""
    unknown = sorted(set(requested) - set(GRANTABLE))
    if unknown:
        raise UnknownScope(f"unknown scope {unknown[0]!r}; scopes are {', '.join(GRANTABLE)}")
    if not requested:
        raise UnknownScope(f"name at least one scope of {', '.join(GRANTABLE)}")
    return [s for s in GRANTABLE if s in requested]


class Passwords:
    """Argon2id hashing and verification, counted; `verify_or_dummy` does the same work for no hash."""

    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self.hasher = hasher or PasswordHasher()
        self.verifications = 0
        self._dummy: str | None = None

    async def hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def verify_or_dummy(self, stored: str | None, password: str) -> bool:
        """Whether `password` matches `stored`; with no stored hash, the same work against a dummy, False."""
        if self._dummy is None:
            self._dummy = await self.hash(secrets.token_urlsafe(16))
        self.verifications += 1
        try:
            ok = await asyncio.to_thread(self.hasher.verify, stored or self._dummy, password)
        except (VerificationError, InvalidHashError):
            return False
        return ok and stored is not None


class Accounts:
    """Passwords, sign-in and the caller's tokens, over the players' service and the account store."""

    def __init__(self, store: EventStore, players: Players, passwords: Passwords | None = None,
                 max_failures: int = 10, window_seconds: float = 900.0) -> None:
        self.store, self.players = store, players
        self.passwords = passwords or Passwords()
        self.max_failures, self.window_seconds = max_failures, window_seconds

    async def set_password(self, player: Player, password: str) -> str:
        """Set the player's password; its name becomes its login. NameTaken if another account has it."""
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise WeakPassword(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
        login = login_of(player.name)
        if not await self.store.accounts().set_password(player.id, login, await self.passwords.hash(password)):
            raise NameTaken(f"another player signs in as {player.name!r}; register under another name")
        return login

    async def sign_in(self, name: str, password: str, address: str) -> tuple[Player, Credential, str]:
        """A fresh session token (every scope) for the account of `name`; SignInFailed or SignInThrottled."""
        accounts, login = self.store.accounts(), login_of(name)
        keys = (f"login:{login}", f"address:{address}")
        for key, limit in zip(keys, (self.max_failures, self.max_failures * ADDRESS_FACTOR)):
            if await accounts.failures(key, self.window_seconds) >= limit:
                raise SignInThrottled(int(self.window_seconds))
        account = await accounts.account_by_login(login)
        ok = await self.passwords.verify_or_dummy(account.password_hash if account else None, password)
        player = await self.store.get_player(account.player_id) if ok and account else None
        if player is None:
            for key in keys:
                await accounts.note_failure(key, self.window_seconds)
            raise SignInFailed("the name and password do not match")
        await accounts.clear_failures(keys[0])
        credential, token = await self.issue(player, "session", "sign-in", sorted(EVERY),
                                             timedelta(days=SESSION_DAYS))
        return player, credential, token

    async def issue(self, player: Player, kind: str, name: str, scopes: list[str],
                    lifetime: timedelta | None = None) -> tuple[Credential, str]:
        """A new token of `kind` for `player` with `scopes` (and a lifetime, else none), stored; and the token."""
        token = new_token()
        now = datetime.now(UTC)
        credential = Credential(id=str(uuid.uuid4()), digest=token_hash(token), player_id=player.id, kind=kind,
                                name=name, scopes=scopes, created_at=now,
                                expires_at=now + lifetime if lifetime is not None else None)
        await self.store.accounts().add_credential(credential)
        return credential, token

    async def create_token(self, player: Player, name: str, scopes: list[str],
                           days: int | None = None) -> tuple[Credential, str]:
        """A personal access token with `scopes` (of GRANTABLE), expiring after `days` if given."""
        return await self.issue(player, "personal", name, scopes_of(scopes),
                                timedelta(days=days) if days is not None else None)

    async def tokens(self, player: Player) -> list[Credential]:
        return await self.store.accounts().credentials(player.id)

    async def revoke_token(self, player: Player, credential_id: str, missing_ok: bool = False) -> None:
        """Revoke one of the player's tokens by id; TokenNotFound if it has no live one of that id (unless
        `missing_ok`)."""
        live = [c for c in await self.tokens(player) if c.id == credential_id]
        if not live or not await self.store.accounts().revoke(player.id, credential_id=credential_id):
            if missing_ok:
                return
            raise TokenNotFound(f"no live token with id {credential_id!r}")
        self.players.forget([c.digest for c in live])
