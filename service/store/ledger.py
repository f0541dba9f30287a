"""The storage contract of the transparency log, and its in-memory implementation.

Every append that writes a creation, an end or a revealed seed (`domain.transparency.leaves`) writes
its leaf in the same transaction (`entries_of_rows`). `integrate` then gives the committed leaves their
indexes in commit order and stores the perfect subtrees they complete (`domain.transparency.merkle`);
the tree's size is the number of leaves integrated. A leaf the caller holds (`Held`: an end or seed of a
sealed duplicate deal's game) stays pending, the leaves after it are integrated past it, and it is
integrated by a later call once it is no longer held (its index then later than its commit). Checkpoints are the signed notes of its heads,
kept by size; witnesses' cosignature lines are kept beside them. Nothing is ever changed or removed.
PostgreSQL's implementation is `service.store.ledger_pg`; one contract suite runs on both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec

from domain.transparency import merkle
from domain.transparency.leaves import leaf


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """A leaf of the log: its index in the tree, what it records, its bytes and RFC 9162 leaf hash."""

    index: int
    stream_id: str
    version: int
    body: bytes
    hash: bytes


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True):
    size: int
    root: bytes
    note: str  # the signed note (C2SP tlog-checkpoint), the log's own signature only
    at: datetime


def entries_of_rows(stream_id: str, rows: Iterable[tuple[Any, ...]]) -> list[tuple[str, int, bytes, bytes]]:
    """The leaves (stream, version, body, leaf hash) that the event rows (version, type, data, metadata,
    prev hash, hash) of an append write."""
    out = []
    for v, t, d, _, _, h in rows:
        body = leaf(stream_id, v, t, d, h)
        if body is not None:
            out.append((stream_id, v, body, merkle.leaf_hash(body)))
    return out


Held = Callable[[str, bytes], Awaitable[bool]]
"""Whether a pending leaf (its stream, its bytes) must wait: it is not integrated yet."""


class Ledger(Protocol):
    async def integrate(self, most: int = 10_000, held: Held | None = None) -> int:
        """Give the committed, not yet integrated leaves (up to `most` looked at) their indexes, in commit
        order, but those `held` (they stay pending); the tree's size after."""
        ...
    async def size(self) -> int: ...
    async def entries(self, start: int, limit: int) -> list[Entry]:
        """The integrated leaves from index `start`, at most `limit`."""
        ...
    async def entries_of(self, stream_id: str) -> list[Entry]:
        """The integrated leaves of one stream, in index order."""
        ...
    async def nodes(self, wanted: Iterable[merkle.Node]) -> dict[merkle.Node, bytes]:
        """The stored perfect subtrees' hashes among `wanted` (those of the integrated tree only)."""
        ...
    async def add_checkpoint(self, size: int, root: bytes, note: str) -> Checkpoint:
        """Keep the checkpoint of `size` (the one kept already when there is one)."""
        ...
    async def checkpoint(self, size: int | None = None) -> Checkpoint | None:
        """The checkpoint of `size`, or the newest (None: none yet)."""
        ...
    async def add_cosignature(self, size: int, witness: str, line: str) -> None:
        """Keep a witness's cosignature line for the checkpoint of `size` (its first one per witness)."""
        ...
    async def cosignatures(self, size: int) -> list[str]: ...


async def root(ledger: Ledger, size: int) -> bytes:
    """The RFC 9162 tree hash of the first `size` integrated leaves."""
    return merkle.range_hash(0, size, await ledger.nodes(merkle.pieces(0, size)))


async def proof(ledger: Ledger, ranges: list[merkle.Range]) -> list[bytes]:
    """The hashes of `ranges` (an inclusion or consistency proof's) from the stored nodes."""
    nodes = await ledger.nodes(merkle.proof_nodes(ranges))
    return [merkle.range_hash(lo, hi, nodes) for lo, hi in ranges]


class MemoryLedger:
    """Ledger kept in process memory: `pending` leaves are those written by appends, in append order."""

    def __init__(self) -> None:
        self.pending: list[tuple[str, int, bytes, bytes]] = []
        self.leaves: list[Entry] = []
        self.tree: dict[merkle.Node, bytes] = {}
        self.checkpoints: dict[int, Checkpoint] = {}
        self.cosigned: dict[int, dict[str, str]] = {}

    def write(self, entries: list[tuple[str, int, bytes, bytes]]) -> None:
        self.pending.extend(entries)

    async def integrate(self, most: int = 10_000, held: Held | None = None) -> int:
        batch, kept = [], []
        for entry in self.pending[:most]:
            (kept if held is not None and await held(entry[0], entry[2]) else batch).append(entry)
        self.pending = kept + self.pending[most:]
        size = len(self.leaves)
        frontier = {p: self.tree[p] for p in merkle.pieces(0, size)}
        self.tree.update(merkle.grown(size, frontier, [h for *_, h in batch]))
        self.leaves += [Entry(index=size + i, stream_id=s, version=v, body=b, hash=h)
                        for i, (s, v, b, h) in enumerate(batch)]
        return len(self.leaves)

    async def size(self) -> int:
        return len(self.leaves)

    async def entries(self, start: int, limit: int) -> list[Entry]:
        return self.leaves[start:start + limit]

    async def entries_of(self, stream_id: str) -> list[Entry]:
        return [e for e in self.leaves if e.stream_id == stream_id]

    async def nodes(self, wanted: Iterable[merkle.Node]) -> dict[merkle.Node, bytes]:
        return {n: self.tree[n] for n in wanted if n in self.tree}

    async def add_checkpoint(self, size: int, root: bytes, note: str) -> Checkpoint:
        return self.checkpoints.setdefault(size, Checkpoint(size=size, root=root, note=note, at=datetime.now(UTC)))

    async def checkpoint(self, size: int | None = None) -> Checkpoint | None:
        if size is None:
            return self.checkpoints[max(self.checkpoints)] if self.checkpoints else None
        return self.checkpoints.get(size)

    async def add_cosignature(self, size: int, witness: str, line: str) -> None:
        self.cosigned.setdefault(size, {}).setdefault(witness, line)

    async def cosignatures(self, size: int) -> list[str]:
        return list(self.cosigned.get(size, {}).values())
