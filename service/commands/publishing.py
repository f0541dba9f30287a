"""What the commands need of the fan-out: a place to announce the events an append stored.

`service.live.fanout.Broker` (in process or over Redis) is the one implementation; the commands
know only this protocol, so they sit below the live streams.
"""

from __future__ import annotations

from typing import Protocol

from service.store.protocol import StoredEvent


class Publisher(Protocol):
    async def publish(self, stream_id: str, events: list[StoredEvent]) -> None:
        """Announce `events`, just appended to `stream_id`, to every process's followers."""
