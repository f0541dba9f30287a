"""A tournament's Server-Sent Events stream, followed like a game's: woken by the fan-out, never polling.

A connection joins the process's follower of the tournament stream (`service.live.follower`, the same
one-reader-per-stream machinery the game streams use; the one command loop publishes every
tournament append on the broker) before it reads PostgreSQL, so every version committed after that
read reaches it. It sends a `snapshot` of the tournament first or, with `Last-Event-ID`, exactly the
events after that version, then each batch the follower delivers, with `id` = stream version, and
reads the database only to fill a gap. The stream ends after `tournament.TournamentEnded`.

Seeds stay hidden until the end: a batch is redacted with the tournament's status after that batch,
the rule `GET /v1/tournaments/{id}/events` follows, so the batch that ends the tournament shows them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import msgspec

import domain.tournament as T
from service.live.follower import HEARTBEAT, LAGGED, Batch
from service.live.sse import RETRY_MS, Sources, follower_of, frame
from service.store.protocol import StoredEvent
from service.commands.tournaments import Tournaments, redacted, stream_of

_encode = msgspec.json.encode


def _advance(state: T.TournamentState, stored: list[StoredEvent]) -> T.TournamentState:
    """The tournament after the events of `stored` it has not folded yet."""
    new = [T.decode_event(e.type, e.data) for e in stored if e.version > state.version]
    return T.fold(new, state) if new else state


def _render(state: T.TournamentState, stored: list[StoredEvent]) -> bytes:
    out = []
    for event in stored:
        shown: dict[str, Any] = redacted(state, event)
        out.append(frame(shown["type"], _encode(shown), event.version))
    return b"".join(out)


async def tournament_stream(services: Sources, tournaments: Tournaments, tournament_id: str,
                            last_event_id: int | None, heartbeat: float,
                            closing: asyncio.Event | None = None) -> AsyncIterator[bytes]:
    """The SSE byte stream of a tournament (the caller has checked it exists and `last_event_id` is a version)."""
    stream_id = stream_of(tournament_id)
    follower = follower_of(services, stream_id, heartbeat)
    inbox = follower.join()
    read = services.store.read_stream
    try:
        state = (await tournaments.load(tournament_id)).state
        if last_event_id is None:
            yield frame("snapshot", _encode(T.view(state)), state.version, RETRY_MS)
            last = state.version
        else:
            yield f"retry: {RETRY_MS}\n\n".encode()
            missed = await read(stream_id, after=last_event_id)
            state = _advance(state, missed)
            last = missed[-1].version if missed else last_event_id
            yield _render(state, missed)
        ahead = follower.seen(last)
        if ahead is not None:
            missed = await read(stream_id, after=last, upto=ahead)
            state = _advance(state, missed)
            last = missed[-1].version if missed else last
            yield _render(state, missed)
        while state.status != "finished" and (closing is None or not closing.is_set()):
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
        if state.status != "finished":
            yield f"retry: {RETRY_MS}\n: server closing, reconnect with Last-Event-ID\n\n".encode()
    finally:
        follower.leave(inbox)
