"""An arena's Server-Sent Events stream: live standings, followed like a tournament's, never polling.

A connection joins the process's follower of the arena stream (`service.live.follower`, the one
reader per stream the game and tournament streams use; the one command loop publishes every arena
append on the broker) before it reads PostgreSQL, so every version committed after that read reaches
it. It sends a `snapshot` of the arena first (its view: times and the live standings) or, with
`Last-Event-ID`, exactly the events after that version; then each batch the follower delivers, one
frame per event (`id` = stream version) and, after each batch, a `standings` frame (the arena's view
after it, its standings cut to the first `TOP`, with the same id as the batch's last event), so a
client needs no scoring of its own (the whole table is `GET /v1/arenas/{id}`). It
reads the database only to fill a gap, and ends after `arena.ArenaEnded`. Seeds stay hidden until
the end: a batch is redacted with the arena's status after that batch.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import msgspec

import domain.arena as A
from service.commands.arenas import Arenas, redacted, stream_of
from service.live.follower import HEARTBEAT, LAGGED, Batch
from service.live.sse import RETRY_MS, Sources, follower_of, frame
from service.store.protocol import StoredEvent

_encode = msgspec.json.encode
TOP = 100  # standings rows in each `standings` frame


def _advance(state: A.ArenaState, stored: list[StoredEvent]) -> A.ArenaState:
    """The arena after the events of `stored` it has not folded yet."""
    new = [A.decode_event(e.type, e.data) for e in stored if e.version > state.version]
    return A.fold(new, state) if new else state


def _render(state: A.ArenaState, stored: list[StoredEvent]) -> bytes:
    """The frames of `stored` as the arena after them shows them, then its standings."""
    if not stored:
        return b""
    out = [frame(e.type, _encode(redacted(state, e)), e.version) for e in stored]
    view = A.view(state)
    out.append(frame("standings", _encode(msgspec.structs.replace(view, standings=view.standings[:TOP])),
                     stored[-1].version))
    return b"".join(out)


async def arena_stream(services: Sources, arenas: Arenas, arena_id: str, last_event_id: int | None,
                       heartbeat: float, closing: asyncio.Event | None = None) -> AsyncIterator[bytes]:
    """The SSE byte stream of an arena (the caller has checked it exists and `last_event_id` is a version)."""
    stream_id = stream_of(arena_id)
    follower = follower_of(services, stream_id, heartbeat)
    inbox = follower.join()
    read = services.store.read_stream
    try:
        state = (await arenas.load(arena_id)).state
        if last_event_id is None:
            yield frame("snapshot", _encode(A.view(state)), state.version, RETRY_MS)
            last = state.version
        else:
            yield f"retry: {RETRY_MS}\n\n".encode()
            missed = await read(stream_id, after=last_event_id)
            state = _advance(state, missed)
            last = missed[-1].version if missed else last_event_id
            yield _render(state, missed)
        ahead = follower.seen(last)
        if ahead is not None and ahead > last:
            missed = await read(stream_id, after=last, upto=ahead)
            state = _advance(state, missed)
            last = missed[-1].version if missed else last
            yield _render(state, missed)
        while not state.finished and (closing is None or not closing.is_set()):
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
                state = _advance(state, new)
                last = new[-1].version
                yield _render(state, new)
        if not state.finished:
            yield f"retry: {RETRY_MS}\n: server closing, reconnect with Last-Event-ID\n\n".encode()
    finally:
        follower.leave(inbox)
