"""The game repository: a game's current state from memory, a snapshot, or its stream.

States are folded from the latest snapshot (kept in memory for recently used games and in the
store every `snapshot_every` events, encoded by `Table.dump_state`) plus the events after it.
Readers `load`: the cached state plus whatever the store has after it (one query when warm,
so a replica never serves a state older than its last read). Deciders take `cached`: a cached
state without any query, since the append's head check refuses a decision on a stale state and
the pipeline then reloads. Each entry keeps the hash of its head event, so the append need not
read it either.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from pathlib import Path
from typing import Any

import msgspec

from domain.kernel import Game
from domain.table import TABLE_EVENTS, Table, TableState
from service.commands.exceptions import GameNotFound, KindNotFound, VersionNotFound
from service.store.protocol import EventStore, StoredEvent

_DOMAIN = Path(__file__).resolve().parent.parent / "domain"


class Loaded(msgspec.Struct, frozen=True):
    table: Table
    state: TableState
    head: str | None = None  # hash of the event at state.version, when known


def snapshot_format(kind: str) -> str:
    """Changes whenever the rules' source changes, so snapshots of older rules are ignored."""
    digest = hashlib.sha256()
    for path in sorted([*_DOMAIN.glob("*.py"), *(_DOMAIN / kind).glob("**/*.py")]):
        digest.update(path.read_bytes())
    return f"msgspec:{kind}:{digest.hexdigest()[:16]}"


class GameRepository:
    """Loads games of the hosted kinds and keeps recent states in a bounded LRU cache."""

    def __init__(self, store: EventStore, games: dict[str, Game], snapshot_every: int = 50,
                 cache_size: int = 2000) -> None:
        self.store = store
        self.tables = {kind: Table(game) for kind, game in games.items()}
        self.snapshot_every = snapshot_every
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._cache_size = cache_size
        self._formats: dict[str, str] = {}
        self._kinds: dict[str, str] = {}  # game id -> kind (never changes)

    def table(self, kind: str) -> Table:
        table = self.tables.get(kind)
        if table is None:
            raise KindNotFound(f"no game kind {kind!r}")
        return table

    def kind_of(self, game_id: str) -> str:
        """The kind of a game loaded before, or "unknown" (a cheap metric label)."""
        return self._kinds.get(game_id, "unknown")

    async def cached(self, game_id: str) -> Loaded:
        """The game's state as last seen by this process (no query when cached); may be stale."""
        found = self._cache.get(game_id)
        if found is not None:
            self._cache.move_to_end(game_id)
            return found
        return await self.load(game_id)

    def peek(self, game_id: str) -> Loaded | None:
        """The cached state of the game, if any (no query, no reordering)."""
        return self._cache.get(game_id)

    async def load(self, game_id: str) -> Loaded:
        """The game's current state: cached or snapshot state plus the events after it."""
        kind = self._kinds.get(game_id)
        if kind is None:
            kind = await self.store.stream_kind(game_id)
            if kind is None:
                raise GameNotFound(f"no game with id {game_id!r}")
            self._kinds[game_id] = kind
        table = self.table(kind)
        cached = self._cache.get(game_id)
        state, head = (cached.state, cached.head) if cached is not None else (None, None)
        if state is None:
            found = await self.store.load_snapshot(game_id, self._format(kind))
            if found is not None:
                state = table.load_state(found[1])
        new = await self.store.read_stream(game_id, after=state.version if state is not None else 0)
        if new:
            state = table.fold([decode(table, e) for e in new], state)
            head = new[-1].hash
        if state is None:
            raise GameNotFound(f"no game with id {game_id!r}")
        return self.remember(game_id, Loaded(table, state, head))

    def remember(self, game_id: str, loaded: Loaded) -> Loaded:
        self._kinds[game_id] = loaded.state.kind
        self._cache[game_id] = loaded
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return loaded

    def forget(self, game_id: str) -> None:
        self._cache.pop(game_id, None)

    def clear(self) -> None:
        """Drop every cached state (the next load reads the store)."""
        self._cache.clear()

    async def saved(self, game_id: str, before: int, state: TableState) -> None:
        """Store a snapshot when `state` crossed a multiple of `snapshot_every` since version `before`."""
        if state.version // self.snapshot_every > before // self.snapshot_every:
            table = self.table(state.kind)
            await self.store.save_snapshot(game_id, state.version, self._format(state.kind), table.dump_state(state))

    async def state_at(self, game_id: str, version: int) -> tuple[Loaded, TableState]:
        """The current game and its state after `version` events."""
        loaded = await self.load(game_id)
        if not 1 <= version <= loaded.state.version:
            raise VersionNotFound(f"the game has versions 1..{loaded.state.version}")
        stored = await self.store.read_stream(game_id, upto=version)
        return loaded, loaded.table.fold([decode(loaded.table, e) for e in stored])

    def _format(self, kind: str) -> str:
        if kind not in self._formats:
            self._formats[kind] = snapshot_format(kind)
        return self._formats[kind]


def decode(table: Table, event: StoredEvent) -> object:
    """A stored event as its domain struct."""
    return table.decode_event(event.type, event.data)


_PLATFORM = {cls.__struct_config__.tag: cls for cls in TABLE_EVENTS}


def platform_event(event: StoredEvent | Any) -> Any | None:
    """A stored platform (`table.*`) event as its struct (`GameCreated`, `SeatTaken`...), else None."""
    cls = _PLATFORM.get(event.type)
    return msgspec.convert(event.data, cls) if cls is not None else None
