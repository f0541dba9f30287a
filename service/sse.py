"""Server-Sent Events for one game and one viewer.

A connection joins its game's follower (`service.follower`) before reading
PostgreSQL, so every version committed after that read reaches it. It sends a
`snapshot` first (or, with `Last-Event-ID`, every event after that version),
then the follower's batches as the viewer may see them, with `id` = stream
version, skipping what it already sent and reading the database only to fill
a gap (the follower was ahead when it joined, or this connection fell too far
behind). An idle connection makes no query: the follower reads for all of
them, and its heartbeats are comment lines.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from functools import partial

import msgspec

from domain.table import SeatTaken, Table
from service.follower import HEARTBEAT, LAGGED, Batch, Follower
from service.handling import GameService, Viewer, WireEvent
from service.store.protocol import StoredEvent
from service.views import game_out

RETRY_MS = 2000
POLL_DEGRADED = 0.5  # seconds between a follower's reads while Redis is degraded
_encode = msgspec.json.encode


def frame(event: str, data: bytes, event_id: int | None = None, retry: int | None = None) -> bytes:
    head = f"retry: {retry}\n" if retry is not None else ""
    head += f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\n".encode() + b"data: " + data + b"\n\n"


def follower_of(service: GameService, game_id: str, heartbeat: float, poll: float = POLL_DEGRADED) -> Follower:
    """This process's follower of `game_id`, started if none runs."""
    broker = service.broker

    def make() -> Follower:
        return Follower(game_id, service.store.read_stream, lambda: broker.live, heartbeat, poll,
                        on_close=lambda f: broker.forget(game_id, f))

    return broker.follower(game_id, make)


async def game_stream(service: GameService, game_id: str, viewer: Viewer, last_event_id: int | None,
                      heartbeat: float, poll_degraded: float = POLL_DEGRADED, closing: asyncio.Event | None = None,
                      ) -> AsyncIterator[bytes]:
    """The SSE byte stream of `game_id` for `viewer` (the caller has checked the game exists)."""
    follower = follower_of(service, game_id, heartbeat, poll_degraded)
    inbox = follower.join()
    try:
        loaded = await service.load(game_id)
        table, state = loaded.table, loaded.state
        seat = service.seat_for(table, state, viewer)
        public = service.is_public(state, viewer)
        render = partial(_render, service, table)
        if last_event_id is None:
            yield frame("snapshot", _encode(game_out(game_id, table, state, viewer)), state.version, RETRY_MS)
            last = state.version
        else:
            yield f"retry: {RETRY_MS}\n\n".encode()
            out, last = await _read(service, game_id, last_event_id, None, partial(render, seat=seat, public=public))
            if out:
                yield out
        ahead = follower.seen(last)
        if ahead is not None:
            out, last = await _read(service, game_id, last, ahead, partial(render, seat=seat, public=public))
            if out:
                yield out
        while closing is None or not closing.is_set():
            item = await inbox.get()
            if closing is not None and closing.is_set():
                break
            if item is HEARTBEAT:
                yield b": heartbeat\n\n"
            elif item is LAGGED:
                out, last = await _read(service, game_id, last, None, partial(render, seat=seat, public=public))
                if out:
                    yield out
            elif isinstance(item, Batch) and item.last > last:
                if viewer.player_id is not None:
                    seat = item.derived("seats", partial(_seats_taken, table)).get(viewer.player_id, seat)
                if item.first == last + 1:
                    out = item.frames((seat, public), partial(render, seat=seat, public=public))
                else:  # joined mid-batch, or a gap only a read can fill
                    missed = [] if item.first <= last + 1 else await service.store.read_stream(
                        game_id, after=last, upto=item.first - 1)
                    out = render(missed + [e for e in item.events if e.version > last], seat, public)
                last = item.last
                if out:
                    yield out
        yield f"retry: {RETRY_MS}\n: server closing, reconnect with Last-Event-ID\n\n".encode()
    finally:
        follower.leave(inbox)


async def _read(service: GameService, game_id: str, after: int, upto: int | None,
                render: Callable[[list[StoredEvent]], bytes]) -> tuple[bytes, int]:
    """Frames of the stored events in (after, upto] and the last version read (`after` if none)."""
    stored = await service.store.read_stream(game_id, after=after, upto=upto)
    return render(stored), stored[-1].version if stored else after


def _seats_taken(table: Table, events: list[StoredEvent]) -> dict[str, int]:
    """Player id -> seat for each seat taken in `events` (a viewer who sits down sees as that seat)."""
    taken = {}
    for event in events:
        decoded = GameService.decode(table, event)
        if isinstance(decoded, SeatTaken):
            taken[decoded.player_id] = decoded.seat
    return taken


_FRAMES: OrderedDict[tuple[str, int, int | None, bool], bytes] = OrderedDict()
_FRAMES_MAX = 20_000


def _render(service: GameService, table: Table, stored: list[StoredEvent], seat: int | None,
            public: bool) -> bytes:
    """SSE frames of `stored` for one seat; connections of that seat on this process share each frame."""
    out = []
    for event in stored:
        key = (event.stream_id, event.version, seat, public)
        framed = _FRAMES.get(key)
        if framed is None:
            shown: WireEvent | None = service.wire(table, event, seat, public)
            framed = frame(shown.type, _encode(shown), event.version) if shown else b""
            _FRAMES[key] = framed
            if len(_FRAMES) > _FRAMES_MAX:
                _FRAMES.popitem(last=False)
        out.append(framed)
    return b"".join(out)
