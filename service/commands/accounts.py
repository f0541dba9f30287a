"""Accounts: a password to sign in with, sign-in sessions and personal access tokens, each revocable.

A player's name is a display name (any number of players may share one); an account signs in with its
**login**, a handle unique among accounts (trimmed, NFC, case-folded), chosen when the password is first
set or, when none is asked for, the name's own if free and the name with a short suffix if not: names
are never refused, and only a handle's own availability shows (as choosing any unique handle does).
Passwords are hashed with Argon2id (argon2-cffi; by default its own defaults, RFC 9106's second
recommendation; STELA_ARGON2_* set the cost). Signing in costs the same hash work whether the login is known
or not: an unknown one is checked against a dummy hash with the same parameters (`Passwords.verifications`
counts them, for the tests). Every attempt is counted before any hash work, atomically in the store (shared
by every replica): per login and client address (`max_failures` in `window_seconds`), per login from
anywhere (`LOGIN_FACTOR` times as many, so a stranger at one address cannot lock the owner out at another)
and per address (`ADDRESS_FACTOR` times, for an address many people share). An attempt over any limit is
refused (429) without a hash, so a burst of any size costs at most the limit in hashes; a successful one is
taken back. Changing a password asks for the current one (or a session signed in within `FRESH_SECONDS`) and
ends every other token of the player unless it keeps them.
Tokens other than a player's first are `Credential`s with scopes (`service.commands.players`).
"""

from __future__ import annotations

import asyncio
import secrets
import unicodedata
import uuid
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from service.commands.exceptions import Conflict, Forbidden, InvalidRequest, NotFound, ServiceError, Unauthorized
from service.commands.players import EVERY, GRANTABLE, Players, display_name, new_token
from service.store.accounts import Account, Credential
from service.store.protocol import EventStore, Player, token_hash

MIN_PASSWORD, MAX_PASSWORD = 8, 256
SESSION_DAYS = 30
ADDRESS_FACTOR = 10  # attempts from one address, for any logins, per `max_failures`
LOGIN_FACTOR = 10  # attempts at one login, from any addresses, per `max_failures`
FRESH_SECONDS = 600  # a session this young may change its password without the current one


class SignInFailed(Unauthorized):
    """The login and password do not match an account (which of the two is never said)."""


class SignInThrottled(ServiceError):
    """Too many sign-in attempts for this login from this address, for this login, or from this address;
    `headers` say when to retry."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("too many sign-in attempts; wait before trying again")
        self.headers = {"Retry-After": str(retry_after)}


class LoginTaken(Conflict):
    """Another account signs in with the login asked for."""


class LoginRequired(InvalidRequest):
    """A sign-in names no login, or two (`login` and the older `name`)."""


class ReauthenticationRequired(Forbidden):
    """Changing an account's password needs its current password, or a session signed in just now."""


class WeakPassword(InvalidRequest):
    """The password is too short or too long."""


class UnknownScope(InvalidRequest):
    """A scope that is not one of `GRANTABLE`."""


class TokenNotFound(NotFound):
    """No live token of the caller's with this id."""


def login_of(text: str) -> str:
    """The key a login is found under: trimmed, NFC-normalised and case-folded."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).strip().casefold())


def login_given(login: str | None, name: str | None) -> str:
    """The login a sign-in names: `login`, or `name` from clients older than logins; LoginRequired if neither
    or both."""
    if (login is None) == (name is None):
        raise LoginRequired("send `login` (or, from older clients, `name`), not both")
    return login if login is not None else name  # type: ignore[return-value]


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

    @classmethod
    def costing(cls, time_cost: int, memory_kib: int, parallelism: int) -> "Passwords":
        """New hashes at this Argon2id cost (STELA_ARGON2_*); a stored hash is verified at its own."""
        return cls(PasswordHasher(time_cost=time_cost, memory_cost=memory_kib, parallelism=parallelism))

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

    async def set_password(self, player: Player, password: str, address: str, digest: str | None = None, *,
                           login: str | None = None, current: str | None = None,
                           keep_tokens: bool = False) -> tuple[str, int]:
        """Set the player's password (and `login`, if given); the account's login and how many other tokens
        were ended. A change (the account has a password) needs `current` or a fresh session (`digest`, the
        caller's token): ReauthenticationRequired; it ends every token but `digest` unless `keep_tokens`.
        LoginTaken if another account has the login asked for."""
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise WeakPassword(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
        account = await self.store.accounts().account_of(player.id)
        if account is not None:
            await self._reauthenticated(account, digest, current, address)
        wanted = login_of(display_name(login)) if login is not None else None
        chosen = await self._claim(player, account, wanted, await self.passwords.hash(password))
        ended = 0 if account is None or keep_tokens else await self._end_others(player, digest)
        return chosen, ended

    async def _claim(self, player: Player, account: Account | None, wanted: str | None, hashed: str) -> str:
        """Store `hashed` under the login asked for, else the account's own, else the name's if free and the
        name with a random suffix if not (a taken name is never refused: names are not logins)."""
        accounts = self.store.accounts()
        if wanted is not None or account is not None:
            login = wanted if wanted is not None else account.login  # type: ignore[union-attr]
            if not await accounts.set_password(player.id, login, hashed):
                raise LoginTaken(f"another account signs in as {login!r}; choose another login")
            return login
        base = login_of(player.name)
        for login in [base] + [f"{base}-{secrets.token_hex(3)}" for _ in range(5)]:
            if await accounts.set_password(player.id, login, hashed):
                return login
        raise LoginTaken("no free login near the player's name; choose a login")  # 16M suffixes taken: absurd

    async def _reauthenticated(self, account: Account, digest: str | None, current: str | None,
                               address: str) -> None:
        """Nothing when `current` is the account's password (checked like a sign-in, throttle included) or
        the caller's token is a session signed in within FRESH_SECONDS; else ReauthenticationRequired."""
        if current is not None:
            if await self._checked(account.login, address, current) is None:
                raise ReauthenticationRequired("the current password is wrong")
            return
        credential = await self.store.accounts().credential(digest) if digest is not None else None
        age = (datetime.now(UTC) - credential.created_at).total_seconds() if credential else None
        if credential is None or credential.kind != "session" or age is None or age > FRESH_SECONDS:
            raise ReauthenticationRequired(
                f"send `current_password`, or sign in again and change it within {FRESH_SECONDS // 60} minutes")

    async def _end_others(self, player: Player, digest: str | None) -> int:
        """Revoke every token of the player but the one of `digest` (its first token included); how many."""
        accounts = self.store.accounts()
        others = [c for c in await accounts.credentials(player.id) if c.digest != digest]
        for c in others:
            await accounts.revoke(player.id, credential_id=c.id)
        gone = [c.digest for c in others]
        first = (await self.store.token_digests([player.id])).get(player.id)
        if first is not None and first != digest:
            await self.store.set_token(player.id, None)
            gone.append(first)
        self.players.forget(gone)
        return len(gone)

    async def _checked(self, login: str, address: str, password: str) -> Account | None:
        """The account of `login` if `password` is its password, else None; the attempt counted first
        (SignInThrottled past a limit, before any hash work) and taken back when it succeeds."""
        accounts = self.store.accounts()
        pair, per_login, per_address = f"pair:{login}\n{address}", f"login:{login}", f"address:{address}"
        limits = [(pair, self.max_failures), (per_login, self.max_failures * LOGIN_FACTOR),
                  (per_address, self.max_failures * ADDRESS_FACTOR)]
        if not await accounts.take_attempt(limits, self.window_seconds):
            raise SignInThrottled(int(self.window_seconds))
        account = await accounts.account_by_login(login)
        ok = await self.passwords.verify_or_dummy(account.password_hash if account else None, password)
        if not ok or account is None:
            return None
        await accounts.clear_failures(pair)
        await accounts.forgive([per_login, per_address])
        return account

    async def sign_in(self, login: str, password: str, address: str) -> tuple[Player, Credential, str]:
        """A fresh session token (every scope) for the account of `login`; SignInFailed or SignInThrottled."""
        account = await self._checked(login_of(login), address, password)
        player = await self.store.get_player(account.player_id) if account is not None else None
        if player is None:
            raise SignInFailed("the login and password do not match")
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
