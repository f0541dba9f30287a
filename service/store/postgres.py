"""PostgreSQL event store on asyncpg.

Appends are one statement: check the stream head, insert the batch with its
hash chain, record the idempotency key and a new stream, and return only the
positions, transaction id and time the caller cannot know (the rows themselves
it built). Under load, appends that arrive while `slots` append statements are in
flight go together, one statement and one commit for them all, each checked
against its own stream's head (`service.store.appending`); an append waits at most a
short lock timeout for another transaction's uncommitted insert of its stream's next
version (`StreamLocked`), so a stuck stream holds up no other. Writers are never
serialised: `NOTIFY stela_events` (which takes a cluster-wide lock at commit) is
opt-in (`STELA_PG_NOTIFY`, and then every append goes alone); projectors are
woken by the fan-out and a short poll instead. The global log is read by
`projections.log.read_after`, the one reader of the ordering rule.
"""

from __future__ import annotations

import asyncio
import functools
import operator
import secrets
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any, ParamSpec, TypeVar

import asyncpg
import msgspec

from projections.log import LogEvent, read_after
from service.store import bulk
from service.store.appending import (
    APPEND_SLOTS, APPENDS, CHANNEL, LOCK_TIMEOUT, MANY, GroupCommit, Outcome, Prepared, many_arguments, outcome,
)
from service.store.errors import UNAVAILABLE
from service.store.migrations import migrate
from service.store.readside import ReadSide
from service.store.accounts_pg import PostgresAccounts
from service.store.ledger import entries_of_rows
from service.store.ledger_pg import PostgresLedger
from service.store.protocol import (
    ENDINGS, GENESIS_HASH, SEAT_TAKEN, AppendResult, ConcurrencyError, Cursor, Metadata, NewEvent, NewGame, Player,
    SeatedGame, StoredEvent, StoreUnavailable, StreamLocked, chain, cursor_pair,
)

# literal types, so the planner matches the partial index of migration 004 for any player id
_SEATS_OF = f"""SELECT s.player_id, s.stream_id, last.at,
                       EXISTS (SELECT 1 FROM events x WHERE x.stream_id = s.stream_id
                               AND x.type IN ('{ENDINGS[0]}', '{ENDINGS[1]}'))
                FROM (SELECT DISTINCT data->>'player_id' AS player_id, stream_id FROM events
                      WHERE type = '{SEAT_TAKEN}' AND data->>'player_id' = ANY($1::text[])) AS s
                CROSS JOIN LATERAL (SELECT at FROM events e WHERE e.stream_id = s.stream_id
                                    ORDER BY e.version DESC LIMIT 1) AS last"""
_encode = msgspec.json.encode
_COLUMNS = "position, tx, stream_id, version, type, data, metadata, at, prev_hash, hash"
def _stored(item: Prepared, records: Sequence[Sequence[Any]]) -> AppendResult:
    """The result of an append whose rows went in: `records` are their (position, tx, at), in order."""
    stored = [StoredEvent(position=rec[0], tx=rec[1], stream_id=item.stream_id, version=v, type=t, data=d,
                          metadata=m, at=rec[2], prev_hash=p, hash=h)
              for rec, (v, t, d, m, p, h) in zip(records, item.rows)]
    return AppendResult(first_version=item.expected + 1, last_version=item.expected + len(item.rows),
                        head=item.rows[-1][5], events=stored)


def _record_event(row: asyncpg.Record) -> StoredEvent:
    return StoredEvent(position=row[0], tx=row[1], stream_id=row[2], version=row[3], type=row[4],
                       data=row[5], metadata=row[6], at=row[7], prev_hash=row[8], hash=row[9])


# A pooled connection PostgreSQL has ended (fast shutdown, pg_terminate_backend, failover) fails
# its next use with one of these; the pool then drops it, so a second try gets a fresh one.
DEAD_CONNECTION = (asyncpg.exceptions.PostgresConnectionError, asyncpg.exceptions.InterfaceError,
                   asyncpg.exceptions.InternalClientError, asyncpg.exceptions.AdminShutdownError, ConnectionError)
P = ParamSpec("P")
R = TypeVar("R")


def retried_read(read: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A read that finds its connection dead is tried once more (reads are safe to repeat)."""

    @functools.wraps(read)
    async def again(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await read(*args, **kwargs)
        except DEAD_CONNECTION:
            return await read(*args, **kwargs)

    return again


def _keyed(row: asyncpg.Record | None) -> AppendResult | None:
    if row is None:
        return None
    return AppendResult(first_version=row[0], last_version=row[1], duplicate=True, fingerprint=row[2],
                        refusal=row[3], stream_id=row[4])


def _json(value: object) -> str:
    return _encode(value).decode()


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", encoder=lambda v: msgspec.json.encode(v).decode(),
                              decoder=msgspec.json.decode, schema="pg_catalog")


async def keep_session(conn: asyncpg.Connection) -> None:
    """No per-release reset query: pooled connections never change session state (saves a round trip)."""


# the keys `shared_key` keeps (the table's name is older than its second use)
_KEY_TABLE = """CREATE TABLE IF NOT EXISTS stela_ticket_keys (
    name text PRIMARY KEY, key bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now())"""


# seconds a group statement waits for a lock (at most the store's `lock_timeout`): while it waits, so does every
# append it carries and every one that arrives (one group at a time), so it gives up early and its appends go
# again alone, side by side, each waiting up to `lock_timeout` (`service.store.appending`; `bench.store --hold`)
GROUP_LOCK_TIMEOUT = 0.05
# seconds a pooled connection may sit unused before it is closed (asyncpg's default is 300): a replica past a
# burst gives its connections back to the server within half a minute, keeping one; the test suite's
# long-lived sites, idle between the tests that use them, otherwise held over 70 of PostgreSQL's 100 at once
POOL_IDLE_SECONDS = 30.0


class PostgresStore(ReadSide):
    """EventStore on a PostgreSQL pool."""

    logged = True  # appends write the transparency log's leaves (bench.store turns it off to price them)

    def __init__(self, pool: asyncpg.Pool, notify: bool = False, slots: int = APPEND_SLOTS,
                 lock_timeout: float = LOCK_TIMEOUT) -> None:
        self.pool = pool
        # NOTIFY takes a cluster-wide lock at commit, serialising notifying writers (see the README)
        self.notify = notify
        # appends that arrive while `slots` append statements are in flight go together (group commit)
        self.group = GroupCommit(self._alone, self._together, slots)
        # an append waits no longer for a lock another transaction holds (0: as long as it takes); a group
        # statement less long (GROUP_LOCK_TIMEOUT), since every append of the group and behind it waits with it
        self.lock_timeout = f"{round(lock_timeout * 1000)}ms"
        self.group_lock_timeout = f"{round(min(lock_timeout, GROUP_LOCK_TIMEOUT) * 1000)}ms" if lock_timeout > 0 else "0ms"

    @classmethod
    async def connect(cls, dsn: str, max_size: int = 20, notify: bool = False,
                      command_timeout: float | None = 10.0, slots: int = APPEND_SLOTS,
                      lock_timeout: float = LOCK_TIMEOUT, idle_seconds: float = POOL_IDLE_SECONDS) -> "PostgresStore":
        """A pool of at most `max_size` connections, closing any left unused for `idle_seconds` but one;
        every statement waits at most `command_timeout` s; at most `slots` append statements in flight (the
        appends arriving meanwhile go together); an append waits at most `lock_timeout` s for a lock
        (StreamLocked)."""
        try:
            pool = await asyncpg.create_pool(dsn, min_size=1, max_size=max_size, init=_init_connection,
                                             reset=keep_session, command_timeout=command_timeout,
                                             max_inactive_connection_lifetime=idle_seconds)
        except (OSError, asyncpg.PostgresError) as exc:
            raise StoreUnavailable(str(exc)) from exc
        try:
            async with pool.acquire() as conn:
                await migrate(conn)
        except (OSError, TimeoutError, *UNAVAILABLE) as exc:  # the database went away meanwhile
            pool.terminate()
            raise StoreUnavailable(str(exc)) from exc
        return cls(pool, notify, slots, lock_timeout)

    async def close(self) -> None:
        """Close gracefully, but never hang a shutdown on a connection somebody still holds."""
        try:
            await asyncio.wait_for(self.pool.close(), 10)
        except TimeoutError:
            self.pool.terminate()

    async def ping(self) -> None:
        try:
            await self.pool.fetchval("SELECT 1", timeout=2)
        except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
            raise StoreUnavailable(str(exc)) from exc

    def ledger(self) -> PostgresLedger:
        """The transparency log on this store's pool (`service.store.ledger`)."""
        return PostgresLedger(self.pool)

    def accounts(self) -> PostgresAccounts:
        """Accounts, scoped credentials and OAuth apps on this store's pool (`service.store.accounts`)."""
        return PostgresAccounts(self.pool)

    async def shared_key(self, name: str) -> bytes:
        """A random 32-byte key kept under `name` for every replica, generated by the first to ask."""
        async with self.pool.acquire() as conn, conn.transaction():
            # replicas starting together would race on CREATE TABLE IF NOT EXISTS; one at a time
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('stela_ticket_keys'))")
            await conn.execute(_KEY_TABLE)
            await conn.execute("INSERT INTO stela_ticket_keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                               name, secrets.token_bytes(32))
            return bytes(await conn.fetchval("SELECT key FROM stela_ticket_keys WHERE name = $1", name))

    # -- appending ---------------------------------------------------------------
    async def append(self, stream_id: str, expected_version: int, events: list[NewEvent], metadata: Metadata,
                     idempotency_key: str | None = None, kind: str | None = None,
                     prev_hash: str | None = None, fingerprint: str | None = None,
                     games: Sequence[NewGame] = ()) -> AppendResult:
        args = (stream_id, expected_version, events, metadata, idempotency_key, kind, prev_hash, fingerprint)
        if not games:
            item = await self._prepared(*args)
            if isinstance(item, AppendResult):
                return item
            return await (self._alone(item) if self.notify else self.group.append(item))
        # the batch and the new games in one transaction: a round's pairing never commits without its games
        async with self.pool.acquire() as conn, conn.transaction():
            item = await self._prepared(*args)
            result = item if isinstance(item, AppendResult) else await self._send(conn, item)
            if result.duplicate:
                return result
            created = await bulk.create_games(conn, games, self.logged)
        return msgspec.structs.replace(result, created=created)

    async def _prepared(self, stream_id: str, expected_version: int, events: list[NewEvent], metadata: Metadata,
                        key: str | None, kind: str | None, prev_hash: str | None,
                        fingerprint: str | None) -> Prepared | AppendResult:
        """The append's rows, hash chain and all, ready to send; a key's first result when the head the
        append follows is gone (ConcurrencyError raised when it has none)."""
        actor = metadata.actor or ""
        if prev_hash is None:
            prev_hash = GENESIS_HASH if expected_version == 0 else await self.pool.fetchval(
                "SELECT hash FROM events WHERE stream_id = $1 AND version = $2", stream_id, expected_version)
        if prev_hash is None:
            return await self._refused(stream_id, expected_version, actor, key)
        rows = chain(stream_id, expected_version, prev_hash, events, metadata)
        return Prepared(stream_id, expected_version, prev_hash, rows, actor, key, kind or "", fingerprint,
                        entries_of_rows(stream_id, rows) if self.logged else [])

    async def _alone(self, item: Prepared) -> AppendResult:
        return await self._send(self.pool, item)

    async def _send(self, conn: Any, item: Prepared) -> AppendResult:
        """The one-statement append on `conn` (the pool, or a connection in its caller's transaction)."""
        rows = item.rows
        batch = len(rows) != 1
        statement, arguments = APPENDS[batch, item.expected == 0, item.key is not None, self.notify, bool(item.leaves)]
        if batch:
            values = {"v": [r[0] for r in rows], "t": [r[1] for r in rows], "d": [_json(r[2]) for r in rows],
                      "m": [_json(r[3]) for r in rows], "p": [r[4] for r in rows], "h": [r[5] for r in rows]}
        else:
            (v, t, d, m, p, h), = rows
            values = {"v": v, "t": t, "d": _json(d), "m": _json(m), "p": p, "h": h}
        values.update(stream=item.stream_id, expected=item.expected, prev_hash=item.prev_hash, actor=item.actor,
                      key=item.key, count=len(rows), kind=item.kind, fingerprint=item.fingerprint,
                      lock_timeout=self.lock_timeout, lv=[e[1] for e in item.leaves], lb=[e[2] for e in item.leaves],
                      lh=[e[3] for e in item.leaves])
        try:
            records = await conn.fetch(statement, *arguments(values))
        except asyncpg.UniqueViolationError:
            records = []
        except asyncpg.LockNotAvailableError as exc:
            raise StreamLocked(f"stream {item.stream_id} is being written by another transaction; retry") from exc
        if not records:
            return await self._refused(item.stream_id, item.expected, item.actor, item.key)
        return _stored(item, records)

    async def _together(self, items: list[Prepared]) -> list[Outcome]:
        """Several appends (one per stream) in one statement; each one's result, or its refusal."""
        try:
            columns = many_arguments(items, _json)
            records = await self.pool.fetch(MANY, *columns[:17], self.group_lock_timeout, *columns[17:])
        except asyncpg.LockNotAvailableError as exc:
            raise StreamLocked("another transaction holds one of the group's streams") from exc
        except (asyncpg.UniqueViolationError, asyncpg.DeadlockDetectedError):
            # another process appended to one of these streams meanwhile: each finds out alone which
            return [await outcome(self._alone(item)) for item in items]
        found: dict[str, list[asyncpg.Record]] = {}
        for record in records:
            found.setdefault(record[0], []).append(record)
        out: list[Outcome] = []
        for item in items:
            mine = found.get(item.stream_id)
            if mine:
                out.append(_stored(item, [r[2:] for r in sorted(mine, key=operator.itemgetter(1))]))
            else:
                out.append(await outcome(self._refused(item.stream_id, item.expected, item.actor, item.key)))
        return out

    async def _refused(self, stream_id: str, expected: int, actor: str, key: str | None) -> AppendResult:
        """Nothing was appended: the first result of a repeated idempotency key, else a conflict."""
        if key:
            found = await self._idempotent(self.pool, stream_id, actor, key)
            if found:
                return found
        raise ConcurrencyError(stream_id, expected, await self.stream_version(stream_id))

    async def _idempotent(self, conn: Any, stream_id: str, actor: str, key: str) -> AppendResult | None:
        row = await conn.fetchrow(
            "SELECT first_version, last_version, fingerprint, refusal, stream_id FROM idempotency "
            "WHERE stream_id = $1 AND actor = $2 AND key = $3", stream_id, actor, key)
        return _keyed(row)

    @retried_read
    async def idempotent_result(self, stream_id: str, actor: str, key: str) -> AppendResult | None:
        return await self._idempotent(self.pool, stream_id, actor, key)

    async def refused(self, stream_id: str, actor: str, key: str, fingerprint: str,
                      refusal: dict[str, Any]) -> None:
        await self.pool.execute(
            "INSERT INTO idempotency (stream_id, actor, key, first_version, last_version, fingerprint, refusal) "
            "VALUES ($1, $2, $3, 0, 0, $4, $5) ON CONFLICT DO NOTHING", stream_id, actor, key, fingerprint, refusal)

    @retried_read
    async def keyed_stream(self, actor: str, key: str) -> AppendResult | None:
        row = await self.pool.fetchrow(
            "SELECT first_version, last_version, fingerprint, refusal, stream_id FROM idempotency "
            "WHERE actor = $1 AND key = $2 AND key LIKE 'create:%'", actor, key)
        return _keyed(row)

    # -- reading -----------------------------------------------------------------
    @retried_read
    async def read_stream(self, stream_id: str, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        rows = await self.pool.fetch(
            f"SELECT {_COLUMNS} FROM events WHERE stream_id = $1 AND version > $2 AND version <= $3 "
            "ORDER BY version", stream_id, after, upto if upto is not None else 2**31 - 1)
        return [_record_event(r) for r in rows]

    @retried_read
    async def stream_version(self, stream_id: str) -> int:
        return await self.pool.fetchval(
            "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1", stream_id)

    @retried_read
    async def stream_kind(self, stream_id: str) -> str | None:
        return await self.pool.fetchval("SELECT kind FROM streams WHERE stream_id = $1", stream_id)

    @retried_read
    async def stream_ids(self, after: str = "", limit: int = 1000) -> list[str]:
        rows = await self.pool.fetch(
            "SELECT stream_id FROM streams WHERE stream_id > $1 ORDER BY stream_id LIMIT $2", after, limit)
        return [r[0] for r in rows]

    async def newest_streams(self, kind: str, limit: int) -> list[str]:
        rows = await self.pool.fetch(
            "SELECT stream_id FROM streams WHERE kind = $1 ORDER BY created_at DESC, stream_id LIMIT $2", kind, limit)
        return [r[0] for r in rows]

    async def streams_since(self, kind: str, age: timedelta) -> list[str]:
        rows = await self.pool.fetch(
            "SELECT stream_id FROM streams WHERE kind = $1 AND created_at > now() - $2::interval", kind, age)
        return [r[0] for r in rows]

    @retried_read
    async def seats_of(self, player_ids: list[str]) -> list[SeatedGame]:
        rows = await self.pool.fetch(_SEATS_OF, list(player_ids))
        return [SeatedGame(r[0], r[1], r[2], r[3]) for r in rows]

    @retried_read
    async def read_all(self, after: Cursor | tuple[int, int], limit: int = 1000) -> list[LogEvent]:
        async with self.pool.acquire() as conn:
            return await read_after(conn, cursor_pair(after), limit)

    # -- snapshots ---------------------------------------------------------------
    async def save_snapshot(self, stream_id: str, version: int, fmt: str, state: bytes) -> None:
        await self.pool.execute(
            """INSERT INTO snapshots (stream_id, version, format, state) VALUES ($1, $2, $3, $4)
               ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, format = excluded.format,
               state = excluded.state, saved_at = now() WHERE snapshots.version < excluded.version""",
            stream_id, version, fmt, state)

    @retried_read
    async def load_snapshot(self, stream_id: str, fmt: str) -> tuple[int, bytes] | None:
        row = await self.pool.fetchrow(
            "SELECT version, state FROM snapshots WHERE stream_id = $1 AND format = $2", stream_id, fmt)
        return (row[0], bytes(row[1])) if row else None

    # -- players -----------------------------------------------------------------
    async def create_player(self, player_id: str, name: str, token_digest: str) -> Player:
        row = await self.pool.fetchrow(
            "INSERT INTO players (id, name, token_hash) VALUES ($1, $2, $3) RETURNING id, name, created_at",
            player_id, name, token_digest)
        return Player(id=row[0], name=row[1], created_at=row[2])

    @retried_read
    async def get_player(self, player_id: str) -> Player | None:
        row = await self.pool.fetchrow("SELECT id, name, created_at FROM players WHERE id = $1", player_id)
        return Player(id=row[0], name=row[1], created_at=row[2]) if row else None

    @retried_read
    async def player_by_token(self, token_digest: str) -> Player | None:
        row = await self.pool.fetchrow(
            "SELECT id, name, created_at FROM players WHERE token_hash = $1", token_digest)
        return Player(id=row[0], name=row[1], created_at=row[2]) if row else None

    async def set_token(self, player_id: str, token_digest: str | None) -> None:
        await self.pool.execute("UPDATE players SET token_hash = $2 WHERE id = $1", player_id, token_digest)

    @retried_read
    async def token_digests(self, player_ids: list[str]) -> dict[str, str | None]:
        rows = await self.pool.fetch("SELECT id, token_hash FROM players WHERE id = ANY($1::text[])", player_ids)
        return {r[0]: r[1] for r in rows}
