"""Server-Sent Events for one game and one viewer.

A connection joins its game's follower (`service.live.follower`) before reading
PostgreSQL, so every version committed after that read reaches it. It sends a
`snapshot` first (or, with `Last-Event-ID`, every event after that version),
then the follower's batches as the viewer may see them, with `id` = stream
version, skipping what it already sent and reading the database only to fill
a gap (the follower was ahead when it joined, or this connection fell too far
behind). An idle connection makes no query: the follower reads for all of
them, and its heartbeats are comment lines. Once a connection has caught up,
the follower's loop writes its live frames (shared bytes per seat) straight to
its ASGI `send`, so a batch reaches thousands of connections without waking
their tasks (`GameConnection`, `Inbox.direct`).

Two frame styles: `named` (the default) gives each frame an `event:` line (the
event type, or `snapshot`); `message` sends every frame as a default `message`
event whose data carries its type, so one `EventSource.onmessage` follows the
game: the snapshot as `{"type": "snapshot", "game": <the game>}`, events as
`{version, type, data, at}`.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, Literal, Protocol

import msgspec
import structlog
from litestar.response import Stream
from litestar.response.streaming import ASGIStreamingResponse

from domain.table import SeatLeft, SeatTaken, Table
from service.live.follower import HEARTBEAT, LAGGED, Batch, Follower, Inbox, Signal
from service.commands.players import Viewer
from service.commands.repository import platform_event
from service.commands.views import GameOut
from service.commands.repository import GameRepository
from service.live.fanout import Broker
from service.store.protocol import EventStore, StoredEvent
from service.commands.views import game_out
from service.commands.visibility import Seals, WireEvent, look, wire

RETRY_MS = 2000
POLL_DEGRADED = 0.5  # seconds between a follower's reads while Redis is degraded
Frames = Literal["named", "message"]
_encode = msgspec.json.encode
HEARTBEAT_FRAME = b": heartbeat\n\n"
# the end of a stream whose game could not be read: reconnect (after `retry`) with Last-Event-ID
ERROR_FRAME = f"retry: {RETRY_MS}\n: error: the game could not be read, reconnect with Last-Event-ID\n\n".encode()
log = structlog.get_logger("stela.stream")


class SnapshotMessage(msgspec.Struct, frozen=True, tag="snapshot", tag_field="type"):
    """The first frame in `message` style: the game as getGame shows it to the viewer."""

    game: GameOut


class Sources(Protocol):
    """What a stream reads from: the process's fan-out, the store and the game repository (the edge's
    `Live` desk, built from the composition root's `Services`, is one)."""

    broker: Broker
    store: EventStore
    repository: GameRepository
    seals: Seals


def frame(event: str | None, data: bytes, event_id: int | None = None, retry: int | None = None) -> bytes:
    """One SSE frame; `event` None makes it a default `message` event (no `event:` line)."""
    head = f"retry: {retry}\n" if retry is not None else ""
    head += f"id: {event_id}\n" if event_id is not None else ""
    head += f"event: {event}\n" if event is not None else ""
    return head.encode() + b"data: " + data + b"\n\n"


def follower_of(services: Sources, game_id: str, heartbeat: float, poll: float = POLL_DEGRADED) -> Follower:
    """This process's follower of `game_id`, started if none runs."""
    broker = services.broker

    def make() -> Follower:
        return Follower(game_id, services.store.read_stream, lambda: broker.live, heartbeat, poll,
                        on_close=lambda f: broker.forget(game_id, f))

    return broker.follower(game_id, make)


def snapshot_frame(game: GameOut, frames: Frames) -> bytes:
    if frames == "message":
        return frame(None, _encode(SnapshotMessage(game)), game.version, RETRY_MS)
    return frame("snapshot", _encode(game), game.version, RETRY_MS)


class GameConnection:
    """One viewer's stream of one game (see the module docstring), iterated as bytes by any streaming
    response. Served by `LiveStream`, it also writes live batches itself: while its task waits with nothing
    queued, the follower calls `_direct` for each batch and heartbeat, which renders the shared frame of the
    viewer's (seat, publicness) and hands it to the ASGI `send` at once: no task wake-up per connection."""

    def __init__(self, services: Sources, game_id: str, viewer: Viewer, last_event_id: int | None,
                 heartbeat: float, poll_degraded: float = POLL_DEGRADED, closing: asyncio.Event | None = None,
                 frames: Frames = "named") -> None:
        self.services, self.game_id, self.viewer = services, game_id, viewer
        self.last_event_id, self.heartbeat, self.poll_degraded = last_event_id, heartbeat, poll_degraded
        self.closing, self.frames = closing, frames
        self.send: Callable[[Any], Awaitable[None]] | None = None  # set by LiveStream: enables direct writes
        self.last = 0  # the last version sent
        self.seat: int | None = None
        self.public = False
        self.sealed = False  # a sealed duplicate deal: no revealed seed on this connection
        self.table: Table | None = None
        self._inbox: Inbox | None = None

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    def _render(self, stored: list[StoredEvent], seat: int | None, public: bool, sealed: bool = False) -> bytes:
        assert self.table is not None
        return _render(self.table, self.frames, stored, seat, public, sealed)

    def _batch(self, item: Batch) -> bytes:
        """The frames of a batch that follows on from `last`, for this viewer; advances `last`."""
        if self.viewer.player_id is not None:  # a viewer who sits down sees as that seat from then on
            self.seat = item.derived("seats", seats_taken).get(self.viewer.player_id, self.seat)
        self.last = item.last
        return item.frames((self.seat, self.public, self.sealed, self.frames), self._render, self.seat, self.public,
                           self.sealed)

    async def _read(self, upto: int | None) -> bytes:
        """Frames of the stored events in (last, upto]; advances `last`."""
        stored = await self.services.store.read_stream(self.game_id, after=self.last, upto=upto)
        if stored:
            self.last = stored[-1].version
            self._seated(stored)
        return self._render(stored, self.seat, self.public, self.sealed)

    def _seated(self, events: list[StoredEvent]) -> None:
        """The viewer's seat after `events` (seats change only before the start, before any secret is dealt,
        so the seat after them is the one to show all of them as)."""
        if self.viewer.player_id is not None:
            self.seat = seats_taken(events).get(self.viewer.player_id, self.seat)

    async def _chunks(self) -> AsyncIterator[bytes]:
        services, game_id, viewer, closing = self.services, self.game_id, self.viewer, self.closing
        follower = follower_of(services, game_id, self.heartbeat, self.poll_degraded)
        self._inbox = inbox = follower.join()
        writing = False  # finishing a write the transport held back: its failure means the client is gone
        try:
            loaded = await services.repository.load(game_id)
            self.table, state = loaded.table, loaded.state
            seen = await look(services.seals, game_id, self.table, state, viewer)
            self.seat, self.public, self.sealed = seen.seat, seen.public, seen.sealed
            if self.last_event_id is None:
                yield snapshot_frame(game_out(game_id, self.table, state, viewer), self.frames)
                self.last = state.version
            else:
                yield f"retry: {RETRY_MS}\n\n".encode()
                self.last = self.last_event_id
                if out := await self._read(None):
                    yield out
            ahead = follower.seen(self.last)
            if ahead is not None and (out := await self._read(ahead)):
                yield out
            if self.send is not None:
                inbox.direct = self._direct  # from now on, only while this task waits in `inbox.get`
            while closing is None or not closing.is_set():
                item = await inbox.get()
                if closing is not None and closing.is_set():
                    break
                if isinstance(item, Unfinished):
                    writing = True
                    await item.finish()
                    writing = False
                elif item is HEARTBEAT:
                    yield HEARTBEAT_FRAME
                elif item is LAGGED:
                    if out := await self._read(None):
                        yield out
                elif isinstance(item, Batch) and item.last > self.last and (out := await self._queued(item, inbox)):
                    yield out
            yield f"retry: {RETRY_MS}\n: server closing, reconnect with Last-Event-ID\n\n".encode()
        except Exception as exc:
            if writing:
                raise
            # a read failed (the database is away): end the stream cleanly; the client resumes with Last-Event-ID
            log.warning("game_stream_failed", game_id=game_id, error=f"{type(exc).__name__}: {exc}")
            yield ERROR_FRAME
        finally:
            inbox.direct = None
            follower.leave(inbox)

    async def _queued(self, item: Batch, inbox: Inbox) -> bytes:
        """The frames of a queued batch with something new (and of the batches queued behind it that follow on)."""
        if item.first == self.last + 1:
            out = self._batch(item)
            while inbox.items and isinstance(inbox.items[0], Batch) and \
                    inbox.items[0].first == self.last + 1:  # queued behind: one send for all
                out += self._batch(inbox.items.popleft())
            return out
        # joined mid-batch, or a gap only a read can fill
        missed = [] if item.first <= self.last + 1 else await self.services.store.read_stream(
            self.game_id, after=self.last, upto=item.first - 1)
        self._seated(missed + item.events)
        out = self._render(missed + [e for e in item.events if e.version > self.last], self.seat, self.public,
                           self.sealed)
        self.last = item.last
        return out

    def _direct(self, item: Batch | Signal) -> bool:
        """Write `item` now, from the follower's loop (see `Inbox`); False leaves it to this connection's task."""
        if self.closing is not None and self.closing.is_set():
            return False
        if item is HEARTBEAT:
            out = HEARTBEAT_FRAME
        elif isinstance(item, Batch):
            if item.last <= self.last:
                return True  # nothing new for this connection
            if item.first != self.last + 1:
                return False
            out = self._batch(item)
        else:
            return False
        if out:
            send, inbox = self.send, self._inbox
            assert send is not None and inbox is not None
            coro: Any = send({"type": "http.response.body", "body": out, "more_body": True})
            try:
                waiting = coro.send(None)
            except StopIteration:
                return True
            except Exception as exc:  # noqa: BLE001 - raised in the connection's task, as a plain send would
                coro.close()
                inbox.queue(Unfinished(None, None, exc))
                return True
            inbox.queue(Unfinished(coro, waiting, None))  # the transport pushed back: the task finishes it
        return True


class Unfinished:
    """A direct write the connection's task must finish before anything else: the ASGI `send` waited (the
    transport pushed back), or raised."""

    __slots__ = ("coro", "waiting", "error")

    def __init__(self, coro: Coroutine[Any, Any, None] | None, waiting: Any, error: Exception | None) -> None:
        self.coro, self.waiting, self.error = coro, waiting, error

    async def finish(self) -> None:
        """Drive the suspended `send` to its end, as a task would (waiting on what it waits on)."""
        if self.error is not None:
            raise self.error
        assert self.coro is not None
        try:
            while True:
                if asyncio.isfuture(self.waiting):
                    self.waiting._asyncio_future_blocking = False
                    await asyncio.wait([self.waiting])
                else:  # a bare yield (None): it asked for one turn of the loop
                    await asyncio.sleep(0)
                self.waiting = self.coro.send(None)
        except StopIteration:
            return
        finally:
            self.coro.close()


class _LiveStreamingResponse(ASGIStreamingResponse):
    """Litestar's streaming response that lets a `GameConnection` write live frames itself."""

    __slots__ = ()

    async def _stream(self, send: Any) -> None:
        if isinstance(self.iterator, GameConnection):
            self.iterator.send = send
        await super()._stream(send)


class LiveStream(Stream):
    """`Stream` for a `GameConnection` (same headers, OpenAPI and disconnect handling)."""

    def to_asgi_response(self, *args: Any, **kwargs: Any) -> Any:
        response = super().to_asgi_response(*args, **kwargs)
        response.__class__ = _LiveStreamingResponse  # a subclass with the same slots: only `_stream` differs
        return response


def game_stream(services: Sources, game_id: str, viewer: Viewer, last_event_id: int | None,
                heartbeat: float, poll_degraded: float = POLL_DEGRADED, closing: asyncio.Event | None = None,
                frames: Frames = "named") -> GameConnection:
    """The SSE byte stream of `game_id` for `viewer` (the caller has checked the game exists)."""
    return GameConnection(services, game_id, viewer, last_event_id, heartbeat, poll_degraded, closing, frames)


def seats_taken(events: list[StoredEvent]) -> dict[str, int | None]:
    """Player id -> seat after `events` for each player who took or gave up a seat in them: a viewer who sits
    down sees as that seat from then on, and one who gives it up (None) no longer does (the seat may go to
    another player, whose secrets it is dealt)."""
    taken: dict[str, int | None] = {}
    for event in events:
        decoded = platform_event(event)
        if isinstance(decoded, SeatTaken):
            taken[decoded.player_id] = decoded.seat
        elif isinstance(decoded, SeatLeft):
            taken[decoded.player_id] = None
    return taken


_FRAMES: OrderedDict[tuple[str, int, int | None, bool, bool, str], bytes] = OrderedDict()
_FRAMES_MAX = 20_000


def _render(table: Table, frames: Frames, stored: list[StoredEvent], seat: int | None, public: bool,
            sealed: bool = False) -> bytes:
    """SSE frames of `stored` for one seat; connections of that seat on this process share each frame."""
    out = []
    for event in stored:
        key = (event.stream_id, event.version, seat, public, sealed, frames)
        framed = _FRAMES.get(key)
        if framed is None:
            shown: WireEvent | None = wire(table, event, seat, public, sealed)
            framed = frame(shown.type if frames == "named" else None, _encode(shown), event.version) if shown else b""
            _FRAMES[key] = framed
            if len(_FRAMES) > _FRAMES_MAX:
                _FRAMES.popitem(last=False)
        out.append(framed)
    return b"".join(out)
