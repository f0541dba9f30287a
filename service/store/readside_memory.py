"""The memory store's read side: what the workers need of a store (`protocol.ReadSideStore`), kept in
process memory, so tournaments, arenas, timeouts and the transparency log run on the memory store
through the same workers as on PostgreSQL.

`MemoryReadSide` is mixed into `MemoryStore` as `service.store.readside.ReadSide` is into
`PostgresStore`. Every append commits at once here, so there is no horizon to wait for: a follower
reads the log after its checkpoint, hands the batch on and moves the checkpoint (a second follower of
the same name, mid-batch, reads nothing, as the PostgreSQL batch lock has it); the deadlines are the
`projections.deadlines` fold over the log, kept in a dict instead of a table, and a row being fired is
skipped by a second caller, as the advisory lock skips it on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

import msgspec

from projections.base import Projection
from projections.deadlines import Deadline, Deadlines, due, touched
from projections.log import LogBatch, LogEvent, decode_table, reached
from service.store.protocol import StoredEvent, cursor_pair


def log_event(e: StoredEvent) -> LogEvent:
    """`e` as the PostgreSQL store's log readers give it: a platform event's data as JSON text, a game's none."""
    data = msgspec.json.encode(e.data).decode() if e.type.startswith("table.") else None
    return LogEvent(e.tx, e.position, e.stream_id, e.version, e.type, data, msgspec.json.encode(e.metadata).decode(),
                    e.at, decode_table(e.type, data) if data else None)


class MemoryReadSide:
    """Log followers' checkpoints and the deadlines, over the memory store's global `log`."""

    log: list[StoredEvent]

    def __init__(self) -> None:
        self.checkpoints: dict[str, tuple[int, int]] = {}  # follower or model name -> (tx, position) read up to
        self.deadlines: dict[str, list[Deadline]] = {}  # game id -> its deadline rows (the `deadlines` model)
        self._following: set[str] = set()  # followers mid-batch
        self._firing: set[int] = set()  # lock keys of the rows being fired

    def after(self, cursor: tuple[int, int], limit: int, types: tuple[str, ...] = ()) -> list[LogEvent]:
        """Up to `limit` events after `cursor` (of `types` only, when given, with `upto` past the others, as
        `projections.log.read_types` reads them)."""
        pair = cursor_pair(cursor)
        rest = [e for e in self.log[pair[1]:] if (e.tx, e.position) > pair]  # a position is its index + 1
        if not types:
            return [log_event(e) for e in rest[:limit]]
        batch = LogBatch(log_event(e) for e in rest if e.type in types)
        del batch[limit:]
        if len(batch) == limit:
            batch.upto = batch[-1].cursor
        elif rest:
            batch.upto = (rest[-1].tx, rest[-1].position)
        return batch

    async def ensure_tables(self, projections: Iterable[Projection]) -> None:
        """Nothing to create: the followers' checkpoints and the deadlines are dicts."""

    async def follow(self, name: str, size: int, handle: Callable[[list[LogEvent]], Awaitable[None]],
                     types: tuple[str, ...] = ()) -> int:
        """One batch of the log after follower `name`'s checkpoint handed to `handle`, and the checkpoint moved
        past it (not if `handle` raises); 0 while another call follows `name`."""
        if name in self._following:
            return 0
        self._following.add(name)
        try:
            events = self.after(self.checkpoints.get(name, (0, 0)), size, types)
            await handle(events)
            upto = reached(events)
            if upto is not None:
                self.checkpoints[name] = upto
            return len(events)
        finally:
            self._following.discard(name)

    async def fire_due(self, model: Deadlines, now: Callable[[], int], limit: int, key: Callable[[Deadline], int],
                       fire: Callable[[Deadline, int], Awaitable[int]]) -> int:
        """The deadlines caught up with the log, then `fire(row, now)` for each row due by then that no other
        call is firing, each dropped from the model afterwards; how many `fire` reported."""
        events = self.after(self.checkpoints.get(model.name, (0, 0)), len(self.log))
        self.deadlines.update(touched(events))
        if upto := reached(events):
            self.checkpoints[model.name] = upto
        at, fired = now(), 0
        for row in due(self.deadlines, at, limit):
            lock = key(row)
            if lock in self._firing:
                continue
            self._firing.add(lock)
            try:
                fired += await fire(row, at)
                rows = self.deadlines.get(row.game_id, [])
                if row in rows:
                    rows.remove(row)
            finally:
                self._firing.discard(lock)
        return fired
