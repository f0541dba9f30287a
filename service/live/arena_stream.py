"""An arena's Server-Sent Events stream: live standings, through the one loop of an aggregate's stream
(`service.live.aggregate_stream`: a `snapshot` or the events after `Last-Event-ID`, then each batch
as it is appended, ending after `tournament.TournamentEnded`).

What is the arena's own: the snapshot is its view (times and the live standings), and after each
run of events comes a `standings` frame (the arena's view after it, its standings cut to the first
`TOP`, with the same id as the run's last event), so a client needs no scoring of its own (the
whole table is `GET /v1/arenas/{id}`). Seeds stay hidden until the end: a batch is redacted with the
arena's status after that batch.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import msgspec

import domain.tournament.arena as A
from domain.tournament.competition import ARENA
from service.commands.arenas import Arenas
from service.commands.competition import CODECS, redacted
from service.live.aggregate_stream import Shape, aggregate_stream
from service.live.sse import Sources, frame
from service.store.protocol import StoredEvent

_encode = msgspec.json.encode
TOP = 100  # standings rows in each `standings` frame


def _render(state: A.ArenaState, stored: list[StoredEvent]) -> bytes:
    """The frames of `stored` as the arena after them shows them, then its standings."""
    if not stored:
        return b""
    shown = [redacted(state, e) for e in stored]  # each under its current tag, the frame named by it too
    out = [frame(s["type"], _encode(s), s["version"]) for s in shown]
    view = A.view(state)
    out.append(frame("standings", _encode(msgspec.structs.replace(view, standings=view.standings[:TOP])),
                     stored[-1].version))
    return b"".join(out)


SHAPE = Shape(codec=CODECS[ARENA.family], view=A.view, render=_render, ended=lambda state: state.finished)


def arena_stream(services: Sources, arenas: Arenas, arena_id: str, last_event_id: int | None,
                 heartbeat: float, closing: asyncio.Event | None = None) -> AsyncIterator[bytes]:
    """The SSE byte stream of an arena (the caller has checked it exists and `last_event_id` is a version)."""
    stream_id = arenas.stream_of(arena_id)
    return aggregate_stream(services, arenas.repository, stream_id, SHAPE, last_event_id, heartbeat, closing)
