"""The transparency log on PostgreSQL (`service.store.ledger`'s contract; tables of migration 013).

`integrate` is the sequencer: under a transaction-scoped advisory lock (one replica at a time), it
reads the entries not integrated yet in (tx, position) order, only below the horizon every reader of the
global log uses (`projections.log.HORIZON`: no entry can still commit before them), and writes the
indexes of those not held and the perfect subtrees they complete in the same transaction. It reads what
is not integrated, not what follows the last integrated entry, so that a held entry is read again by
every later call until it is integrated; `log_leaves.entry` is unique, so none is integrated twice.
"""

from __future__ import annotations

from collections.abc import Iterable

import asyncpg

from domain.transparency import merkle
from projections.log import HORIZON
from service.store.ledger import Checkpoint, Entry, Held

_LOCK = 7_114_046
_PENDING = f"""SELECT e.position, e.leaf_hash, e.stream_id, e.body FROM log_entries e
               WHERE e.tx < ({HORIZON}) AND NOT EXISTS (SELECT 1 FROM log_leaves l WHERE l.entry = e.position)
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

    async def integrate(self, most: int = 10_000, held: Held | None = None) -> int:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _LOCK)
            size = await conn.fetchval("SELECT coalesce(max(leaf_index) + 1, 0) FROM log_leaves")
            rows = [r for r in await conn.fetch(_PENDING, most)
                    if held is None or not await held(r[2], bytes(r[3]))]
            if not rows:
                return size
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
