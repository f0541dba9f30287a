"""Server-Sent Events for one game and one viewer.

A connection joins its game's follower (`service.follower`) before reading
PostgreSQL, so every version committed after that read reaches it. It sends a
`snapshot` first (or, with `Last-Event-ID`, every event after that version),
then the follower's batches as the viewer may see them, with `id` = stream
version, skipping what it already sent and reading the database only to fill
a gap (the follower was ahead when it joined, or this connection fell too far
behind). An idle connection makes no query: the follower reads for all of
them, and its heartbeats are comment lines.

Two frame styles: `named` (the default) gives each frame an `event:` line (the
event type, or `snapshot`); `message` sends every frame as a default `message`
event whose data carries its type, so one `EventSource.onmessage` follows the
game: the snapshot as `{"type": "snapshot", "game": <the game>}`, events as
`{version, type, data, at}`.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from domain.table import SeatTaken, Table
from service.follower import HEARTBEAT, LAGGED, Batch, Follower
from service.players import Viewer
from service.repository import platform_event
from service.schemas import GameOut
from service.store.protocol import StoredEvent
from service.views import game_out
from service.visibility import WireEvent, is_public, seat_of, wire

if TYPE_CHECKING:
    from service.container import Services

RETRY_MS = 2000
POLL_DEGRADED = 0.5  # seconds between a follower's reads while Redis is degraded
Frames = Literal["named", "message"]
_encode = msgspec.json.encode


class SnapshotMessage(msgspec.Struct, frozen=True, tag="snapshot", tag_field="type"):
    """The first frame in `message` style: the game as getGame shows it to the viewer."""

    game: GameOut


def frame(event: str | None, data: bytes, event_id: int | None = None, retry: int | None = None) -> bytes:
    """One SSE frame; `event` None makes it a default `message` event (no `event:` line)."""
    head = f"retry: {retry}\n" if retry is not None else ""
    head += f"id: {event_id}\n" if event_id is not None else ""
    head += f"event: {event}\n" if event is not None else ""
    return head.encode() + b"data: " + data + b"\n\n"


def follower_of(services: Services, game_id: str, heartbeat: float, poll: float = POLL_DEGRADED) -> Follower:
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


async def game_stream(services: Services, game_id: str, viewer: Viewer, last_event_id: int | None,
                      heartbeat: float, poll_degraded: float = POLL_DEGRADED, closing: asyncio.Event | None = None,
                      frames: Frames = "named") -> AsyncIterator[bytes]:
    """The SSE byte stream of `game_id` for `viewer` (the caller has checked the game exists)."""
    follower = follower_of(services, game_id, heartbeat, poll_degraded)
    inbox = follower.join()
    store = services.store
    try:
        loaded = await services.repository.load(game_id)
        table, state = loaded.table, loaded.state
        seat = seat_of(table, state, viewer)
        public = is_public(state, viewer)
        render = partial(_render, table, frames)
        if last_event_id is None:
            yield snapshot_frame(game_out(game_id, table, state, viewer), frames)
            last = state.version
        else:
            yield f"retry: {RETRY_MS}\n\n".encode()
            out, last = await _read(store.read_stream, game_id, last_event_id, None,
                                    partial(render, seat=seat, public=public))
            if out:
                yield out
        ahead = follower.seen(last)
        if ahead is not None:
            out, last = await _read(store.read_stream, game_id, last, ahead, partial(render, seat=seat, public=public))
            if out:
                yield out
        while closing is None or not closing.is_set():
            item = await inbox.get()
            if closing is not None and closing.is_set():
                break
            if item is HEARTBEAT:
                yield b": heartbeat\n\n"
            elif item is LAGGED:
                out, last = await _read(store.read_stream, game_id, last, None,
                                        partial(render, seat=seat, public=public))
                if out:
                    yield out
            elif isinstance(item, Batch) and item.last > last:
                if viewer.player_id is not None:
                    seat = item.derived("seats", seats_taken).get(viewer.player_id, seat)
                if item.first == last + 1:
                    out = item.frames((seat, public, frames), partial(render, seat=seat, public=public))
                else:  # joined mid-batch, or a gap only a read can fill
                    missed = [] if item.first <= last + 1 else await store.read_stream(
                        game_id, after=last, upto=item.first - 1)
                    out = render(missed + [e for e in item.events if e.version > last], seat, public)
                last = item.last
                if out:
                    yield out
        yield f"retry: {RETRY_MS}\n: server closing, reconnect with Last-Event-ID\n\n".encode()
    finally:
        follower.leave(inbox)


async def _read(read: Callable[..., Any], game_id: str, after: int, upto: int | None,
                render: Callable[[list[StoredEvent]], bytes]) -> tuple[bytes, int]:
    """Frames of the stored events in (after, upto] and the last version read (`after` if none)."""
    stored = await read(game_id, after=after, upto=upto)
    return render(stored), stored[-1].version if stored else after


def seats_taken(events: list[StoredEvent]) -> dict[str, int]:
    """Player id -> seat for each seat taken in `events` (a viewer who sits down sees as that seat)."""
    taken = {}
    for event in events:
        decoded = platform_event(event)
        if isinstance(decoded, SeatTaken):
            taken[decoded.player_id] = decoded.seat
    return taken


_FRAMES: OrderedDict[tuple[str, int, int | None, bool, str], bytes] = OrderedDict()
_FRAMES_MAX = 20_000


def _render(table: Table, frames: Frames, stored: list[StoredEvent], seat: int | None, public: bool) -> bytes:
    """SSE frames of `stored` for one seat; connections of that seat on this process share each frame."""
    out = []
    for event in stored:
        key = (event.stream_id, event.version, seat, public, frames)
        framed = _FRAMES.get(key)
        if framed is None:
            shown: WireEvent | None = wire(table, event, seat, public)
            framed = frame(shown.type if frames == "named" else None, _encode(shown), event.version) if shown else b""
            _FRAMES[key] = framed
            if len(_FRAMES) > _FRAMES_MAX:
                _FRAMES.popitem(last=False)
        out.append(framed)
    return b"".join(out)
