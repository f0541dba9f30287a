"""The storage contract of accounts, scoped credentials and OAuth apps, and its in-memory implementation.

A player's first token stays where it always was (`players.token_hash`, every scope); every other
bearer token is a `Credential`: a sign-in session, a personal access token or an OAuth access token,
with its scopes, optional expiry and (OAuth) refresh token, kept by SHA-256 digest only. A revoked
credential is kept (revoked) so that a replayed code or refresh token can be traced to it.
`live_digests` is what stream revocation asks: which of these token digests still work now (`live_until`
with their expiries, and `token_changes`, which tells it when asking again is needed).
PostgreSQL's implementation is `service.store.accounts_pg`; one contract suite runs on both.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import msgspec


class Account(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    login: str  # the case-folded name a player signs in with
    password_hash: str


class Credential(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    digest: str
    player_id: str
    kind: str  # "session" | "personal" | "oauth"
    name: str
    scopes: list[str]
    client_id: str | None = None
    grant_digest: str | None = None
    refresh_digest: str | None = None
    created_at: datetime = msgspec.field(default_factory=lambda: datetime.now(UTC))
    expires_at: datetime | None = None
    refresh_expires_at: datetime | None = None
    revoked_at: datetime | None = None

    def live(self, now: datetime) -> bool:
        """Whether the token works at `now`: not revoked, not expired."""
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)


class OAuthClient(msgspec.Struct, frozen=True, kw_only=True):
    client_id: str
    name: str
    redirect_uris: list[str]
    scopes: list[str]
    owner_id: str
    created_at: datetime = msgspec.field(default_factory=lambda: datetime.now(UTC))


class AuthCode(msgspec.Struct, frozen=True, kw_only=True):
    digest: str
    client_id: str
    player_id: str
    redirect_uri: str
    scope: str
    challenge: str
    method: str
    expires_at: datetime
    used_at: datetime | None = None


class BotSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A bot the platform plays: in one game (`game_id`) or in every game of a tournament (`tournament_id`) or
    of an arena (`arena_id`)."""

    id: str
    player_id: str
    strategy: str
    strength: int
    game_id: str | None = None
    tournament_id: str | None = None
    token_id: str | None = None
    arena_id: str | None = None
    lease_owner: str | None = None
    lease_until: datetime | None = None
    done_at: datetime | None = None
    created_at: datetime = msgspec.field(default_factory=lambda: datetime.now(UTC))


class AccountStore(Protocol):
    async def set_password(self, player_id: str, login: str, password_hash: str) -> bool:
        """Set the player's login and password hash; False if another player has that login."""
        ...
    async def account_by_login(self, login: str) -> Account | None: ...
    async def account_of(self, player_id: str) -> Account | None: ...
    async def add_credential(self, credential: Credential) -> None: ...
    async def credential(self, digest: str) -> Credential | None:
        """The credential of an access token's digest, revoked or expired ones included."""
        ...
    async def credential_by_refresh(self, refresh_digest: str) -> Credential | None: ...
    async def credentials(self, player_id: str) -> list[Credential]:
        """The player's credentials that are neither revoked nor expired (refresh included), oldest first."""
        ...
    async def revoke(self, player_id: str, *, credential_id: str | None = None, client_id: str | None = None,
                     grant_digest: str | None = None) -> int:
        """Revoke the player's credentials matching one of the keys; how many were live."""
        ...
    async def live_digests(self, digests: list[str]) -> set[str]:
        """Which of these token digests work now (a player's first token, or a live credential)."""
        ...
    async def token_changes(self) -> int | None:
        """A count that moves whenever a token may have stopped working other than by expiring (revoked,
        rotated, deleted); None when the store keeps none (then every check looks every token up)."""
        ...
    async def live_until(self, digests: list[str]) -> tuple[int | None, dict[str, float | None]]:
        """`live_digests`, each with its expiry (Unix seconds; None: it never expires), and `token_changes`
        as it was when they were read."""
        ...
    async def player_digests(self, player_id: str) -> list[str]:
        """Every token digest of the player that works now."""
        ...
    async def add_client(self, client: OAuthClient) -> None: ...
    async def client(self, client_id: str) -> OAuthClient | None: ...
    async def add_code(self, code: AuthCode) -> None: ...
    async def use_code(self, digest: str) -> AuthCode | None:
        """Mark the code used and return it as it was before (`used_at` set if it had been used already)."""
        ...
    async def take_attempt(self, limits: list[tuple[str, int]], window_seconds: float) -> bool:
        """Count one sign-in attempt under every key of `limits` at once if each key is below its limit in its
        current window (a window starts at a key's first attempt and lasts `window_seconds`); False, and
        nothing counted, if any key is at its limit. Atomic across callers and replicas."""
        ...
    async def forgive(self, keys: list[str]) -> None:
        """Take one attempt back from each key (an attempt that succeeded was no failure)."""
        ...
    async def clear_failures(self, key: str) -> None: ...
    async def add_bot(self, bot: BotSeat) -> None: ...
    async def lease_bots(self, worker: str, seconds: float, limit: int) -> list[tuple[BotSeat, str | None]]:
        """Lease to `worker` for `seconds` its own unfinished bots and free ones (never leased, or their lease
        ran out), at most `limit`, each once even with workers asking at the same time; each with the worker
        that held it before (None: nobody, or `worker` itself). Only bots with something to play: a bot of
        a game is leased once its game is full or under way (never while it waits for players), and the
        bots whose game or tournament moved last go first (the comment above `activity`)."""
        ...
    async def set_bot_token(self, bot_id: str, token_id: str) -> None: ...
    async def finish_bot(self, bot_id: str) -> BotSeat | None:
        """Mark the bot done; the bot as it was, None if unknown."""
        ...


# Which bots a worker leases (`lease_bots`). A worker holds at most `limit` bots, so a bot with nothing to
# play must not hold a place: bots of open games nobody fills would otherwise keep new bot games waiting
# for ever. A bot of a game is leasable once its game is full (the bot starts it) or has started, aborted
# or ended (the bot plays it, or says it is done); a bot of a tournament or an arena always is. Leasable bots go by
# when their game's (or tournament's) stream last moved, latest first: a worker with more bots than it
# may hold keeps the busy ones, and a bot whose game stalls gives its place up until the game moves.
# A game's stream holds only these until it starts or is aborted (its start brings the game's own events).
BEFORE_START = ("table.GameCreated", "table.SeatTaken", "table.SeatLeft")


def stream_of_bot(bot: BotSeat) -> str:
    """The stream whose activity decides when the bot is leased: its game's, its tournament's or its arena's."""
    if bot.game_id is not None:
        return bot.game_id
    return f"tournament-{bot.tournament_id}" if bot.tournament_id is not None else f"arena-{bot.arena_id}"


def activity(bot: BotSeat, events: list[Any]) -> datetime | None:
    """When the bot's stream (`events`) last moved, None while the bot has nothing to play."""
    if bot.game_id is None:
        return events[-1].at if events else bot.created_at
    if not events:
        return None
    if events[-1].type not in BEFORE_START:
        return events[-1].at
    types = [e.type for e in events]
    seated = types.count("table.SeatTaken") - types.count("table.SeatLeft")
    return events[-1].at if seated >= events[0].data["seats"] else None


def _now() -> datetime:
    return datetime.now(UTC)


class MemoryAccounts:
    """AccountStore in process memory, beside a `MemoryStore`'s players (`tokens`: player id -> digest)."""

    def __init__(self, players: dict[str, tuple[Any, str]], streams: dict[str, list[Any]] | None = None) -> None:
        self._players = players
        self._streams = {} if streams is None else streams  # the event store's streams (what bots wait for)
        self.accounts: dict[str, Account] = {}
        self.by_digest: dict[str, Credential] = {}
        self.clients: dict[str, OAuthClient] = {}
        self.codes: dict[str, AuthCode] = {}
        self.windows: dict[str, tuple[datetime, int]] = {}
        self.bots: dict[str, BotSeat] = {}

    async def set_password(self, player_id: str, login: str, password_hash: str) -> bool:
        holder = next((a for a in self.accounts.values() if a.login == login), None)
        if holder is not None and holder.player_id != player_id:
            return False
        self.accounts[player_id] = Account(player_id=player_id, login=login, password_hash=password_hash)
        return True

    async def account_by_login(self, login: str) -> Account | None:
        return next((a for a in self.accounts.values() if a.login == login), None)

    async def account_of(self, player_id: str) -> Account | None:
        return self.accounts.get(player_id)

    async def add_credential(self, credential: Credential) -> None:
        self.by_digest[credential.digest] = credential

    async def credential(self, digest: str) -> Credential | None:
        return self.by_digest.get(digest)

    async def credential_by_refresh(self, refresh_digest: str) -> Credential | None:
        return next((c for c in self.by_digest.values() if c.refresh_digest == refresh_digest), None)

    async def credentials(self, player_id: str) -> list[Credential]:
        now = _now()
        return sorted((c for c in self.by_digest.values() if c.player_id == player_id and c.revoked_at is None
                       and (c.live(now) or (c.refresh_expires_at is not None and c.refresh_expires_at > now))),
                      key=lambda c: c.created_at)

    async def revoke(self, player_id: str, *, credential_id: str | None = None, client_id: str | None = None,
                     grant_digest: str | None = None) -> int:
        now, count = _now(), 0
        for digest, c in list(self.by_digest.items()):
            wanted = ((credential_id is not None and c.id == credential_id)
                      or (client_id is not None and c.client_id == client_id)
                      or (grant_digest is not None and c.grant_digest == grant_digest))
            if c.player_id == player_id and wanted and c.revoked_at is None:
                self.by_digest[digest] = msgspec.structs.replace(c, revoked_at=now)
                count += 1
        return count

    async def live_digests(self, digests: list[str]) -> set[str]:
        now, firsts = _now(), {t for _, t in self._players.values() if t}
        return {d for d in digests if d in firsts or ((c := self.by_digest.get(d)) is not None and c.live(now))}

    async def token_changes(self) -> int | None:
        return None

    async def live_until(self, digests: list[str]) -> tuple[int | None, dict[str, float | None]]:
        return None, {d: None for d in await self.live_digests(digests)}

    async def player_digests(self, player_id: str) -> list[str]:
        now, first = _now(), self._players.get(player_id, (None, ""))[1]
        own = [c.digest for c in self.by_digest.values() if c.player_id == player_id and c.live(now)]
        return ([first] if first else []) + own

    async def add_client(self, client: OAuthClient) -> None:
        self.clients[client.client_id] = client

    async def client(self, client_id: str) -> OAuthClient | None:
        return self.clients.get(client_id)

    async def add_code(self, code: AuthCode) -> None:
        self.codes[code.digest] = code

    async def use_code(self, digest: str) -> AuthCode | None:
        code = self.codes.get(digest)
        if code is not None and code.used_at is None:
            self.codes[digest] = msgspec.structs.replace(code, used_at=_now())
        return code

    async def take_attempt(self, limits: list[tuple[str, int]], window_seconds: float) -> bool:
        # no await between the check and the count: atomic on the one event loop
        now, current = _now(), {}
        for key, limit in limits:
            start, count = self.windows.get(key, (now, 0))
            if (now - start).total_seconds() >= window_seconds:
                start, count = now, 0
            if count >= limit:
                return False
            current[key] = (start, count)
        for key, (start, count) in current.items():
            self.windows[key] = (start, count + 1)
        return True

    async def forgive(self, keys: list[str]) -> None:
        for key in keys:
            if key in self.windows:
                start, count = self.windows[key]
                self.windows[key] = (start, max(0, count - 1))

    async def clear_failures(self, key: str) -> None:
        self.windows.pop(key, None)

    async def add_bot(self, bot: BotSeat) -> None:
        self.bots[bot.id] = bot

    async def lease_bots(self, worker: str, seconds: float, limit: int) -> list[tuple[BotSeat, str | None]]:
        now, out = _now(), []
        live = [(bot, at) for bot in self.bots.values() if bot.done_at is None
                and (at := activity(bot, self._streams.get(stream_of_bot(bot), []))) is not None]
        for bot, _ in sorted(live, key=lambda pair: pair[1], reverse=True):
            free = bot.lease_owner == worker or bot.lease_until is None or bot.lease_until < now
            if free and len(out) < limit:
                before = bot.lease_owner if bot.lease_owner != worker else None
                self.bots[bot.id] = msgspec.structs.replace(bot, lease_owner=worker,
                                                            lease_until=now + timedelta(seconds=seconds))
                out.append((self.bots[bot.id], before))
        return out

    async def set_bot_token(self, bot_id: str, token_id: str) -> None:
        self.bots[bot_id] = msgspec.structs.replace(self.bots[bot_id], token_id=token_id)

    async def finish_bot(self, bot_id: str) -> BotSeat | None:
        bot = self.bots.get(bot_id)
        if bot is not None and bot.done_at is None:
            self.bots[bot_id] = msgspec.structs.replace(bot, done_at=_now())
        return bot
