"""The append statements of `PostgresStore`, and the group commit that sends appends together under load.

One append is one statement, so one round trip and one implicit transaction: insert the batch only if
the stream's head is exactly (expected version, prev hash), record the idempotency key and a new
stream, and NOTIFY once (only when enabled). A clash inserts nothing (no row returned, or a unique
violation). Only what the database assigns comes back: no JSON is decoded again.

The statement is written for the append at hand (`append_statement`): a first append checks that the
stream is empty and registers it, a later one checks the head row; the idempotency row and the NOTIFY
are there only when wanted. Each part left out is one PostgreSQL would otherwise plan, lock, open (a
relation and its indexes) and set up at every execution, only to skip it (bench.store).

`GroupCommit`: while `slots` append statements are in flight, the appends that arrive wait, and when a
slot frees, those waiting (one per stream, at most `most`) go as one statement (`MANY`): one round
trip, one transaction and one commit for all of them, each still inserted only if its own stream's
head is as expected. At low load nothing waits: an append goes alone, as it always did. A waiting
append is acknowledged only once the statement that carried it has committed, like any other.

Once appends have had to wait, one such group statement is in flight at a time, and every append that
arrives meanwhile waits for the next one, even with a slot free; appends go alone again when a group
finishes with nothing waiting. Under load this keeps the groups large: each free slot starting a group
of its own made groups of 2-3 appends at 16 writers; one group at a time makes them 8, and PostgreSQL
spends a third less CPU per append (at 64 writers: 31 a statement, 1.23x the appends a second; 4 writers
never wait and are unchanged; `bench.store`'s docstring). A statement and a commit cost PostgreSQL more
than the rows they carry.

A stuck stream stalls only itself. Another transaction holding an uncommitted insert of a stream's next
version (a replica's slow append, an operator's open transaction) makes an insert of that version wait
for it to end, and a statement in that wait would hold its slot or the group, so every append of the
process behind it (`bench.store --hold`, a 20 s hold, 16 writers every 40 ms and one slot: unrelated appends'
p99 19.8 s before, 119 ms after, the held stream's first append waiting out the timeout in the one slot; the
shipped four slots, every 25 ms: 9.9 s before, 85 ms after).
Every append statement therefore sets a short `lock_timeout` for its own transaction (`STELA_PG_LOCK_TIMEOUT_MS`,
`set_config(..., true)` in its head check, so no round trip more): the wait ends in `StreamLocked`, nothing
written, answered 503 `stream_locked`. A group statement waits less (`GROUP_LOCK_TIMEOUT` of
`service.store.postgres`, 50 ms), since every append it carries and every one behind it waits with it; a group
that fails so is sent again one append at a time, side by side and without holding the group, each answered as
soon as it is in, so only the held stream's append waits again and is refused (it used to hold the others'
answers until it had waited out its own lock timeout too: 200 ms of group wait plus 200 ms). A stream found held
is kept in `held`: its appends go alone at once, in no slot and no group, until one of them ends other than held.
"""

from __future__ import annotations

import asyncio
import itertools
import operator
import re
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, NamedTuple

from service.store.protocol import AppendResult, StreamLocked

CHANNEL = "stela_events"  # projections/log.py listens on it and reads with the same ordering rule
APPEND_SLOTS = 4  # append statements in flight before appends wait to go together (STELA_PG_APPEND_SLOTS)
LOCK_TIMEOUT = 0.2  # seconds an append statement waits for a lock another transaction holds (STELA_PG_LOCK_TIMEOUT_MS)
_HELD_MOST = 10_000  # streams remembered as held; beyond it the oldest marks are dropped (they only save waits)

_ROWS = {
    False: "SELECT {stream}, {v}::int, {t}::text, {d}::text::jsonb, {m}::text::jsonb, {p}::text, {h}::text",
    True: "SELECT {stream}, u.v, u.t, u.d::jsonb, u.m::jsonb, u.p, u.h\n"
          "    FROM unnest({v}::int[], {t}::text[], {d}::text[], {m}::text[], {p}::text[], {h}::text[])"
          " AS u(v, t, d, m, p, h)",
}
_HEAD = {
    True: "NOT EXISTS (SELECT 1 FROM events WHERE stream_id = {stream})",
    False: "EXISTS (SELECT 1 FROM events e WHERE e.stream_id = {stream} AND e.version = {expected}::int"
           " AND e.hash = {prev_hash}::text)",
}


def append_statement(batch: bool, first: bool, keyed: bool, notify: bool,
                     logged: bool = False) -> tuple[str, tuple[str, ...]]:
    """The append statement and the names of its parameters, in order ($1, $2, ...).

    `batch`: several events (arrays, unnested), else one (scalars); `first`: expected version 0 (the
    stream must be empty; it is registered in `streams`), else the head must be (expected, prev hash);
    `keyed`: record the idempotency key; `notify`: `pg_notify` once; `logged`: the batch writes leaves of
    the transparency log (`service.store.ledger`), in the same statement. Every variant sets its
    transaction's `lock_timeout` before it inserts (see above)."""
    sql = f"""
WITH ins AS (
    INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash)
    {_ROWS[batch]}
    WHERE {_HEAD[first]} AND set_config('lock_timeout', {{lock_timeout}}::text, true) <> ''
    RETURNING position, tx, at, version
)"""
    if keyed:
        sql += """, idem AS (
    INSERT INTO idempotency (stream_id, actor, key, first_version, last_version, fingerprint)
    SELECT {stream}, {actor}::text, {key}::text, {expected}::int + 1, {expected}::int + {count}::int, {fingerprint}::text
    WHERE EXISTS (SELECT 1 FROM ins)
)"""
    if first:
        sql += """, stream AS (
    INSERT INTO streams (stream_id, kind) SELECT {stream}, {kind}::text WHERE EXISTS (SELECT 1 FROM ins)
)"""
    if logged:
        sql += """, leaf AS (
    INSERT INTO log_entries (stream_id, version, body, leaf_hash)
    SELECT {stream}, l.v, l.b, l.h FROM unnest({lv}::int[], {lb}::bytea[], {lh}::bytea[]) AS l(v, b, h)
    WHERE EXISTS (SELECT 1 FROM ins)
)"""
    if notify:  # a SELECT in WITH runs only if read: the count reads it
        sql += f""", note AS (
    SELECT pg_notify('{CHANNEL}', {{stream}}) WHERE EXISTS (SELECT 1 FROM ins)
)"""
    sql += "\nSELECT position, tx, at" + (", (SELECT count(*) FROM note)" if notify else "") + " FROM ins"
    sql += " ORDER BY version" if batch else ""
    names: list[str] = []
    for name in re.findall(r"{(\w+)}", sql):
        if name not in names:
            names.append(name)
    return sql.format(**{name: f"${i}" for i, name in enumerate(names, 1)}), tuple(names)


def _statement_and_arguments(*variant: bool) -> tuple[str, Callable[[dict[str, Any]], tuple[Any, ...]]]:
    sql, names = append_statement(*variant)
    return sql, operator.itemgetter(*names)


# (batch, first, keyed, notify, logged) -> the statement, and what picks its arguments from the append's values
APPENDS = {variant: _statement_and_arguments(*variant) for variant in itertools.product((False, True), repeat=5)}

# Several appends to different streams in one statement. Each row carries its append's expected version
# and head, compared with its stream's last row, found through the primary key: a lateral look-up, for
# an EXISTS test per row let the planner hash the whole table when it thought it small (and a prepared
# statement may keep such a plan as the table grows). An append whose stream moved on inserts nothing
# while the others go in. Rows are inserted in the order given, sorted by stream, then version: every
# process takes the streams' index entries in the same order, so two such statements never wait on each
# other in a cycle.
MANY = """
WITH ins AS (
    INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash)
    SELECT r.stream, r.v, r.t, r.d::jsonb, r.m::jsonb, r.p, r.h
    FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[],
                $9::text[]) WITH ORDINALITY AS r(stream, v, t, d, m, p, h, expected, head, n)
    LEFT JOIN LATERAL (SELECT e.version, e.hash FROM events e WHERE e.stream_id = r.stream
                       ORDER BY e.version DESC LIMIT 1) AS last ON true
    WHERE coalesce(last.version, 0) = r.expected AND (r.expected = 0 OR last.hash = r.head)
          AND set_config('lock_timeout', $18::text, true) <> ''
    ORDER BY r.n
    RETURNING stream_id, version, position, tx, at
), idem AS (
    INSERT INTO idempotency (stream_id, actor, key, first_version, last_version, fingerprint)
    SELECT k.stream, k.actor, k.key, k.first, k.last, k.fingerprint
    FROM unnest($10::text[], $11::text[], $12::text[], $13::int[], $14::int[], $15::text[])
         AS k(stream, actor, key, first, last, fingerprint)
    WHERE EXISTS (SELECT 1 FROM ins WHERE ins.stream_id = k.stream)
), new AS (
    INSERT INTO streams (stream_id, kind)
    SELECT s.stream, s.kind FROM unnest($16::text[], $17::text[]) AS s(stream, kind)
    WHERE EXISTS (SELECT 1 FROM ins WHERE ins.stream_id = s.stream)
), leaf AS (
    INSERT INTO log_entries (stream_id, version, body, leaf_hash)
    SELECT l.stream, l.v, l.b, l.h FROM unnest($19::text[], $20::int[], $21::bytea[], $22::bytea[]) AS l(stream, v, b, h)
    WHERE EXISTS (SELECT 1 FROM ins WHERE ins.stream_id = l.stream)
)
SELECT stream_id, version, position, tx, at FROM ins"""


class Prepared(NamedTuple):
    """One append, ready to send: its rows (version, type, data JSON, metadata JSON, prev hash, hash)."""

    stream_id: str
    expected: int
    prev_hash: str
    rows: list[tuple[int, str, Any, Any, str, str]]
    actor: str
    key: str | None
    kind: str
    fingerprint: str | None
    leaves: Sequence[tuple[str, int, bytes, bytes]] = ()  # the transparency log's (stream, version, body, leaf hash)


def many_arguments(items: list[Prepared], encode: Callable[[Any], str]) -> tuple[list[Any], ...]:
    """`MANY`'s arguments for `items` (one per stream), sorted by stream; the lock timeout ($18) is the
    caller's, between the 17 columns of the appends and the 4 of their leaves."""
    items = sorted(items, key=operator.attrgetter("stream_id"))
    columns: tuple[list[Any], ...] = tuple([] for _ in range(21))
    for item in items:
        for v, t, d, m, p, h in item.rows:
            for column, value in zip(columns, (item.stream_id, v, t, encode(d), encode(m), p, h, item.expected,
                                               item.prev_hash)):
                column.append(value)
        if item.key is not None:
            for column, value in zip(columns[9:15], (item.stream_id, item.actor, item.key, item.expected + 1,
                                                     item.expected + len(item.rows), item.fingerprint)):
                column.append(value)
        if item.expected == 0:
            columns[15].append(item.stream_id)
            columns[16].append(item.kind)
        for entry in item.leaves:
            for column, value in zip(columns[17:], entry):
                column.append(value)
    return columns


Outcome = AppendResult | BaseException


class GroupCommit:
    """Appends sent alone while fewer than `slots` statements and no group are in flight, else together, one
    group at a time (see above).

    `alone(item)` sends one append (its result, or its error raised); `together(items)` sends several,
    one per stream, and gives each its result or error in order (StreamLocked raised: a lock wait failed
    the statement). `statements` and `appends` count what was sent (their ratio is the mean number of
    appends a statement carried); `held` the streams another transaction was last found holding."""

    def __init__(self, alone: Callable[[Prepared], Awaitable[AppendResult]],
                 together: Callable[[list[Prepared]], Awaitable[list[Outcome]]], slots: int = APPEND_SLOTS,
                 most: int = 64) -> None:
        self.alone, self.together, self.slots, self.most = alone, together, slots, most
        self.busy = 0
        self.grouped = False  # a statement of appends that waited is in flight
        self.waiting: list[tuple[Prepared, asyncio.Future[AppendResult]]] = []
        self.statements = self.appends = 0
        self.held: dict[str, None] = {}  # oldest first
        self._sending: set[asyncio.Task[None]] = set()

    async def append(self, item: Prepared) -> AppendResult:
        if item.stream_id in self.held:  # it would wait for the holder: in nobody's way
            self.statements += 1
            self.appends += 1
            return await self._tried(item)
        if self.busy < self.slots and not self.waiting and not self.grouped:
            self.busy += 1
            self.statements += 1
            self.appends += 1
            try:
                return await self._tried(item)
            finally:
                self._freed()
        future: asyncio.Future[AppendResult] = asyncio.get_running_loop().create_future()
        self.waiting.append((item, future))
        self._dispatch()  # (a slot is free when all that waited were cancelled)
        return await future  # (cancelled while waiting: `_take` drops it)

    def _freed(self) -> None:
        self.busy -= 1
        self._dispatch()

    def _dispatch(self) -> None:
        while self.waiting and self.busy < self.slots and not self.grouped:
            batch = self._take()
            if not batch:
                return
            self.busy += 1
            self.grouped = True
            self.statements += 1
            self.appends += len(batch)
            self._start(self._send(batch))

    def _start(self, sending: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(sending)
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    def _take(self) -> list[tuple[Prepared, asyncio.Future[AppendResult]]]:
        """The oldest waiting appends, one per stream, at most `most`; the rest keep waiting in order, but
        those of streams found held since they came go alone at once."""
        batch: list[tuple[Prepared, asyncio.Future[AppendResult]]] = []
        rest, streams = [], set()
        for item, future in self.waiting:
            if future.done():
                continue
            if item.stream_id in self.held:
                self.statements += 1
                self.appends += 1
                self._start(self._send([(item, future)], grouped=False))
                continue
            if len(batch) < self.most and item.stream_id not in streams:
                streams.add(item.stream_id)
                batch.append((item, future))
            else:
                rest.append((item, future))
        self.waiting = rest
        return batch

    async def _tried(self, item: Prepared) -> AppendResult:
        """`alone(item)`, noting in `held` whether another transaction held its stream."""
        try:
            result = await self.alone(item)
        except StreamLocked:
            self._note(item.stream_id, True)
            raise
        except Exception:
            self._note(item.stream_id, False)
            raise
        self._note(item.stream_id, False)
        return result

    def _note(self, stream_id: str, held: bool) -> None:
        self.held.pop(stream_id, None)
        if held:
            if len(self.held) >= _HELD_MOST:
                del self.held[next(iter(self.held))]
            self.held[stream_id] = None

    async def _send(self, batch: list[tuple[Prepared, asyncio.Future[AppendResult]]], grouped: bool = True) -> None:
        """Send `batch` and settle its futures; `grouped`: it is the group in flight (else one held stream's
        append, in no slot)."""
        locked = False
        try:
            if len(batch) == 1:
                outcomes: list[Outcome] = [await outcome(self._tried(batch[0][0]))]
            else:
                outcomes = await self.together([item for item, _ in batch])
        except asyncio.CancelledError:  # (the process is stopping)
            for _, future in batch:
                future.cancel()
            raise
        except StreamLocked:  # another transaction holds one of them: which one, each finds out alone
            locked = True
        except Exception as exc:  # the statement failed for all of them (a dead connection, a timeout)
            outcomes = [exc] * len(batch)
        finally:
            if grouped:
                self.grouped = False
                self._freed()
        if locked:  # side by side, holding no slot and no group: only the held one waits again, and each is
            try:    # answered as soon as it is in (not once the held one has waited out its lock timeout too)
                await asyncio.gather(*(self._settled(item, future) for item, future in batch))
            except asyncio.CancelledError:
                for _, future in batch:
                    future.cancel()
                raise
            return
        for (item, future), result in zip(batch, outcomes):
            self._settle(item, future, result)

    async def _settled(self, item: Prepared, future: asyncio.Future[AppendResult]) -> None:
        self._settle(item, future, await outcome(self._tried(item)))

    def _settle(self, item: Prepared, future: asyncio.Future[AppendResult], result: Outcome) -> None:
        self._note(item.stream_id, isinstance(result, StreamLocked))  # (`together`'s own retries too)
        if future.done():
            return
        if isinstance(result, BaseException):
            future.set_exception(result)
        else:
            future.set_result(result)


async def outcome(sent: Awaitable[AppendResult]) -> Outcome:
    try:
        return await sent
    except Exception as exc:  # noqa: BLE001 - handed to the one waiting for it
        return exc
