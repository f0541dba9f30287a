"""Server-Sent Events: snapshot first, live events, resume without gap or duplicate, heartbeats."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from testkit.api import started_game
from testkit.live import sse_events



@pytest.fixture
def base_url(server):
    """The worker's shared server (tests/conftest.py)."""
    return server


async def collect(client: httpx.AsyncClient, url: str, headers: dict, out: list, stop_after: int | None = None):
    async with client.stream("GET", url, headers=headers, timeout=30) as resp:
        assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/event-stream")
        async for message in sse_events(resp):
            out.append(message)
            if stop_after is not None and len([m for m in out if "id" in m]) >= stop_after:
                return


async def add(client, game_id, player, amount=1):
    resp = await client.post(f"/v1/games/{game_id}/commands", headers=player["headers"],
                             json={"command": {"type": "tally.Add", "amount": amount}})
    assert resp.status_code == 200, resp.text
    return resp.json()["version"]


async def wait_for(predicate, timeout=10.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_stream_sends_a_snapshot_then_each_event_with_its_version(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 100})
        got: list = []
        task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", players[1]["headers"], got))
        await wait_for(lambda: any(m.get("event") == "snapshot" for m in got))
        snapshot = next(m for m in got if m.get("event") == "snapshot")
        v1 = await add(client, game_id, players[0])
        v2 = await add(client, game_id, players[1])
        await wait_for(lambda: len([m for m in got if m.get("event") == "tally.Added"]) == 2)
        task.cancel()
        ids = [int(m["id"]) for m in got if "id" in m]
        assert ids == [int(snapshot["id"]), v1, v2]
        assert json.loads(snapshot["data"])["your_seat"] == 1
        added = [json.loads(m["data"]) for m in got if m.get("event") == "tally.Added"]
        assert [a["version"] for a in added] == [v1, v2] and added[0]["data"]["seat"] == 0


async def test_reconnecting_with_last_event_id_resumes_without_gap_or_duplicate(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 500})
        first: list = []
        task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", {}, first))
        await wait_for(lambda: any(m.get("event") == "snapshot" for m in first))
        for i in range(3):
            await add(client, game_id, players[i % 2])
        await wait_for(lambda: len([m for m in first if "id" in m]) == 4)
        task.cancel()  # forced disconnect
        last_id = [m for m in first if "id" in m][-1]["id"]
        missed = [await add(client, game_id, players[(3 + i) % 2]) for i in range(4)]
        second: list = []
        task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", {"Last-Event-ID": last_id},
                                           second))
        await wait_for(lambda: len([m for m in second if "id" in m]) == 4)
        live = [await add(client, game_id, players[(7 + i) % 2]) for i in range(2)]
        await wait_for(lambda: len([m for m in second if "id" in m]) == 6)
        task.cancel()
        ids = [int(m["id"]) for m in second if "id" in m]
        assert ids == missed + live
        assert not any(m.get("event") == "snapshot" for m in second)


async def test_idle_streams_get_heartbeat_comments(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        game_id, _ = await started_game(client, "tally", 2)
        got: list = []
        task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", {}, got))
        await wait_for(lambda: any(m.get("comment") == "heartbeat" for m in got), timeout=5)
        task.cancel()


async def test_stream_of_an_unknown_game_is_a_404_problem(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        resp = await client.get("/v1/games/nope/stream")
        assert resp.status_code == 404 and resp.json()["code"] == "game_not_found"
        game_id, _ = await started_game(client, "tally", 2)
        for bad in ("x", "-1", "999"):
            resp = await client.get(f"/v1/games/{game_id}/stream", headers={"Last-Event-ID": bad})
            assert resp.status_code == 400 and resp.json()["code"] == "bad_last_event_id"


async def test_a_viewer_who_gives_up_a_seat_stops_seeing_as_that_seat(base_url):
    """Ann sits at seat 1 and follows the game, leaves before the start, and Cid takes seat 1: the secret
    dealt to seat 1 at the start is Cid's, and neither Ann's game stream nor her multiplexed one shows it."""
    from tests.service.commands.test_hidden_information import dealt_in, secrets_of
    from testkit.api import player

    async with httpx.AsyncClient(base_url=base_url) as client:
        host, ann, cid = await player(client, "Host"), await player(client, "Ann"), await player(client, "Cid")
        game_id = (await client.post("/v1/games", headers=host["headers"], json={
            "kind": "tally", "seats": 2, "options": {"target": 100}})).json()["id"]
        assert (await client.post(f"/v1/games/{game_id}/join", headers=ann["headers"], json={})).status_code == 200
        single, many = [], []
        tasks = [asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", ann["headers"], single)),
                 asyncio.create_task(collect(client, f"/v1/stream?games={game_id}", ann["headers"], many))]
        await wait_for(lambda: any(m.get("event") == "snapshot" for m in single) and any("data" in m for m in many))
        assert (await client.post(f"/v1/games/{game_id}/leave", headers=ann["headers"])).status_code == 200
        assert (await client.post(f"/v1/games/{game_id}/join", headers=cid["headers"], json={})).status_code == 200
        assert (await client.post(f"/v1/games/{game_id}/start", headers=host["headers"])).status_code == 200
        await wait_for(lambda: any(m.get("event") == "tally.SecretsDealt" for m in single) and
                       any("tally.SecretsDealt" in m.get("data", "") for m in many))
        for task in tasks:
            task.cancel()
        dealt, _ = await secrets_of(client, game_id)
        for message in single + many:
            for secrets in dealt_in(message.get("data") or "null"):
                shown = secrets if isinstance(secrets, list) else [secrets]
                assert all(v is None for v in shown), f"Ann saw {shown} (dealt {dealt})"
