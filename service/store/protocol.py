"""The storage contract shared by the memory and PostgreSQL event stores.

Streams are keyed by (stream id, version); versions start at 1 and have no
gaps. The global log is read in (tx, position) order: `Cursor` is that pair,
and `read_all(after)` never yields an event that could still be preceded by
one committing later, so a subscriber that advances its cursor never skips.
Each event carries the SHA-256 of its predecessor in the same stream.
"""

from __future__ import annotations

import hashlib
import random
from datetime import datetime, timedelta
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Literal, Protocol

import msgspec

from domain.table import GameAborted, GameEnded, SeatTaken
from projections.base import Projection
from projections.deadlines import Deadline, Deadlines
from projections.log import LogEvent
from service.ops.background import Contended
from service.store.accounts import AccountStore
from service.store.ledger import Ledger

# the platform events `seats_of` reads, by their tags (the stores match them in SQL)
SEAT_TAKEN = str(SeatTaken.__struct_config__.tag)
ENDINGS = (str(GameEnded.__struct_config__.tag), str(GameAborted.__struct_config__.tag))

GENESIS_HASH = "0" * 64


class Cursor(msgspec.Struct, frozen=True, order=True, array_like=True):
    """A position in the global log: (transaction id, position)."""

    tx: int = 0
    position: int = 0


class NewEvent(msgspec.Struct, frozen=True):
    type: str
    data: dict[str, Any]


class Metadata(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    actor: str | None = None
    command_id: str | None = None
    correlation_id: str | None = None
    causation_id: str | None = None
    command: dict[str, Any] | None = None  # the command that produced the batch (first event only)
    seat: int | None = None
    to_act: list[int] | None = None  # seats that must act after this batch (for read models)


def new_command_id() -> str:
    """A version-4 UUID as text, for `Metadata.command_id`: an id that groups a command's events, not a
    secret, so drawn from `random` (no system call per command, unlike `uuid.uuid4()`)."""
    n = random.getrandbits(128) & ~(0xF << 76 | 0x3 << 62) | 0x4 << 76 | 0x2 << 62  # version 4, RFC 4122 variant
    h = f"{n:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class StoredEvent(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    tx: int
    stream_id: str
    version: int
    type: str
    data: dict[str, Any]
    metadata: dict[str, Any]
    at: datetime
    prev_hash: str
    hash: str

    @property
    def cursor(self) -> Cursor:
        return Cursor(self.tx, self.position)


class NewGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game stream written whole with an append (a tournament round's games, an arena's pairing): its
    batches of events in order, each with the metadata of its decision, and what it belongs to: the
    tournament `tournament_id` and its `round` (`link` "tournament", in `tournament_games`), or the arena
    `tournament_id` and its game number `round` (`link` "arena", in `arena_games`: no tournament's)."""

    game_id: str
    kind: str
    batches: list[tuple[list[NewEvent], Metadata]]
    tournament_id: str
    round: int
    link: Literal["tournament", "arena"] = "tournament"


class AppendResult(msgspec.Struct, frozen=True, kw_only=True):
    first_version: int
    last_version: int
    duplicate: bool = False
    head: str | None = None  # hash of the last appended event (None for a duplicate)
    events: list[StoredEvent] = []  # the stored batch (empty for a duplicate)
    fingerprint: str | None = None  # of the request that first used the key (duplicates only)
    refusal: dict[str, Any] | None = None  # the problem a refused first attempt got (nothing appended)
    stream_id: str | None = None  # the stream a key was used on (duplicates only)
    created: dict[str, list[StoredEvent]] = {}  # the stored events of each game the append created, by id


class Player(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    created_at: datetime


class ConcurrencyError(Exception):
    """The stream's version was not the expected one."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream_id} is at version {actual}, not {expected}")
        self.expected = expected
        self.actual = actual


class StoreUnavailable(Exception):
    """The database cannot be reached."""


class StreamLocked(StoreUnavailable, Contended):
    """Another transaction holds the stream's next version uncommitted: nothing was appended; retry soon."""


def event_hash(prev_hash: str, stream_id: str, version: int, type_: str, data: dict[str, Any]) -> str:
    """The chained hash of one event: SHA-256 over its predecessor's hash and canonical content."""
    body = msgspec.json.encode([prev_hash, stream_id, version, type_, data], order="sorted")
    return hashlib.sha256(body).hexdigest()


def chain(stream_id: str, version: int, prev: str, events: list[NewEvent],
          metadata: Metadata) -> list[tuple[int, str, dict[str, Any], dict[str, Any], str, str]]:
    """Rows (version, type, data, metadata, prev_hash, hash) for a batch appended after `version`.

    The command that caused the batch is kept in the first event's metadata only.
    """
    rows = []
    first_meta = msgspec.to_builtins(metadata)
    rest_meta = msgspec.to_builtins(msgspec.structs.replace(metadata, command=None))
    for i, event in enumerate(events):
        v = version + i + 1
        h = event_hash(prev, stream_id, v, event.type, event.data)
        rows.append((v, event.type, event.data, first_meta if i == 0 else rest_meta, prev, h))
        prev = h
    return rows


def cursor_pair(after: Cursor | tuple[int, int]) -> tuple[int, int]:
    """A cursor as the (tx, position) pair the projections' log reader takes."""
    return (after.tx, after.position) if isinstance(after, Cursor) else (after[0], after[1])


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SeatedGame(msgspec.Struct, frozen=True):
    """A game a player took a seat in, as `EventStore.seats_of` lists it."""

    player_id: str
    game_id: str
    last_at: datetime
    over: bool


class EventStore(Protocol):
    async def append(self, stream_id: str, expected_version: int, events: list[NewEvent], metadata: Metadata,
                     idempotency_key: str | None = None, kind: str | None = None,
                     prev_hash: str | None = None, fingerprint: str | None = None,
                     games: Sequence[NewGame] = ()) -> AppendResult:
        """Append atomically after `expected_version`; ConcurrencyError on a clash.

        `prev_hash`, when the caller knows the head's hash, saves reading it first.

        `games` are written whole in the same transaction, each linked to its tournament round, so
        that a round's pairing and its games commit together or not at all; a game whose stream
        exists already is skipped (its id and seed are pure functions of the tournament, so a second
        writer can only have written the same). Their stored events come back in `created`.

        With an `idempotency_key` already used by the same actor on this stream,
        nothing is appended and the first use's result is returned (duplicate=True, with the
        first request's `fingerprint` and, if it was refused, its `refusal`).
        """
        ...

    async def idempotent_result(self, stream_id: str, actor: str, key: str) -> AppendResult | None: ...
    async def refused(self, stream_id: str, actor: str, key: str, fingerprint: str,
                      refusal: dict[str, Any]) -> None:
        """Remember that the first use of `key` was refused with `refusal` (kept if the key is already used)."""
        ...
    async def keyed_stream(self, actor: str, key: str) -> AppendResult | None:
        """The first use of `key` by `actor` on any stream (for creates, whose stream is new)."""
        ...
    async def read_stream(self, stream_id: str, after: int = 0, upto: int | None = None) -> list[StoredEvent]: ...
    async def stream_version(self, stream_id: str) -> int: ...
    async def stream_kind(self, stream_id: str) -> str | None: ...
    async def stream_ids(self, after: str = "", limit: int = 1000) -> list[str]: ...
    async def newest_streams(self, kind: str, limit: int) -> list[str]:
        """The ids of the `limit` streams of `kind` created last, newest first (ties in id order)."""
        ...
    async def streams_since(self, kind: str, age: timedelta) -> list[str]:
        """The ids of the streams of `kind` created less than `age` ago."""
        ...
    async def tournaments_of(self, game_ids: list[str]) -> dict[str, str]:
        """The tournament of each of `game_ids` that belongs to one (`NewGame.link` "tournament")."""
        ...
    async def arenas_of(self, game_ids: list[str]) -> dict[str, str]:
        """The arena of each of `game_ids` that belongs to one (`NewGame.link` "arena")."""
        ...
    async def rating(self, kind: str, player_id: str) -> tuple[float, int] | None:
        """The player's (ordinal, rated games) of `kind` on the ratings read model; None before any rated
        game, and always on a store that keeps no read models (the in-memory one)."""
        ...
    async def seats_of(self, player_ids: list[str]) -> list[SeatedGame]:
        """Every game in which one of `player_ids` took a seat (`table.SeatTaken`), with its newest event's
        time and whether it has ended (finished or aborted); one indexed query for any number of players,
        never from a read model (so it never lags)."""
        ...
    async def read_all(self, after: Cursor | tuple[int, int], limit: int = 1000) -> list[LogEvent]:
        """The global log after `after` as projections read it (platform events' data only)."""
        ...
    async def save_snapshot(self, stream_id: str, version: int, fmt: str, state: bytes) -> None: ...
    async def load_snapshot(self, stream_id: str, fmt: str) -> tuple[int, bytes] | None: ...
    async def create_player(self, player_id: str, name: str, token_digest: str) -> Player: ...
    async def get_player(self, player_id: str) -> Player | None: ...
    async def player_by_token(self, token_digest: str) -> Player | None: ...
    async def set_token(self, player_id: str, token_digest: str | None) -> None:
        """Replace the player's token digest (None: revoked, no token works)."""
        ...
    async def token_digests(self, player_ids: list[str]) -> dict[str, str | None]:
        """Each known player's current token digest (None: revoked)."""
        ...
    def ledger(self) -> Ledger:
        """The transparency log the appends write their leaves into (`service.store.ledger`)."""
        ...
    def accounts(self) -> AccountStore:
        """Accounts, scoped credentials and OAuth apps kept beside the players (`service.store.accounts`)."""
        ...
    async def shared_key(self, name: str) -> bytes:
        """A random 32-byte key kept under `name`, the same for every process of this store."""
        ...

    async def ping(self) -> None: ...
    async def close(self) -> None: ...


class ReadSideStore(EventStore, Protocol):
    """A store as the workers use it: the event store and its read side (`service.store.readside.ReadSide` on
    PostgreSQL, `service.store.readside_memory.MemoryReadSide` in memory), so the result runners, the arena
    worker and the timeout worker run on either."""

    async def ensure_tables(self, projections: Iterable[Projection]) -> None:
        """The tables of `projections` and the followers' checkpoints, created if missing."""
        ...

    async def follow(self, name: str, size: int, handle: Callable[[list[LogEvent]], Awaitable[None]],
                     types: tuple[str, ...] = ()) -> int:
        """One batch of at most `size` events of the global log after follower `name`'s checkpoint (of `types`
        only, when given), handed to `handle`, and the checkpoint moved past it together; 0 (nothing read)
        while another follower of `name` holds it. How many events were read."""
        ...

    async def fire_due(self, model: Deadlines, now: Callable[[], int], limit: int, key: Callable[[Deadline], int],
                       fire: Callable[[Deadline, int], Awaitable[int]]) -> int:
        """The deadlines model caught up with the log, then `fire(row, now())` for each of the first `limit` rows
        due by then (the earliest first) that no other caller is firing (`key(row)`: its lock), each row dropped
        from the model after its firing; how many `fire` reported."""
        ...
