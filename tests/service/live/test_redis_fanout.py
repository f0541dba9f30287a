"""Fan-out through Redis: across replicas, and surviving a Redis outage (Redis is only a wake-up path)."""

from __future__ import annotations

import asyncio
import subprocess
import time

import httpx
import msgspec
import pytest
import redis

from service.edge.app import create_app
from tests.service.live.test_sse import add, collect, wait_for
from testkit.api import started_game
from testkit.live import free_port, serving



class RedisServer:
    """A private redis-server on a spare port that a test may stop and restart."""

    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
        for _ in range(100):
            try:
                redis.Redis(port=self.port).ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


@pytest.fixture
def redis_server():
    server = RedisServer()
    server.start()
    yield server
    server.stop()


def with_redis(settings, url):
    return msgspec.structs.replace(settings, redis_url=url)


async def test_a_command_on_one_replica_reaches_a_stream_on_another(settings, games, redis_server):
    cfg = with_redis(settings, redis_server.url)
    with serving(create_app(cfg, games=games)) as url_a, serving(create_app(cfg, games=games)) as url_b:
        async with httpx.AsyncClient(base_url=url_a) as a, httpx.AsyncClient(base_url=url_b) as b:
            game_id, players = await started_game(a, "tally", 2, {"target": 100})
            got: list = []
            task = asyncio.create_task(collect(b, f"/v1/games/{game_id}/stream", {}, got))
            await wait_for(lambda: any(m.get("event") == "snapshot" for m in got))
            version = await add(a, game_id, players[0])
            await wait_for(lambda: any(m.get("id") == str(version) for m in got), timeout=20)  # through Redis: nothing else would wake the stream
            task.cancel()


async def test_commands_succeed_and_streams_catch_up_while_redis_is_down(settings, games, redis_server):
    cfg = with_redis(settings, redis_server.url)
    with serving(create_app(cfg, games=games)) as url:
        async with httpx.AsyncClient(base_url=url) as client:
            game_id, players = await started_game(client, "tally", 2, {"target": 500})
            got: list = []
            task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", {}, got))
            await wait_for(lambda: any(m.get("event") == "snapshot" for m in got))
            before = await add(client, game_id, players[0])
            await wait_for(lambda: any(m.get("id") == str(before) for m in got))
            redis_server.stop()
            during = [await add(client, game_id, players[(1 + i) % 2]) for i in range(3)]
            ready = (await client.get("/readyz")).json()
            assert ready["status"] == "degraded" and ready["checks"]["redis"].startswith("down")
            await wait_for(lambda: any(m.get("id") == str(during[-1]) for m in got), timeout=10)
            redis_server.start()
            after = await add(client, game_id, players[0])
            await wait_for(lambda: any(m.get("id") == str(after) for m in got), timeout=15)
            task.cancel()
            ids = [int(m["id"]) for m in got if "id" in m and m.get("event") != "snapshot"]
            assert ids == [before, *during, after]


async def test_a_personal_stream_on_another_replica_hears_every_turn_even_while_redis_is_down(
        settings, games, redis_server):
    from tests.service.live.test_personal_stream import has

    cfg = with_redis(settings, redis_server.url)
    with serving(create_app(cfg, games=games)) as url_a, serving(create_app(cfg, games=games)) as url_b:
        async with httpx.AsyncClient(base_url=url_a) as a, httpx.AsyncClient(base_url=url_b) as b:
            game_id, players = await started_game(a, "tally", 2, {"target": 100})
            got: list = []
            task = asyncio.create_task(collect(b, "/v1/players/me/stream", players[1]["headers"], got))
            await wait_for(lambda: has(got, "game.state", game_id))
            first = await add(a, game_id, players[0])
            await wait_for(lambda: has(got, "game.your_turn", game_id, version=first))
            await add(a, game_id, players[1])
            redis_server.stop()
            during = await add(a, game_id, players[0])
            await wait_for(lambda: has(got, "game.your_turn", game_id, version=during), timeout=15)
            task.cancel()


async def test_a_turn_whose_pushes_were_lost_is_announced_when_the_hub_polls(settings, games, redis_server):
    """Replica B hears nothing of what replica A does (A has no Redis). Between two polls of B's hub the
    seat acted and came to act again: its first and last states agree (seat 1 to act), yet it is a new
    turn, and the player must hear of it."""
    from tests.service.live.test_personal_stream import has

    with serving(create_app(settings, games=games)) as url_a, \
            serving(create_app(with_redis(settings, redis_server.url), games=games)) as url_b:
        async with httpx.AsyncClient(base_url=url_a) as a, httpx.AsyncClient(base_url=url_b) as b:
            game_id, players = await started_game(b, "tally", 2, {"target": 100})
            got: list = []
            task = asyncio.create_task(collect(b, "/v1/players/me/stream", players[1]["headers"], got))
            await wait_for(lambda: has(got, "game.state", game_id))
            first = await add(b, game_id, players[0])
            await wait_for(lambda: has(got, "game.your_turn", game_id, version=first))
            await add(a, game_id, players[1])  # unheard by B
            missed = await add(a, game_id, players[0])  # unheard by B: seat 1 to act again
            redis_server.stop()  # B polls PostgreSQL from now on
            await wait_for(lambda: has(got, "game.your_turn", game_id, version=missed), timeout=15)
            task.cancel()
