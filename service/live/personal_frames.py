"""The personal stream's frames and per-connection queue: the `Notice` a player receives, what the
hub remembers of each game (`Seen`) and of each player's games (`Membership`), and a
`Connection`'s bounded queue (see `service.live.personal`).
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, Literal

import msgspec

from service.commands.repository import Loaded
from service.commands.views import OutcomeOut, Status
from service.store.protocol import StoredEvent

Kind = Literal["game.state", "game.started", "game.your_turn", "game.ended"]
QUEUE_MAX = 1000  # notices a slow connection may hold before it is closed (the client resumes)


class Marker:
    """A step of `PersonalHub.notices` that is not a notice."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


CONNECTED = Marker("connected")  # the (re)connection's announcement is done
IDLE = Marker("idle")  # nothing for a heartbeat interval
WOKEN = Marker("woken")  # the process woke its connections: the stream may have to end


class Notice(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One frame of the personal stream."""

    type: Kind
    game_id: str
    kind: str
    status: Status
    version: int
    to_act: list[int]
    your_turn: bool
    outcome: OutcomeOut | None = None


class Seen(msgspec.Struct, frozen=True):
    """What the hub last knew of a game (the state is shared with the repository's cache)."""

    version: int
    status: str
    to_act: frozenset[int]
    loaded: Loaded


class Membership(msgspec.Struct, frozen=True):
    """A game of the player, as the store lists it: its newest event time and whether it ended."""

    game_id: str
    last_ms: int
    over: bool


def appends(events: list[StoredEvent]) -> list[list[StoredEvent]]:
    """`events` split into the batches appended together (one transaction each)."""
    out: list[list[StoredEvent]] = []
    for event in events:
        if out and out[-1][-1].tx == event.tx:
            out[-1].append(event)
        else:
            out.append([event])
    return out


def millis(at: datetime) -> int:
    return int(at.timestamp() * 1000)


async def games_of(store: Any, player_id: str) -> list[Membership]:
    """Every game `player_id` took a seat in, straight from the event store (never lags; indexed)."""
    return [Membership(g.game_id, millis(g.last_at), g.over) for g in await store.seats_of([player_id])]


Announced = tuple[int, Notice, Loaded | None]  # (time in ms, the notice, the game as it says: for its turn's commands)


class Connection:
    """One personal stream's queue of notices."""

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.queue: asyncio.Queue[Announced | None] = asyncio.Queue(QUEUE_MAX)
        self.announced: dict[str, int] = {}  # game id -> version already shown on connect
        self.overflowed = False

    def put(self, at_ms: int, notice: Notice, loaded: Loaded | None = None) -> None:
        """Queue `notice`; `loaded` is the game at its version (kept for a turn's notice only)."""
        try:
            self.queue.put_nowait((at_ms, notice, loaded if notice.your_turn else None))
        except asyncio.QueueFull:
            self.overflowed = True  # closed; the client resumes from its cursor and misses nothing
