"""The repositories: an aggregate's current state from memory, a snapshot, or its stream.

One `Repository` serves every aggregate; what differs between a game and a tournament is its
`Codec` (how to fold, decode, encode and snapshot its events — a game's `Table`, or the tournament
codec) and how a stream's codec is found (`GameRepository` looks up the game's kind). States are
folded from the latest snapshot (kept in memory for recently used streams and in the store every
`snapshot_every` events, encoded by the codec's `dump_state`) plus the events after it.
Readers `load`: the cached state plus whatever the store has after it (one query when warm,
so a replica never serves a state older than its last read), or `current`: the cached state with
no query when this process knows it is current (see `Currency`). Deciders take `cached`: a cached
state without any query, since the append's head check refuses a decision on a stale state and
the command loop then reloads. Each entry keeps the hash of its head event, so the append need not
read it either.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import msgspec

from domain.kernel import Game
from domain.table import TABLE_EVENTS, Table, TableState
from service.commands.exceptions import GameNotFound, KindNotFound, NotFound, VersionNotFound
from service.store.protocol import EventStore, StoredEvent

_DOMAIN = Path(__file__).resolve().parents[2] / "domain"
S = TypeVar("S")


class Codec(Protocol[S]):
    """What the repository and the command loop need of an aggregate's decider (a `Table` is one)."""

    kind: str  # the streams' kind in the store, and the snapshot format's name

    def fold(self, events: list[Any], state: S | None = None) -> S: ...
    def decode_event(self, type_: str, data: dict[str, Any]) -> Any: ...
    def event_type(self, event: Any) -> str: ...
    def event_data(self, event: Any) -> dict[str, Any]: ...
    def dump_state(self, state: S) -> bytes: ...
    def load_state(self, data: bytes) -> S: ...


class Loaded(msgspec.Struct, Generic[S], frozen=True):
    """An aggregate's state as loaded: its codec (for a game, its `Table`), its state and head."""

    table: Any  # the aggregate's codec: a game's `Table`, or the tournament codec
    state: S
    head: str | None = None  # hash of the event at state.version, when known


def snapshot_format(kind: str) -> str:
    """Changes whenever the rules' source changes, so snapshots of older rules are ignored."""
    digest = hashlib.sha256()
    for path in sorted([*_DOMAIN.glob("*.py"), *(_DOMAIN / kind).glob("**/*.py")]):
        digest.update(path.read_bytes())
    return f"msgspec:{kind}:{digest.hexdigest()[:16]}"


class Currency:
    """Whether a cached state is known to be current, with no query.

    A process sees its own appends as it makes them (the repository remembers each new state).
    Another process's append reaches it as a fan-out message (`remote`, told by the broker), so a
    state cached at tick T is current while no message about its stream came after T, the fan-out
    has been live all along (`reset` when pushes may have been lost: Redis down, dropped messages,
    a subscription renewed) and it was read from the store or made here at most `max_age` seconds
    ago (a bound on what a message lost without notice could hide). The ticks of the last
    `capacity` streams told of are kept; an older one is forgotten by raising the floor every
    state must be newer than, so forgetting only ever costs a query.
    """

    def __init__(self, live: Any = None, max_age: float = 10.0, capacity: int = 10_000) -> None:
        self.live = live  # () -> bool: whether every append reaches this process (None: never trusted)
        self.max_age = max_age
        self.capacity = capacity
        self.tick = 0
        self.floor = 0  # a state seen at a tick below this may be stale
        self._told: OrderedDict[str, int] = OrderedDict()  # stream -> tick of its last remote append

    def remote(self, stream_id: str) -> None:
        """Another process appended to `stream_id` (a fan-out message)."""
        self.tick += 1
        self._told[stream_id] = self.tick
        self._told.move_to_end(stream_id)
        while len(self._told) > self.capacity:
            _, forgotten = self._told.popitem(last=False)
            self.floor = max(self.floor, forgotten)

    def reset(self) -> None:
        """Pushes may have been lost: nothing cached so far counts as current."""
        self.tick += 1
        self.floor = self.tick

    def holds(self, stream_id: str, seen_tick: int, seen_at: float) -> bool:
        """Whether a state of `stream_id` read at `seen_tick` (time.monotonic `seen_at`) is current."""
        return (self.live is not None and self.live() and seen_tick >= self.floor
                and self._told.get(stream_id, 0) <= seen_tick and time.monotonic() - seen_at <= self.max_age)


class Repository:
    """Loads the aggregates of one family and keeps recent states in a bounded LRU cache.

    A subclass says how a stream's codec is found (`codec_of`) and what "not found" is (`not_found`).
    """

    def __init__(self, store: EventStore, snapshot_every: int = 50, cache_size: int = 2000,
                 currency: Currency | None = None) -> None:
        self.store = store
        self.snapshot_every = snapshot_every
        self.currency = currency or Currency()
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._seen: dict[str, tuple[int, float]] = {}  # stream -> (tick, monotonic time) its cached state was current
        self._cache_size = cache_size
        self._formats: dict[str, str] = {}
        self._codecs: dict[str, Codec] = {}  # stream id -> codec (never changes)

    async def codec_of(self, stream_id: str) -> Codec | None:
        """The codec of an existing stream (None: no such stream)."""
        raise NotImplementedError

    def not_found(self, stream_id: str) -> NotFound:
        """The refusal of a stream that does not exist."""
        raise NotImplementedError

    async def cached(self, stream_id: str) -> Loaded:
        """The stream's state as last seen by this process (no query when cached); may be stale."""
        found = self._cache.get(stream_id)
        if found is not None:
            self._cache.move_to_end(stream_id)
            return found
        return await self.load(stream_id)

    def peek(self, stream_id: str) -> Loaded | None:
        """The cached state of the stream, if any (no query, no reordering)."""
        return self._cache.get(stream_id)

    async def current(self, stream_id: str) -> Loaded:
        """The stream's current state: the cached one with no query when `Currency` vouches for it,
        else `load`."""
        found = self._cache.get(stream_id)
        if found is not None:
            seen = self._seen.get(stream_id)
            if seen is not None and self.currency.holds(stream_id, *seen):
                self._cache.move_to_end(stream_id)
                return found
        return await self.load(stream_id)

    async def load(self, stream_id: str) -> Loaded:
        """The stream's current state: cached or snapshot state plus the events after it."""
        seen = (self.currency.tick, time.monotonic())  # before the query: a message during it makes this stale
        codec = self._codecs.get(stream_id) or await self.codec_of(stream_id)
        if codec is None:
            raise self.not_found(stream_id)
        cached = self._cache.get(stream_id)
        state, head = (cached.state, cached.head) if cached is not None else (None, None)
        if state is None:
            found = await self.store.load_snapshot(stream_id, self._format(codec.kind))
            if found is not None:
                state = codec.load_state(found[1])
        new = await self.store.read_stream(stream_id, after=state.version if state is not None else 0)
        if new:
            state = codec.fold([codec.decode_event(e.type, e.data) for e in new], state)
            head = new[-1].hash
        if state is None:
            raise self.not_found(stream_id)
        return self.remember(stream_id, Loaded(codec, state, head), seen)

    def remember(self, stream_id: str, loaded: Loaded, seen: tuple[int, float] | None = None) -> Loaded:
        """Cache `loaded`; `seen`: the (tick, time) it was known current at (default: now, as for a state
        this process just appended). A state older than the one cached is not kept: two requests
        finish in any order (a load that read version N, an append of N+1 remembered meanwhile), and
        the older answer must not replace the newer state that `Currency` would then vouch for."""
        self._codecs[stream_id] = loaded.table
        cached = self._cache.get(stream_id)
        if cached is not None and cached.state.version > loaded.state.version:
            self._cache.move_to_end(stream_id)
            return loaded
        self._cache[stream_id] = loaded
        self._cache.move_to_end(stream_id)
        self._seen[stream_id] = seen or (self.currency.tick, time.monotonic())
        while len(self._cache) > self._cache_size:
            dropped, _ = self._cache.popitem(last=False)
            self._seen.pop(dropped, None)
        return loaded

    def forget(self, stream_id: str) -> None:
        self._cache.pop(stream_id, None)
        self._seen.pop(stream_id, None)

    def clear(self) -> None:
        """Drop every cached state (the next load reads the store)."""
        self._cache.clear()
        self._seen.clear()

    async def saved(self, stream_id: str, before: int, state: Any) -> None:
        """Store a snapshot when `state` crossed a multiple of `snapshot_every` since version `before`."""
        codec = self._codecs.get(stream_id)
        if codec is not None and state.version // self.snapshot_every > before // self.snapshot_every:
            await self.store.save_snapshot(stream_id, state.version, self._format(codec.kind), codec.dump_state(state))

    def _format(self, kind: str) -> str:
        if kind not in self._formats:
            self._formats[kind] = snapshot_format(kind)
        return self._formats[kind]


class GameRepository(Repository):
    """The games of the hosted kinds; a game's codec is the `Table` of its kind."""

    def __init__(self, store: EventStore, games: dict[str, Game], snapshot_every: int = 50,
                 cache_size: int = 2000, currency: Currency | None = None) -> None:
        super().__init__(store, snapshot_every, cache_size, currency)
        self.tables = {kind: Table(game) for kind, game in games.items()}

    def table(self, kind: str) -> Table:
        table = self.tables.get(kind)
        if table is None:
            raise KindNotFound(f"no game kind {kind!r}")
        return table

    def kind_of(self, game_id: str) -> str:
        """The kind of a game loaded before, or "unknown" (a cheap metric label)."""
        codec = self._codecs.get(game_id)
        return codec.kind if codec is not None else "unknown"

    async def codec_of(self, stream_id: str) -> Table | None:
        kind = await self.store.stream_kind(stream_id)
        return self.table(kind) if kind is not None else None

    def not_found(self, stream_id: str) -> NotFound:
        return GameNotFound(f"no game with id {stream_id!r}")

    async def state_at(self, game_id: str, version: int) -> tuple[Loaded, TableState]:
        """The current game and its state after `version` events."""
        loaded = await self.load(game_id)
        if not 1 <= version <= loaded.state.version:
            raise VersionNotFound(f"the game has versions 1..{loaded.state.version}")
        stored = await self.store.read_stream(game_id, upto=version)
        return loaded, loaded.table.fold([decode(loaded.table, e) for e in stored])


def decode(table: Table, event: StoredEvent) -> object:
    """A stored event as its domain struct."""
    return table.decode_event(event.type, event.data)


_PLATFORM = {cls.__struct_config__.tag: cls for cls in TABLE_EVENTS}


def platform_event(event: StoredEvent | Any) -> Any | None:
    """A stored platform (`table.*`) event as its struct (`GameCreated`, `SeatTaken`...), else None."""
    cls = _PLATFORM.get(event.type)
    return msgspec.convert(event.data, cls) if cls is not None else None
