"""The arena's live stream over HTTP on PostgreSQL: a snapshot, then events and standings. (The arena itself
on the memory store: test_arenas.py.)"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from service.edge.app import create_app
from testkit.api import auth, found
from tests.service.commands.test_arenas import player


@pytest.mark.xdist_group("live")
async def test_the_arena_stream_sends_a_snapshot_then_events_and_standings(settings, games):
    from testkit.live import serving, sse_events

    async def collect(http: httpx.AsyncClient, arena_id: str, out: list[dict[str, str]]) -> None:
        async with http.stream("GET", f"/v1/arenas/{arena_id}/stream") as resp:
            assert resp.status_code == 200, await resp.aread()
            async for message in sse_events(resp):
                out.append(message)

    async def seen(messages: list[dict[str, str]], event: str) -> bool:
        return any(m.get("event") == event for m in messages)

    with serving(create_app(settings, games=games)) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            org, ann, ben = [await player(http, n) for n in ("Org", "Ann", "Ben")]
            r = await http.post("/v1/arenas", headers=auth(org), json={"kind": "tally", "minutes": 5})
            arena_id = r.json()["arena_id"]
            frames: list[dict[str, str]] = []
            task = asyncio.create_task(collect(http, arena_id, frames))
            await found(lambda: seen(frames, "snapshot"))
            for p in (ann, ben):
                joined = await http.post(f"/v1/arenas/{arena_id}/join", headers=auth(p), json={})
                assert joined.status_code == 200, joined.text
            await found(lambda: seen(frames, "arena.PlayersPaired"))
            await found(lambda: seen(frames, "standings"))
            task.cancel()
            paired = next(json.loads(m["data"]) for m in frames if m.get("event") == "arena.PlayersPaired")
            assert all(g["seed"] is None for g in paired["data"]["games"])  # seeds stay secret while it runs
            standings = [json.loads(m["data"]) for m in frames if m.get("event") == "standings"][-1]
            assert {s["player_id"] for s in standings["standings"]} == {ann["id"], ben["id"]}
            listed = (await http.get("/v1/arenas")).json()["items"]
            assert any(a["arena_id"] == arena_id for a in listed)
