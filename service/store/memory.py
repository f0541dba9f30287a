"""In-memory event store: the same contract as PostgreSQL, for fast tests (never for serving: nothing
survives the process, and only one process sees it).

Every append commits instantly, so the transaction id is simply a counter
and the global order is the append order. Its read side (`MemoryReadSide`: the log followers'
checkpoints and the deadlines) lets the workers, tournaments and arenas run on it as on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from projections.log import LogEvent
from service.store.accounts import MemoryAccounts
from service.store.ledger import MemoryLedger, entries_of_rows
from service.store.readside_memory import MemoryReadSide
from service.store.protocol import (
    ENDINGS, GENESIS_HASH, SEAT_TAKEN, AppendResult, ConcurrencyError, Cursor, Metadata, NewEvent, NewGame, Player,
    SeatedGame, StoredEvent, chain, cursor_pair,
)


class MemoryStore(MemoryReadSide):
    """EventStore kept in process memory."""

    def __init__(self) -> None:
        super().__init__()
        self.streams: dict[str, list[StoredEvent]] = {}
        self.kinds: dict[str, str] = {}
        self.log: list[StoredEvent] = []
        self.idempotency: dict[tuple[str, str, str], AppendResult] = {}
        self.snapshots: dict[str, tuple[int, str, bytes]] = {}
        self.tournament_games: dict[str, tuple[str, int]] = {}  # game id -> (tournament id, round)
        self.arena_games: dict[str, tuple[str, int]] = {}  # game id -> (arena id, game number)
        self.created: dict[str, datetime] = {}  # stream id -> when its first event was written
        self.players: dict[str, tuple[Player, str]] = {}
        self.listeners: list[asyncio.Event] = []
        self._tx = 0
        self._keys: dict[str, bytes] = {}
        self._accounts: MemoryAccounts | None = None
        self._ledger = MemoryLedger()

    async def append(self, stream_id: str, expected_version: int, events: list[NewEvent], metadata: Metadata,
                     idempotency_key: str | None = None, kind: str | None = None,
                     prev_hash: str | None = None, fingerprint: str | None = None,
                     games: Sequence[NewGame] = ()) -> AppendResult:
        actor = metadata.actor or ""
        if idempotency_key and (found := self.idempotency.get((stream_id, actor, idempotency_key))):
            return found
        version = len(self.streams.get(stream_id, []))
        prev = self.streams[stream_id][-1].hash if version else GENESIS_HASH
        if version != expected_version or (prev_hash is not None and prev_hash != prev):
            raise ConcurrencyError(stream_id, expected_version, version)
        self._tx += 1  # the batch and its new games share one transaction
        stored = self._write(stream_id, kind, [(events, metadata)])
        created = {g.game_id: self._write(g.game_id, g.kind, g.batches) for g in games if g.game_id not in self.streams}
        for g in games:
            if g.game_id in created:
                links = self.arena_games if g.link == "arena" else self.tournament_games
                links[g.game_id] = (g.tournament_id, g.round)
        result = AppendResult(first_version=version + 1, last_version=version + len(events), head=stored[-1].hash,
                              events=stored, created=created)
        if idempotency_key:
            self.idempotency[(stream_id, actor, idempotency_key)] = AppendResult(
                first_version=result.first_version, last_version=result.last_version, duplicate=True,
                fingerprint=fingerprint, stream_id=stream_id)
        for listener in self.listeners:
            listener.set()
        return result

    def _write(self, stream_id: str, kind: str | None, batches: Sequence[tuple[list[NewEvent], Metadata]]
               ) -> list[StoredEvent]:
        """Store `batches` after the stream's head in the current transaction; the events stored."""
        stream = self.streams.setdefault(stream_id, [])
        now, stored = datetime.now(UTC), []
        if not stream:
            self.kinds[stream_id] = kind or ""
            self.created[stream_id] = now
        for events, metadata in batches:
            head = stored[-1].hash if stored else stream[-1].hash if stream else GENESIS_HASH
            for v, type_, data, meta, before, h in chain(stream_id, len(stream) + len(stored), head, events, metadata):
                stored.append(StoredEvent(position=len(self.log) + len(stored) + 1, tx=self._tx, stream_id=stream_id,
                                          version=v, type=type_, data=data, metadata=meta, at=now, prev_hash=before,
                                          hash=h))
        stream.extend(stored)
        self.log.extend(stored)
        self._ledger.write(entries_of_rows(stream_id, [(e.version, e.type, e.data, None, None, e.hash) for e in stored]))
        return stored

    def ledger(self) -> MemoryLedger:
        """The transparency log beside these streams (`service.store.ledger`)."""
        return self._ledger

    async def tournaments_of(self, game_ids: list[str]) -> dict[str, str]:
        """The tournament of each of `game_ids` that belongs to one (as `ReadSide.tournaments_of`)."""
        return {g: self.tournament_games[g][0] for g in game_ids if g in self.tournament_games}

    async def arenas_of(self, game_ids: list[str]) -> dict[str, str]:
        return {g: self.arena_games[g][0] for g in game_ids if g in self.arena_games}

    async def rating(self, kind: str, player_id: str) -> tuple[float, int] | None:
        return None  # no read models here: nobody has a rating yet

    async def idempotent_result(self, stream_id: str, actor: str, key: str) -> AppendResult | None:
        return self.idempotency.get((stream_id, actor, key))

    async def refused(self, stream_id: str, actor: str, key: str, fingerprint: str,
                      refusal: dict[str, Any]) -> None:
        self.idempotency.setdefault((stream_id, actor, key), AppendResult(
            first_version=0, last_version=0, duplicate=True, fingerprint=fingerprint, refusal=refusal,
            stream_id=stream_id))

    async def keyed_stream(self, actor: str, key: str) -> AppendResult | None:
        if not key.startswith("create:"):
            return None
        return next((r for (_, a, k), r in self.idempotency.items() if a == actor and k == key), None)

    async def read_stream(self, stream_id: str, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        stream = self.streams.get(stream_id, [])
        return stream[after:upto]

    async def stream_version(self, stream_id: str) -> int:
        return len(self.streams.get(stream_id, []))

    async def stream_kind(self, stream_id: str) -> str | None:
        return self.kinds.get(stream_id)

    async def stream_ids(self, after: str = "", limit: int = 1000) -> list[str]:
        return sorted(s for s in self.streams if s > after)[:limit]

    async def newest_streams(self, kind: str, limit: int) -> list[str]:
        ids = sorted(s for s, k in self.kinds.items() if k == kind)
        ids.sort(key=self.created.__getitem__, reverse=True)  # stable: ties stay in id order
        return ids[:limit]

    async def streams_since(self, kind: str, age: timedelta) -> list[str]:
        since = datetime.now(UTC) - age
        return [s for s, k in self.kinds.items() if k == kind and self.created[s] > since]

    async def seats_of(self, player_ids: list[str]) -> list[SeatedGame]:
        wanted, out = set(player_ids), []
        for game_id, events in list(self.streams.items()):
            seated = {e.data.get("player_id") for e in events if e.type == SEAT_TAKEN} & wanted
            over = any(e.type in ENDINGS for e in events)
            out += [SeatedGame(player_id, game_id, events[-1].at, over) for player_id in sorted(seated)]
        return out

    async def read_all(self, after: Cursor | tuple[int, int], limit: int = 1000) -> list[LogEvent]:
        return self.after(cursor_pair(after), limit)

    async def save_snapshot(self, stream_id: str, version: int, fmt: str, state: bytes) -> None:
        current = self.snapshots.get(stream_id)
        if current is None or current[0] < version:
            self.snapshots[stream_id] = (version, fmt, state)

    async def load_snapshot(self, stream_id: str, fmt: str) -> tuple[int, bytes] | None:
        found = self.snapshots.get(stream_id)
        return (found[0], found[2]) if found and found[1] == fmt else None

    async def create_player(self, player_id: str, name: str, token_digest: str) -> Player:
        player = Player(id=player_id, name=name, created_at=datetime.now(UTC))
        self.players[player_id] = (player, token_digest)
        return player

    async def get_player(self, player_id: str) -> Player | None:
        found = self.players.get(player_id)
        return found[0] if found else None

    async def player_by_token(self, token_digest: str) -> Player | None:
        return next((p for p, t in self.players.values() if t and t == token_digest), None)

    async def set_token(self, player_id: str, token_digest: str | None) -> None:
        player, _ = self.players[player_id]
        self.players[player_id] = (player, token_digest or "")

    async def token_digests(self, player_ids: list[str]) -> dict[str, str | None]:
        return {i: self.players[i][1] or None for i in player_ids if i in self.players}

    def accounts(self) -> MemoryAccounts:
        """Accounts, scoped credentials and OAuth apps beside these players (`service.store.accounts`)."""
        if self._accounts is None:
            self._accounts = MemoryAccounts(self.players, self.streams)
        return self._accounts

    async def shared_key(self, name: str) -> bytes:
        """A random key kept under `name` for as long as this store lives."""
        return self._keys.setdefault(name, secrets.token_bytes(32))

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        return None

