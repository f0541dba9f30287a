"""The Server-Sent Events stream of a platform aggregate (a tournament, an arena): one loop for both,
followed like a game's, woken by the fan-out, never polling.

A connection joins the process's follower of the aggregate's stream (`service.live.follower`, the
one reader per stream the game streams use; the one command loop publishes every append on the
broker) before it reads PostgreSQL, so every version committed after that read reaches it. It sends
a `snapshot` frame first (the aggregate's view) or, with `Last-Event-ID`, exactly the events after
that version; then each batch the follower delivers. Every run of events is rendered by the
aggregate's `Shape` with the aggregate as it stands after that run (so a batch is redacted with
the status it ends in: the batch that ends the aggregate shows its seeds). The database is read only
to fill a gap, and the stream ends once the aggregate has ended (or the process is closing: then it
tells the client to reconnect).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

from service.commands.repository import Codec, Repository
from service.live.follower import HEARTBEAT, LAGGED, Batch
from service.live.sse import RETRY_MS, Sources, follower_of, frame
from service.store.protocol import StoredEvent

S = TypeVar("S")
_encode = msgspec.json.encode


@dataclass(frozen=True)
class Shape(Generic[S]):
    """What the stream needs of one kind of aggregate: its codec, its snapshot, its frames, its end."""

    codec: Codec[S]
    view: Callable[[S], Any]  # the `snapshot` frame's body
    render: Callable[[S, list[StoredEvent]], bytes]  # the frames of a run of events, given the state after it
    ended: Callable[[S], bool]

    def advance(self, state: Any, stored: list[StoredEvent]) -> S:
        """The aggregate after the events of `stored` it has not folded yet."""
        new = [self.codec.decode_event(e.type, e.data) for e in stored if e.version > state.version]
        return self.codec.fold(new, state) if new else state


async def aggregate_stream(services: Sources, repository: Repository, stream_id: str, shape: Shape[Any],
                           last_event_id: int | None, heartbeat: float,
                           closing: asyncio.Event | None = None) -> AsyncIterator[bytes]:
    """The SSE byte stream of the aggregate at `stream_id` (the caller has checked it exists and that
    `last_event_id` is one of its versions)."""
    follower = follower_of(services, stream_id, heartbeat)
    inbox = follower.join()
    read = services.store.read_stream
    try:
        state = (await repository.load(stream_id)).state
        if last_event_id is None:
            yield frame("snapshot", _encode(shape.view(state)), state.version, RETRY_MS)
            last = state.version
        else:
            yield f"retry: {RETRY_MS}\n\n".encode()
            missed = await read(stream_id, after=last_event_id)
            state = shape.advance(state, missed)
            last = missed[-1].version if missed else last_event_id
            yield shape.render(state, missed)
        ahead = follower.seen(last)
        if ahead is not None and ahead > last:  # the follower delivered past what was read: read up to it
            missed = await read(stream_id, after=last, upto=ahead)
            state = shape.advance(state, missed)
            last = missed[-1].version if missed else last
            yield shape.render(state, missed)
        while not shape.ended(state) and (closing is None or not closing.is_set()):
            item = await inbox.get()
            if item is HEARTBEAT:
                yield b": heartbeat\n\n"
                continue
            if item is LAGGED:
                new = await read(stream_id, after=last)
            elif isinstance(item, Batch) and item.last > last:
                gap = [] if item.first <= last + 1 else await read(stream_id, after=last, upto=item.first - 1)
                new = gap + [e for e in item.events if e.version > last]
            else:
                continue
            if new:
                state = shape.advance(state, new)
                last = new[-1].version
                yield shape.render(state, new)
        if not shape.ended(state):
            yield f"retry: {RETRY_MS}\n: server closing, reconnect with Last-Event-ID\n\n".encode()
    finally:
        follower.leave(inbox)
