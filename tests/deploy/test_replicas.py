"""Several `stela serve` processes behave as one: cross-replica streams, failover, graceful shutdown."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.conftest import REDIS_URL
from tests.service.live.test_sse import collect, wait_for
from testkit.api import started_game
from testkit.processes import Replica, replicas

pytestmark = pytest.mark.xdist_group("live")


async def send_legal(client: httpx.AsyncClient, game_id: str, players: list[dict]) -> int:
    """Send the first legal command of a seat that must act; returns the new version."""
    game = (await client.get(f"/v1/games/{game_id}")).json()
    seat = game["to_act"][0]
    legal = (await client.get(f"/v1/games/{game_id}/legal", headers=players[seat]["headers"])).json()
    resp = await client.post(f"/v1/games/{game_id}/commands", headers=players[seat]["headers"],
                             json={"command": legal["commands"][0]})
    assert resp.status_code == 200, resp.text
    return resp.json()["version"]


def ids(messages: list[dict]) -> list[int]:
    return [int(m["id"]) for m in messages if "id" in m and m.get("event") != "snapshot"]


async def test_a_command_on_replica_a_reaches_a_stream_on_replica_b_and_failover_loses_nothing(pg_dsn):
    with replicas(pg_dsn, 2, REDIS_URL) as (a, b):
        async with httpx.AsyncClient(base_url=a.url, timeout=30) as ca, \
                httpx.AsyncClient(base_url=b.url, timeout=30) as cb:
            game_id, players = await started_game(ca, "coatl", 2)
            on_b: list = []
            task = asyncio.create_task(collect(cb, f"/v1/games/{game_id}/stream", {}, on_b))
            await wait_for(lambda: any(m.get("event") == "snapshot" for m in on_b))
            version = await send_legal(ca, game_id, players)
            await wait_for(lambda: version in ids(on_b), timeout=20)  # through Redis: nothing else would wake the stream
            b.stop(kill=True)
            await asyncio.gather(task, return_exceptions=True)
            last_seen = max(ids(on_b))
            missed = [await send_legal(ca, game_id, players) for _ in range(3)]
            resumed: list = []
            task = asyncio.create_task(collect(ca, f"/v1/games/{game_id}/stream",
                                               {"Last-Event-ID": str(last_seen)}, resumed))
            await wait_for(lambda: missed[-1] in ids(resumed), timeout=10)
            task.cancel()
            got = ids(resumed)
            assert got == sorted(set(got)) and got[0] == last_seen + 1 and got[-1] == missed[-1]


async def test_sigterm_ends_open_streams_with_a_retry_hint_and_exits_cleanly(pg_dsn):
    replica = Replica(pg_dsn, None)
    replica.wait_ready()
    try:
        async with httpx.AsyncClient(base_url=replica.url, timeout=30) as client:
            game_id, _ = await started_game(client, "coatl", 2)
            lines: list[str] = []

            async def read() -> None:
                async with client.stream("GET", f"/v1/games/{game_id}/stream") as resp:
                    async for line in resp.aiter_lines():
                        lines.append(line)

            task = asyncio.create_task(read())
            await wait_for(lambda: any(line.startswith("event: snapshot") for line in lines))
            replica.proc.terminate()
            await asyncio.wait_for(asyncio.gather(task, return_exceptions=True), 60)  # ended by the stop, not a timeout
            assert any(line.startswith("retry:") for line in lines[1:])
            # uvicorn re-raises the captured SIGTERM once shutdown is complete
            assert await asyncio.to_thread(replica.proc.wait, 15) in (0, -15)
    finally:
        replica.stop(kill=True)
