"""Server-Sent Events for one game and one viewer.

The connection subscribes to the fan-out before reading PostgreSQL, so nothing
committed in between is missed. It sends a `snapshot` first (or, with
`Last-Event-ID`, every event after that version), then each new event redacted
for the viewer with `id` = stream version. Pushed batches that do not follow
the last version sent are ignored in favour of re-reading PostgreSQL, which
also happens on every idle wake-up: no gap, no duplicate, even if Redis drops
messages or is down. A comment line is sent as a heartbeat.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import AsyncIterator

import msgspec

from domain.table import Table
from service.handling import GameService, Viewer, WireEvent
from service.store.protocol import StoredEvent
from service.views import game_out

RETRY_MS = 2000
_encode = msgspec.json.encode


def frame(event: str, data: bytes, event_id: int | None = None, retry: int | None = None) -> bytes:
    head = f"retry: {retry}\n" if retry is not None else ""
    head += f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\n".encode() + b"data: " + data + b"\n\n"


async def game_stream(service: GameService, game_id: str, viewer: Viewer, last_event_id: int | None,
                      heartbeat: float, poll_degraded: float = 1.0, closing: asyncio.Event | None = None,
                      ) -> AsyncIterator[bytes]:
    """The SSE byte stream of `game_id` for `viewer` (the caller has checked the game exists)."""
    sub = service.broker.subscribe(game_id)
    try:
        loaded = await service.load(game_id)
        table, state = loaded.table, loaded.state
        seat = service.seat_for(table, state, viewer)
        public = service.is_public(state, viewer)
        if last_event_id is None:
            yield frame("snapshot", _encode(game_out(game_id, table, state, viewer)), state.version, RETRY_MS)
            last = state.version
        else:
            last = last_event_id
            yield f"retry: {RETRY_MS}\n\n".encode()
            stored = await service.store.read_stream(game_id, after=last)
            for out in _shown(service, table, stored, seat, public):
                yield out
            last = stored[-1].version if stored else last
        beat = time.monotonic()
        while closing is None or not closing.is_set():
            wait = heartbeat if service.broker.healthy else min(heartbeat, poll_degraded)
            try:
                batch: list[StoredEvent] | None = await asyncio.wait_for(sub.queue.get(), wait)
            except TimeoutError:
                batch = None
            if closing is not None and closing.is_set():
                break
            if not batch or batch[0].version > last + 1:
                batch = await service.store.read_stream(game_id, after=last)
            batch = [e for e in batch if e.version > last]
            if batch:
                if any(e.type == "table.SeatTaken" and e.data.get("player_id") == viewer.player_id for e in batch):
                    seat = next(e.data["seat"] for e in batch if e.type == "table.SeatTaken"
                                and e.data.get("player_id") == viewer.player_id)
                for out in _shown(service, table, batch, seat, public):
                    yield out
                last = batch[-1].version
                beat = time.monotonic()
            elif time.monotonic() - beat >= heartbeat:
                yield b": heartbeat\n\n"
                beat = time.monotonic()
        yield f"retry: {RETRY_MS}\n: server closing, reconnect with Last-Event-ID\n\n".encode()
    finally:
        sub.close()


_FRAMES: OrderedDict[tuple[str, int, int | None, bool], bytes] = OrderedDict()
_FRAMES_MAX = 20_000


def _shown(service: GameService, table: Table, stored: list[StoredEvent], seat: int | None,
            public: bool) -> list[bytes]:
    """SSE frames of `stored` for one seat; every connection of that seat on this process shares them."""
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
        if framed:
            out.append(framed)
    return out
