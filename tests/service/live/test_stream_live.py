"""Many live SSE connections on one process: no reads while idle, every event once and in order, resume."""

from __future__ import annotations

import asyncio

import httpx
import msgspec
import pytest

from service.edge.app import create_app
from service.store.memory import MemoryStore
from tests.service.live.test_sse import add, collect, wait_for
from testkit.api import started_game
from testkit.live import serving



class CountingStore(MemoryStore):
    """The in-memory store, counting the reads a stream could make."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def read_stream(self, stream_id, after=0, upto=None):
        self.reads += 1
        return await super().read_stream(stream_id, after, upto)

    async def stream_kind(self, stream_id):
        self.reads += 1
        return await super().stream_kind(stream_id)

    async def load_snapshot(self, stream_id, fmt):
        self.reads += 1
        return await super().load_snapshot(stream_id, fmt)


@pytest.fixture
def store():
    return CountingStore()


@pytest.fixture
def base_url(settings, games, store):
    cfg = msgspec.structs.replace(settings, heartbeat_seconds=0.2)
    with serving(create_app(cfg, games=games, store=store)) as url:
        yield url


def ids(messages: list[dict]) -> list[int]:
    return [int(m["id"]) for m in messages if "id" in m]


def heartbeats(messages: list[dict]) -> int:
    return sum(1 for m in messages if m.get("comment") == "heartbeat")


def many() -> httpx.Limits:
    return httpx.Limits(max_connections=200, max_keepalive_connections=200)


async def test_idle_streams_make_no_reads_however_many_are_open(base_url, store):
    async with httpx.AsyncClient(base_url=base_url, limits=many(), timeout=30) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 100})
        streams: list[list] = [[] for _ in range(40)]
        tasks = [asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream",
                                             players[i % 2]["headers"] if i % 3 == 0 else {}, got))
                 for i, got in enumerate(streams)]
        await wait_for(lambda: all(ids(got) for got in streams))
        before = store.reads
        await wait_for(lambda: all(heartbeats(got) >= 3 for got in streams))
        assert store.reads == before
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_many_subscribers_each_get_every_event_exactly_once_in_order(base_url, store):
    async with httpx.AsyncClient(base_url=base_url, limits=many(), timeout=30) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 500})
        streams: list[list] = []
        tasks = []
        last = 0
        for i in range(30):
            if i % 3 == 0:  # some connections join while events keep coming
                got: list = []
                streams.append(got)
                tasks.append(asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream",
                                                         players[i % 2]["headers"] if i % 2 else {}, got)))
            last = await add(client, game_id, players[i % 2])
        await wait_for(lambda: all(ids(got)[-1:] == [last] for got in streams))
        for got in streams:
            seen = ids(got)
            assert seen == list(range(seen[0], last + 1))  # the snapshot's version, then each one once
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_stream_resumed_with_last_event_id_while_events_flow_misses_nothing(base_url):
    async with httpx.AsyncClient(base_url=base_url, limits=many(), timeout=30) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 500})
        watcher: list = []  # keeps the game's follower alive across the reconnect
        watching = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", {}, watcher))
        first: list = []
        task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", {}, first))
        await wait_for(lambda: ids(first) and ids(watcher))
        sent: list[int] = []

        async def play(commands: int) -> None:
            for _ in range(commands):
                sent.append(await add(client, game_id, players[len(sent) % 2]))

        playing = asyncio.create_task(play(10))
        await wait_for(lambda: len(ids(first)) >= 4)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await playing
        resume_from = ids(first)[-1]
        # events after the last one seen, whatever the machine's speed: some while no stream is open
        # (a fast machine had finished all of them before the first stream was cancelled), then more
        # while the resumed stream catches up
        await play(5)
        second: list = []
        task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream",
                                           {"Last-Event-ID": str(resume_from)}, second))
        await play(5)
        await wait_for(lambda: ids(second)[-1:] == [sent[-1]])
        assert ids(second) == list(range(resume_from + 1, sent[-1] + 1))
        for t in (task, watching):
            t.cancel()
        await asyncio.gather(task, watching, return_exceptions=True)
