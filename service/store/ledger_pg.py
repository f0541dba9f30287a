"""The transparency log on PostgreSQL (`service.store.ledger`'s contract; tables of migration 013).

`integrate` is the sequencer: under a transaction-scoped advisory lock (one replica at a time), it
reads the entries not integrated yet in (tx, position) order, only below the horizon every reader of the
global log uses (`projections.log.HORIZON`: no entry can still commit before them), and writes the
indexes of those not held and the perfect subtrees they complete in the same transaction. It reads what
is not integrated, not what follows the last integrated entry, so that a held entry is read again by
every later call until it is integrated; `log_leaves.entry` is unique, so none is integrated twice.
The read starts at a floor kept in the process: the first entry a run left pending (held), else the last
it read (nothing pending: the last indexed); every entry before it is integrated (and committed: it was
below the horizon), so a run reads from the oldest held entry on, not the whole log.
"""

from __future__ import annotations

from collections.abc import Iterable

import asyncpg

from domain.transparency import merkle
from projections.log import HORIZON
from service.store.ledger import Checkpoint, Entry, Held

_LOCK = 7_114_046
_LAST = """SELECT e.tx, e.position FROM log_leaves l JOIN log_entries e ON e.position = l.entry
           ORDER BY l.leaf_index DESC LIMIT 1"""
_PENDING = f"""SELECT e.position, e.leaf_hash, e.stream_id, e.body, e.tx FROM log_entries e
               WHERE (e.tx, e.position) >= ($2, $3) AND e.tx < ({HORIZON})
                 AND (SELECT l.leaf_index FROM log_leaves l WHERE l.entry = e.position) IS NULL
               ORDER BY e.tx, e.position LIMIT $1"""
_ENTRY = """SELECT l.leaf_index, e.stream_id, e.version, e.body, e.leaf_hash
            FROM log_leaves l JOIN log_entries e ON e.position = l.entry"""


def _entry(row: asyncpg.Record) -> Entry:
    return Entry(index=row[0], stream_id=row[1], version=row[2], body=bytes(row[3]), hash=bytes(row[4]))


def _checkpoint(row: asyncpg.Record | None) -> Checkpoint | None:
    return Checkpoint(size=row[0], root=bytes(row[1]), note=row[2], at=row[3]) if row else None


class PostgresLedger:
    """Ledger on a PostgreSQL pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.floor = (0, 0)  # (tx, position): every entry before it is integrated

    async def integrate(self, most: int = 10_000, held: Held | None = None) -> int:
        # `held` is asked before the lock, holding no connection (it reads the store itself); under the lock
        # only the entries it was asked about are indexed: any pending entry read then but not before
        # committed later than all of those (the horizon only moves on), so commit order is kept
        async with self.pool.acquire() as conn, conn.transaction():
            first = await self._pending(conn, most)
        asked = {r[0]: held is not None and await held(r[2], bytes(r[3])) for r in first}
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _LOCK)
            size = await conn.fetchval("SELECT coalesce(max(leaf_index) + 1, 0) FROM log_leaves")
            pending = await self._pending(conn, most)
            rows = [r for r in pending if asked.get(r[0]) is False]
            kept = [r for r in pending if asked.get(r[0]) is not False]
            floor = (kept[0][4], kept[0][0]) if kept else (pending[-1][4], pending[-1][0]) if pending else \
                max(self.floor, tuple(await conn.fetchrow(_LAST) or (0, 0)))
            if rows:
                size = await self._index(conn, size, rows)
        self.floor = floor  # once committed: were the indexes rolled back, the next run reads their entries again
        return size

    async def _pending(self, conn: asyncpg.Connection, most: int) -> list[asyncpg.Record]:
        """The first `most` entries not integrated from the floor on (in a transaction). The planner, unaware
        that the floor leaves few rows, would compile the read (JIT) for a whole-log cost: it is not."""
        await conn.execute("SET LOCAL jit = off")
        return await conn.fetch(_PENDING, most, *self.floor)

    async def _index(self, conn: asyncpg.Connection, size: int, rows: list[asyncpg.Record]) -> int:
        """Give `rows` (pending entries) the indexes from `size` on and store the subtrees they complete."""
        frontier = await self._nodes(conn, merkle.pieces(0, size))
        new = merkle.grown(size, frontier, [bytes(r[1]) for r in rows])
        await conn.execute("INSERT INTO log_leaves (leaf_index, entry) SELECT * FROM unnest($1::bigint[], $2::bigint[])",
                           list(range(size, size + len(rows))), [r[0] for r in rows])
        await conn.execute("INSERT INTO log_nodes (level, idx, hash) "
                           "SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])",
                           *map(list, zip(*((lv, i, h) for (lv, i), h in new.items()))))
        return size + len(rows)

    async def size(self) -> int:
        return await self.pool.fetchval("SELECT coalesce(max(leaf_index) + 1, 0) FROM log_leaves")

    async def entries(self, start: int, limit: int) -> list[Entry]:
        rows = await self.pool.fetch(f"{_ENTRY} WHERE l.leaf_index >= $1 ORDER BY l.leaf_index LIMIT $2", start, limit)
        return [_entry(r) for r in rows]

    async def entries_of(self, stream_id: str) -> list[Entry]:
        rows = await self.pool.fetch(f"{_ENTRY} WHERE e.stream_id = $1 ORDER BY l.leaf_index", stream_id)
        return [_entry(r) for r in rows]

    async def nodes(self, wanted: Iterable[merkle.Node]) -> dict[merkle.Node, bytes]:
        return await self._nodes(self.pool, wanted)

    @staticmethod
    async def _nodes(conn: asyncpg.Pool | asyncpg.Connection, wanted: Iterable[merkle.Node]) -> dict[merkle.Node, bytes]:
        wanted = list(wanted)
        if not wanted:
            return {}
        rows = await conn.fetch("SELECT n.level, n.idx, n.hash FROM unnest($1::smallint[], $2::bigint[]) AS w(level, idx)"
                                " JOIN log_nodes n ON (n.level, n.idx) = (w.level, w.idx)",
                                [lv for lv, _ in wanted], [i for _, i in wanted])
        return {(r[0], r[1]): bytes(r[2]) for r in rows}

    async def add_checkpoint(self, size: int, root: bytes, note: str) -> Checkpoint:
        await self.pool.execute("INSERT INTO log_checkpoints (size, root, note) VALUES ($1, $2, $3) "
                                "ON CONFLICT (size) DO NOTHING", size, root, note)
        found = await self.checkpoint(size)
        assert found is not None
        return found

    async def checkpoint(self, size: int | None = None) -> Checkpoint | None:
        if size is None:
            row = await self.pool.fetchrow("SELECT size, root, note, at FROM log_checkpoints ORDER BY size DESC LIMIT 1")
        else:
            row = await self.pool.fetchrow("SELECT size, root, note, at FROM log_checkpoints WHERE size = $1", size)
        return _checkpoint(row)

    async def add_cosignature(self, size: int, witness: str, line: str) -> None:
        await self.pool.execute("INSERT INTO log_cosignatures (size, witness, line) VALUES ($1, $2, $3) "
                                "ON CONFLICT (size, witness) DO NOTHING", size, witness, line)

    async def cosignatures(self, size: int) -> list[str]:
        rows = await self.pool.fetch("SELECT line FROM log_cosignatures WHERE size = $1 ORDER BY at, witness", size)
        return [r[0] for r in rows]
