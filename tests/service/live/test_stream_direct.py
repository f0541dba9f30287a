"""Live frames written straight from the game's follower: a connection whose transport pushes back
holds nobody else up and still gets every event exactly once, in order, what queued up in one write."""

from __future__ import annotations

import asyncio
import re

import msgspec
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from service.store.memory import MemoryStore
from tests.service.live.test_sse import add, wait_for
from testkit.api import started_game

ID = re.compile(rb"(?m)^id: (\d+)$")


def stream_scope(path: str, headers: dict[str, str] | None = None) -> dict:
    extra = [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
            "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [(b"accept", b"text/event-stream"), (b"host", b"t"), *extra],
            "client": ("192.0.2.1", 1), "server": ("t", 80), "state": {}}


class Connection:
    """An ASGI peer for one stream whose `send` waits while `open` is clear, as a full transport makes it."""

    def __init__(self) -> None:
        self.body = b""
        self.sends = 0  # body messages written
        self.open = asyncio.Event()
        self.open.set()
        self.waited = 0  # body writes that had to wait
        self.gone = asyncio.Event()

    async def send(self, message: dict) -> None:
        if message["type"] == "http.response.body":
            if not self.open.is_set():
                self.waited += 1
                await self.open.wait()
            self.body += message["body"]
            self.sends += 1

    async def receive(self) -> dict:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    def ids(self) -> list[int]:
        return [int(v) for v in ID.findall(self.body)]


async def test_a_connection_that_pushes_back_holds_nobody_up_and_misses_nothing(settings, games):
    quiet = msgspec.structs.replace(settings, database_url=None, heartbeat_seconds=60)  # only events are written
    app = create_app(quiet, games=games, store=MemoryStore())
    async with AsyncTestClient(app) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 500})
        slow, quick = Connection(), Connection()
        path = f"/v1/games/{game_id}/stream"
        tasks = [asyncio.create_task(app(stream_scope(path), c.receive, c.send)) for c in (slow, quick)]
        await wait_for(lambda: slow.ids() and quick.ids(), 60)
        start = slow.ids()[0]
        slow.open.clear()
        sent = []
        for i in range(12):
            sent.append(await add(client, game_id, players[i % 2]))
            await wait_for(lambda: quick.ids()[-1] == sent[-1], 60)  # the quick one is never held up
        assert slow.waited >= 1 and slow.ids() == [start]
        sends = slow.sends
        slow.open.set()
        await wait_for(lambda: slow.ids()[-1] == sent[-1], 60)
        assert slow.sends == sends + 2  # the write that waited, then everything queued behind it in one
        assert slow.ids() == list(range(start, sent[-1] + 1))
        assert quick.ids() == list(range(start, sent[-1] + 1))
        for c in (slow, quick):
            c.gone.set()
        await asyncio.gather(*tasks, return_exceptions=True)
