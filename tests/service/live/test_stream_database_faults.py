"""A game stream across database faults: a commit whose acknowledgement was lost still reaches the
stream, a follower whose read failed reads again by itself, and a read that fails mid-stream ends the
stream with an error notice the client resumes from."""

from __future__ import annotations

import asyncio

import msgspec
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from service.live.follower import Batch, Follower
from service.store.memory import MemoryStore
from service.store.protocol import StoreUnavailable
from tests.service.live.test_sse import wait_for
from tests.service.live.test_stream_direct import Connection, stream_scope
from tests.service.live.test_stream_follower import Health, Log, drain, versions
from testkit.api import started_game


class LosingStore(MemoryStore):
    """The in-memory store, with two faults of a database that crashes: `lose` commits the next append and
    then raises as if the acknowledgement never came back; `fail_reads` makes that many stream reads raise."""

    def __init__(self) -> None:
        super().__init__()
        self.lose = False
        self.fail_reads = 0

    async def append(self, *args, **kwargs):
        result = await super().append(*args, **kwargs)
        if self.lose:
            self.lose = False
            raise StoreUnavailable("the database went away before acknowledging the commit")
        return result

    async def read_stream(self, stream_id, after=0, upto=None):
        if self.fail_reads:
            self.fail_reads -= 1
            raise StoreUnavailable("the database is restarting")
        return await super().read_stream(stream_id, after, upto)


class Ending(Connection):
    """A peer that goes away once the response has ended, as a client does."""

    async def send(self, message: dict) -> None:
        await super().send(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self.gone.set()


def quiet_app(settings, games, store: MemoryStore):
    # no heartbeats within the test: nothing but events (and the end) is written to the stream
    return create_app(msgspec.structs.replace(settings, database_url=None, heartbeat_seconds=3600), games=games,
                      store=store)


async def command(client, game_id: str, player: dict, key: str):
    return await client.post(f"/v1/games/{game_id}/commands", headers={**player["headers"], "Idempotency-Key": key},
                             json={"command": {"type": "tally.Add", "amount": 1}})


async def test_a_commit_whose_acknowledgement_was_lost_reaches_the_stream_when_the_command_is_resent(settings, games):
    # seed 12 of the fault suite: a game's last command committed just before PostgreSQL crashed, its
    # replica never heard so and announced nothing, the resent command got the stored answer, and the
    # stream (no later event to reveal the gap) never sent those versions
    store = LosingStore()
    app = quiet_app(settings, games, store)
    async with AsyncTestClient(app) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 500})
        viewer = Connection()
        task = asyncio.create_task(app(stream_scope(f"/v1/games/{game_id}/stream"), viewer.receive, viewer.send))
        await wait_for(lambda: viewer.ids(), 60)
        store.lose = True
        first = await command(client, game_id, players[0], "k-1")
        assert first.status_code == 503, first.text
        version = await store.stream_version(game_id)
        assert version > viewer.ids()[-1]  # committed all the same
        again = await command(client, game_id, players[0], "k-1")
        assert again.status_code == 200 and again.json()["version"] == version, again.text
        await wait_for(lambda: viewer.ids()[-1] == version, 60)
        assert viewer.ids() == list(range(viewer.ids()[0], version + 1))
        viewer.gone.set()
        await asyncio.gather(task, return_exceptions=True)


async def test_a_follower_whose_read_failed_reads_again_without_waiting_for_a_push_or_a_heartbeat():
    log = Log(upto=3)
    failing = {"reads": 1}

    async def read(stream_id, after=0, upto=None):
        if failing["reads"]:
            failing["reads"] -= 1
            raise StoreUnavailable("the database is restarting")
        return await log.read(stream_id, after, upto)

    follower = Follower("g1", read, Health(), heartbeat=3600, poll=0.05)
    inbox = follower.join()
    assert follower.seen(3) is None
    log.add(2)
    follower.nudge()  # told to read (Redis came back, say); the read fails, and nothing else comes
    await wait_for(lambda: versions(list(inbox.items)) == [4, 5], 30)
    assert all(isinstance(item, Batch) for item in drain(inbox))
    follower.leave(inbox)


async def test_a_stream_whose_read_fails_ends_with_the_error_notice_and_resumes_with_last_event_id(settings, games):
    store = LosingStore()
    app = quiet_app(settings, games, store)
    async with AsyncTestClient(app) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 500})
        sent = [(await command(client, game_id, players[i % 2], f"k-{i}")).json()["version"] for i in range(4)]
        path = f"/v1/games/{game_id}/stream"
        broken = Ending()
        store.fail_reads = 1  # the resumed stream's read of what it missed
        await asyncio.wait_for(app(stream_scope(path, {"last-event-id": str(sent[0])}), broken.receive, broken.send),
                               60)  # the response ends by itself, and nothing is raised
        assert broken.body.endswith(b": error: the game could not be read, reconnect with Last-Event-ID\n\n")
        assert broken.ids() == []
        resumed = Connection()
        task = asyncio.create_task(app(stream_scope(path, {"last-event-id": str(sent[0])}), resumed.receive,
                                       resumed.send))
        await wait_for(lambda: resumed.ids()[-1:] == [sent[-1]], 60)
        assert resumed.ids() == list(range(sent[0] + 1, sent[-1] + 1))
        resumed.gone.set()
        await asyncio.gather(task, return_exceptions=True)
