"""PostgreSQL's `AccountStore` (tables of migration 008): accounts, credentials, OAuth apps and codes."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

from service.store.accounts import BEFORE_START, Account, AuthCode, BotSeat, Credential, OAuthClient

_CREDENTIAL = """id, digest, player_id, kind, name, scopes, client_id, grant_digest, refresh_digest, created_at,
                 expires_at, refresh_expires_at, revoked_at"""
_BOT = ("id, player_id, strategy, strength, game_id, tournament_id, token_id, lease_owner, lease_until, done_at, "
        "created_at, arena_id")
_CODE = "digest, client_id, player_id, redirect_uri, scope, challenge, method, expires_at, used_at"


# One attempt under a key: a new window when the last one is over, else one more while below the limit;
# no row back (NULL) when the key is at its limit. $2: the window in seconds, $3: the limit.
_ATTEMPT = """INSERT INTO sign_in_failures (key, window_start, failures) VALUES ($1, now(), 1)
              ON CONFLICT (key) DO UPDATE SET
                failures = CASE WHEN sign_in_failures.window_start < now() - make_interval(secs => $2)
                           THEN 1 ELSE sign_in_failures.failures + 1 END,
                window_start = CASE WHEN sign_in_failures.window_start < now() - make_interval(secs => $2)
                               THEN now() ELSE sign_in_failures.window_start END
              WHERE sign_in_failures.window_start < now() - make_interval(secs => $2)
                 OR sign_in_failures.failures < $3
              RETURNING failures"""


_PRUNE = """DELETE FROM sign_in_failures WHERE key IN (
                SELECT key FROM sign_in_failures WHERE window_start < now() - make_interval(secs => $1)
                ORDER BY window_start LIMIT 4 FOR UPDATE SKIP LOCKED)"""


class _AtLimit(Exception):
    """A key of an attempt is at its limit: the attempt's transaction rolls back."""


def _credential(row: Any) -> Credential:
    return Credential(**{**dict(row), "scopes": list(row["scopes"])})


class PostgresAccounts:
    """AccountStore on the service's pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def set_password(self, player_id: str, login: str, password_hash: str) -> bool:
        try:
            await self.pool.execute(
                """INSERT INTO accounts (player_id, login, password_hash) VALUES ($1, $2, $3)
                   ON CONFLICT (player_id) DO UPDATE SET login = $2, password_hash = $3, updated_at = now()""",
                player_id, login, password_hash)
        except asyncpg.UniqueViolationError:  # the login is another player's
            return False
        return True

    async def account_by_login(self, login: str) -> Account | None:
        row = await self.pool.fetchrow("SELECT player_id, login, password_hash FROM accounts WHERE login = $1", login)
        return Account(**dict(row)) if row else None

    async def account_of(self, player_id: str) -> Account | None:
        row = await self.pool.fetchrow(
            "SELECT player_id, login, password_hash FROM accounts WHERE player_id = $1", player_id)
        return Account(**dict(row)) if row else None

    async def add_credential(self, credential: Credential) -> None:
        c = credential
        await self.pool.execute(
            f"INSERT INTO credentials ({_CREDENTIAL}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            c.id, c.digest, c.player_id, c.kind, c.name, c.scopes, c.client_id, c.grant_digest, c.refresh_digest,
            c.created_at, c.expires_at, c.refresh_expires_at, c.revoked_at)

    async def credential(self, digest: str) -> Credential | None:
        row = await self.pool.fetchrow(f"SELECT {_CREDENTIAL} FROM credentials WHERE digest = $1", digest)
        return _credential(row) if row else None

    async def credential_by_refresh(self, refresh_digest: str) -> Credential | None:
        row = await self.pool.fetchrow(f"SELECT {_CREDENTIAL} FROM credentials WHERE refresh_digest = $1",
                                       refresh_digest)
        return _credential(row) if row else None

    async def credentials(self, player_id: str) -> list[Credential]:
        rows = await self.pool.fetch(
            f"""SELECT {_CREDENTIAL} FROM credentials WHERE player_id = $1 AND revoked_at IS NULL
                AND (expires_at IS NULL OR expires_at > now() OR refresh_expires_at > now())
                ORDER BY created_at, id""", player_id)
        return [_credential(r) for r in rows]

    async def revoke(self, player_id: str, *, credential_id: str | None = None, client_id: str | None = None,
                     grant_digest: str | None = None) -> int:
        status = await self.pool.execute(
            """UPDATE credentials SET revoked_at = now() WHERE player_id = $1 AND revoked_at IS NULL
               AND (id = $2 OR client_id = $3 OR grant_digest = $4)""",
            player_id, credential_id, client_id, grant_digest)
        return int(status.split()[-1])

    async def live_digests(self, digests: list[str]) -> set[str]:
        return set((await self.live_until(digests))[1])

    async def token_changes(self) -> int | None:
        return await self.pool.fetchval("SELECT n FROM token_changes")

    async def live_until(self, digests: list[str]) -> tuple[int | None, dict[str, float | None]]:
        # one statement, so one snapshot: no change can fall between the count and the digests
        rows = await self.pool.fetch(
            """WITH live AS (
                   SELECT token_hash AS digest, NULL::float8 AS until FROM players WHERE token_hash = ANY($1::text[])
                   UNION ALL
                   SELECT digest, extract(epoch FROM expires_at)::float8 FROM credentials
                   WHERE digest = ANY($1::text[]) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()))
               SELECT (SELECT n FROM token_changes), live.digest, live.until FROM (VALUES (1)) AS one
               LEFT JOIN live ON true""", digests)
        return rows[0][0], {r[1]: r[2] for r in rows if r[1] is not None}

    async def player_digests(self, player_id: str) -> list[str]:
        rows = await self.pool.fetch(
            """SELECT token_hash FROM players WHERE id = $1 AND token_hash IS NOT NULL
               UNION ALL SELECT digest FROM credentials WHERE player_id = $1 AND revoked_at IS NULL
                     AND (expires_at IS NULL OR expires_at > now())""", player_id)
        return [r[0] for r in rows]

    async def add_client(self, client: OAuthClient) -> None:
        await self.pool.execute(
            """INSERT INTO oauth_clients (client_id, name, redirect_uris, scopes, owner_id, created_at)
               VALUES ($1, $2, $3, $4, $5, $6)""",
            client.client_id, client.name, client.redirect_uris, client.scopes, client.owner_id, client.created_at)

    async def client(self, client_id: str) -> OAuthClient | None:
        row = await self.pool.fetchrow(
            "SELECT client_id, name, redirect_uris, scopes, owner_id, created_at FROM oauth_clients WHERE client_id = $1",
            client_id)
        if row is None:
            return None
        return OAuthClient(**{**dict(row), "redirect_uris": list(row["redirect_uris"]), "scopes": list(row["scopes"])})

    async def add_code(self, code: AuthCode) -> None:
        await self.pool.execute(
            f"INSERT INTO oauth_codes ({_CODE}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            code.digest, code.client_id, code.player_id, code.redirect_uri, code.scope, code.challenge, code.method,
            code.expires_at, code.used_at)

    async def use_code(self, digest: str) -> AuthCode | None:
        # only one use can find it unused: a concurrent one waits for the row and then sees it used
        row = await self.pool.fetchrow(
            f"UPDATE oauth_codes SET used_at = now() WHERE digest = $1 AND used_at IS NULL RETURNING {_CODE}", digest)
        if row is not None:
            return msgspec.structs.replace(AuthCode(**dict(row)), used_at=None)
        row = await self.pool.fetchrow(f"SELECT {_CODE} FROM oauth_codes WHERE digest = $1", digest)
        return AuthCode(**dict(row)) if row else None

    async def take_attempt(self, limits: list[tuple[str, int]], window_seconds: float) -> bool:
        # Each key's row is counted up only below its limit, and stays locked to the end of the transaction,
        # so concurrent attempts (any replica) queue on it and see each other's counts; keys in sorted
        # order, so two attempts never wait on each other. One key at its limit rolls back the others.
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                for key, limit in sorted(limits):
                    if await conn.fetchval(_ATTEMPT, key, window_seconds, limit) is None:
                        raise _AtLimit
        except _AtLimit:
            return False
        finally:  # rows of windows that are over, a few an attempt: SKIP LOCKED, so never a wait
            await self.pool.execute(_PRUNE, window_seconds)
        return True

    async def forgive(self, keys: list[str]) -> None:
        await self.pool.execute(
            "UPDATE sign_in_failures SET failures = greatest(failures - 1, 0) WHERE key = ANY($1::text[])", keys)

    async def clear_failures(self, key: str) -> None:
        await self.pool.execute("DELETE FROM sign_in_failures WHERE key = $1", key)

    async def add_bot(self, bot: BotSeat) -> None:
        await self.pool.execute(
            f"INSERT INTO bots ({_BOT}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            bot.id, bot.player_id, bot.strategy, bot.strength, bot.game_id, bot.tournament_id, bot.token_id,
            bot.lease_owner, bot.lease_until, bot.done_at, bot.created_at, bot.arena_id)

    async def lease_bots(self, worker: str, seconds: float, limit: int) -> list[tuple[BotSeat, str | None]]:
        # which bots and in what order: service.store.accounts, above `activity` (the same rule in Python).
        # Per bot one backward index lookup (its stream's last event: its activity, and whether its game
        # is past its seats); only a game still taking seats has its few events counted. SKIP LOCKED: two
        # workers asking at once each take other bots, never the same one
        rows = await self.pool.fetch(
            f"""WITH free AS (
                    SELECT b.id, b.lease_owner AS before FROM bots b
                    LEFT JOIN LATERAL (
                        SELECT e.type, e.at FROM events e
                        WHERE e.stream_id = coalesce(b.game_id, 'tournament-' || b.tournament_id, 'arena-' || b.arena_id)
                        ORDER BY e.version DESC LIMIT 1) last ON true
                    WHERE b.done_at IS NULL AND (b.lease_owner = $1 OR b.lease_until IS NULL OR b.lease_until < now())
                      AND (b.game_id IS NULL OR last.type <> ALL($4::text[])
                           OR (SELECT count(*) FILTER (WHERE e.type = 'table.SeatTaken')
                                      - count(*) FILTER (WHERE e.type = 'table.SeatLeft')
                                      >= max((e.data->>'seats')::int) FILTER (WHERE e.version = 1)
                               FROM events e WHERE e.stream_id = b.game_id))
                    ORDER BY coalesce(last.at, b.created_at) DESC LIMIT $3
                    FOR UPDATE OF b SKIP LOCKED)
                UPDATE bots SET lease_owner = $1, lease_until = now() + make_interval(secs => $2)
                FROM free WHERE bots.id = free.id
                RETURNING {', '.join('bots.' + c.strip() for c in _BOT.split(','))}, free.before""",
            worker, seconds, limit, list(BEFORE_START))
        return [(BotSeat(**{k: v for k, v in dict(r).items() if k != "before"}),
                 r["before"] if r["before"] != worker else None) for r in rows]

    async def set_bot_token(self, bot_id: str, token_id: str) -> None:
        await self.pool.execute("UPDATE bots SET token_id = $2 WHERE id = $1", bot_id, token_id)

    async def finish_bot(self, bot_id: str) -> BotSeat | None:
        row = await self.pool.fetchrow(f"SELECT {_BOT} FROM bots WHERE id = $1", bot_id)
        await self.pool.execute("UPDATE bots SET done_at = coalesce(done_at, now()) WHERE id = $1", bot_id)
        return BotSeat(**dict(row)) if row else None
