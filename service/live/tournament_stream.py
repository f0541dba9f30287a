"""A tournament's Server-Sent Events stream, through the one loop of an aggregate's stream
(`service.live.aggregate_stream`): a `snapshot` of the tournament (its view) or the events after
`Last-Event-ID`, then each batch as it is appended, with `id` = stream version, ending after
`tournament.TournamentEnded`.

Seeds stay hidden until the end: a batch is redacted with the tournament's status after that batch,
the rule `GET /v1/tournaments/{id}/events` follows, so the batch that ends the tournament shows them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import msgspec

import domain.tournament as T
from service.commands.tournaments import CODEC, Tournaments, redacted
from service.live.aggregate_stream import Shape, aggregate_stream
from service.live.sse import Sources, frame
from service.store.protocol import StoredEvent

_encode = msgspec.json.encode


def _render(state: T.TournamentState, stored: list[StoredEvent]) -> bytes:
    """The frames of `stored` as the tournament after them shows them."""
    return b"".join(frame(e.type, _encode(redacted(state, e)), e.version) for e in stored)


SHAPE = Shape(codec=CODEC, view=T.view, render=_render, ended=lambda state: state.status == "finished")


def tournament_stream(services: Sources, tournaments: Tournaments, tournament_id: str, last_event_id: int | None,
                      heartbeat: float, closing: asyncio.Event | None = None) -> AsyncIterator[bytes]:
    """The SSE byte stream of a tournament (the caller has checked it exists and `last_event_id` is a version)."""
    stream_id = tournaments.stream_of(tournament_id)
    return aggregate_stream(services, tournaments.repository, stream_id, SHAPE, last_event_id, heartbeat, closing)
