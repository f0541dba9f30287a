"""One follower per game per process: the only reader of PostgreSQL for that game's live streams.

SSE connections `join` the follower of their game and receive, in their inbox,
`Batch`es of new events in version order with no gap and no duplicate, plus a
`HEARTBEAT` when nothing happened for a while. The follower reads PostgreSQL
only when it has reason to: a pushed batch that does not follow the last
version it delivered, a `nudge` (Redis dropped or came back), or a slow poll
while the broker is degraded. Pushed batches that follow on are delivered as
they are, so an idle game, or a busy one with healthy fan-out, costs no query.

A `Batch` encodes its frames once per visibility key (seat and publicness);
every connection with the same key writes the same bytes. The follower starts
with its first connection and stops after its last one leaves.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from service.store.protocol import StoredEvent

log = structlog.get_logger("stela.follower")
Read = Callable[..., Awaitable[list[StoredEvent]]]  # read(stream_id, after=version) -> events
INBOX_MAX = 256  # batches a slow connection may fall behind before it re-reads PostgreSQL itself


class Batch:
    """Consecutive new events of one game, shared by every connection; frames cached per key."""

    __slots__ = ("events", "first", "last", "_frames", "_extra")

    def __init__(self, events: list[StoredEvent]) -> None:
        self.events = events
        self.first = events[0].version
        self.last = events[-1].version
        self._frames: dict[Any, bytes] = {}
        self._extra: dict[str, Any] = {}

    def frames(self, key: Any, render: Callable[..., bytes], *args: Any) -> bytes:
        """The batch's bytes for visibility `key`, rendered (`render(events, *args)`) by the first
        connection that asks."""
        found = self._frames.get(key)
        if found is None:
            found = self._frames[key] = render(self.events, *args)
        return found

    def derived(self, name: str, make: Callable[[list[StoredEvent]], Any]) -> Any:
        """A value computed once from the events and shared (e.g. the seats taken in this batch)."""
        if name not in self._extra:
            self._extra[name] = make(self.events)
        return self._extra[name]


class Signal:
    """A marker in an inbox that carries no events."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


HEARTBEAT = Signal("heartbeat")  # nothing new for a heartbeat interval
WAKE = Signal("wake")  # look around (the server may be closing)
LAGGED = Signal("lagged")  # the inbox overflowed: re-read PostgreSQL from your last version


class Inbox:
    """One connection's queue of batches and signals.

    A connection may set `direct`: while its task waits in `get` with nothing queued, `put` hands the
    item to `direct` instead, which writes it at once (no task wake-up, the follower's loop writes to every
    waiting connection in one go) or returns False to queue it after all (a gap to read, a signal).
    """

    __slots__ = ("items", "_waiter", "direct")

    def __init__(self) -> None:
        self.items: deque[Any] = deque()  # batches, signals, or whatever `direct` hands back to the task
        self._waiter: asyncio.Future[None] | None = None
        self.direct: Callable[[Batch | Signal], bool] | None = None

    def put(self, item: Batch | Signal) -> None:
        direct, waiter = self.direct, self._waiter
        if (direct is not None and waiter is not None and not self.items and not waiter.done()
                and direct(item)):
            return
        self.queue(item)

    def queue(self, item: Any) -> None:
        """Queue `item` for the connection's task and wake it."""
        if len(self.items) >= INBOX_MAX:
            # drop the batches and signals (the task re-reads instead), not what `direct` handed back
            kept = [i for i in self.items if not isinstance(i, (Batch, Signal))]
            self.items.clear()
            self.items.extend(kept)
            item = LAGGED
        self.items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Any:
        while not self.items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.items.popleft()


class Follower:
    """Reads one game for every connection of this process; see the module docstring."""

    def __init__(self, stream_id: str, read: Read, live: Callable[[], bool], heartbeat: float,
                 poll: float = 0.5, on_close: Callable[[Follower], None] | None = None) -> None:
        self.stream_id = stream_id
        self.read = read
        self.live = live  # whether pushes reach us (else poll)
        self.heartbeat = heartbeat
        self.poll = poll
        self.on_close = on_close
        self.inboxes: set[Inbox] = set()
        self.last: int | None = None  # last version delivered; None until the first connection has read
        self.reads = 0  # PostgreSQL reads made (for tests and benchmarks)
        self.closed = False
        self._pushed: list[list[StoredEvent]] = []  # [] = "read PostgreSQL"
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- connections ---------------------------------------------------------------
    def join(self) -> Inbox:
        """A new inbox that receives every batch delivered from now on."""
        inbox = Inbox()
        self.inboxes.add(inbox)
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"follow:{self.stream_id}")
        return inbox

    def seen(self, version: int) -> int | None:
        """A connection read up to `version` itself after joining; returns a version it must also
        read up to from PostgreSQL (the follower delivered past `version` before it joined), or None."""
        if self.last is None:
            self.last = version
            self._wakeup.set()  # deal with anything pushed before we knew where to start
        elif version > self.last:
            self.nudge()  # the follower is behind what the database already shows
        elif version < self.last:
            return self.last
        return None

    def leave(self, inbox: Inbox) -> None:
        self.inboxes.discard(inbox)
        if not self.inboxes and not self.closed:
            self.closed = True
            self._wakeup.set()
            if self.on_close is not None:
                self.on_close(self)

    def wake_all(self) -> None:
        for inbox in list(self.inboxes):
            inbox.put(WAKE)

    # -- being woken -----------------------------------------------------------------
    def push(self, events: list[StoredEvent]) -> None:
        """New events of this game, committed (from this process or through Redis)."""
        if events:
            self._pushed.append(events)
            self._wakeup.set()

    def nudge(self) -> None:
        """Something may have been missed: read PostgreSQL on the next turn."""
        self._pushed.append([])
        self._wakeup.set()

    # -- the loop --------------------------------------------------------------------
    async def _run(self) -> None:
        beat = time.monotonic()
        while not self.closed:
            wait = max(0.0, beat + self.heartbeat - time.monotonic())
            if not self.live():
                wait = min(wait, self.poll)
            if not self._wakeup.is_set():
                try:
                    async with asyncio.timeout(wait):
                        await self._wakeup.wait()
                except TimeoutError:
                    pass
            self._wakeup.clear()
            if self.closed:
                break
            if self.last is None:
                continue  # the first connection has not read yet; keep what was pushed
            pushed, self._pushed = self._pushed, []
            try:
                events = await self._next(pushed, polling=not self.live())
            except Exception as exc:  # noqa: BLE001 - the database may be away; try again shortly
                log.warning("follower_read_failed", game_id=self.stream_id, error=str(exc))
                self._pushed[:0] = [[]]
                await asyncio.sleep(self.poll)
                self._wakeup.set()  # read again now, not at the next push or heartbeat (there may be none)
                continue
            if events:
                self._deliver(Batch(events))
                beat = time.monotonic()
            elif time.monotonic() - beat >= self.heartbeat:
                for inbox in list(self.inboxes):
                    inbox.put(HEARTBEAT)
                beat = time.monotonic()

    async def _next(self, pushed: list[list[StoredEvent]], polling: bool) -> list[StoredEvent]:
        """The events after `last`, from the pushes when they follow on, else from PostgreSQL."""
        assert self.last is not None
        last = self.last
        merged: dict[int, StoredEvent] = {}
        must_read = polling
        for events in pushed:
            if not events:
                must_read = True
            for event in events:
                if event.version > last:
                    merged[event.version] = event
        if merged and not must_read:
            top = max(merged)
            if len(merged) == top - last:  # versions last+1..top, all present
                return [merged[v] for v in range(last + 1, top + 1)]
            must_read = True
        if not must_read:
            return []
        self.reads += 1
        events = await self.read(self.stream_id, after=last)
        return [e for e in events if e.version > last]

    def _deliver(self, batch: Batch) -> None:
        self.last = batch.last
        for inbox in list(self.inboxes):
            inbox.put(batch)
