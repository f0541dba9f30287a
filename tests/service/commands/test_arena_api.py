"""The arena over HTTP on PostgreSQL: its live stream (a snapshot, then events and standings), and a log recorded
before the shared facts read as one set of events. (The arena itself on the memory store: test_arenas.py.)"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import httpx

import domain.tournament.arena as A
from service.commands.arenas import Arenas
from service.commands.competition import verify_competition
from service.edge.app import create_app
from service.store.postgres import PostgresStore
from service.store.protocol import Metadata, NewEvent
from testkit.api import auth, found
from tests.service.commands.test_arenas import player

LOGS = Path(__file__).parents[2] / "domain" / "tournament" / "logs"  # competition logs recorded before issue 44


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


async def test_an_arena_recorded_before_the_shared_facts_reads_as_one_set_of_events(pg_client, settings):
    """An arena log of main 6ab2b7d (its pause, leave, end and seed as `arena.*` tags) appended as stored: the
    store keeps its tags, its `/events` and `/stream` show the shared `tournament.*` tags, and it verifies."""
    api = pg_client
    recorded = json.loads((LOGS / "arena.json").read_text())["events"]
    arena_id = str(uuid.uuid4())  # a stream of its own per session; the log keeps the id it was recorded with
    store = await PostgresStore.connect(settings.database_url, 1)
    try:
        await store.append(Arenas.stream_of(arena_id), 0, [NewEvent(e["type"], e["data"]) for e in recorded],
                           Metadata(actor="organiser"))
        stored = await store.read_stream(Arenas.stream_of(arena_id))
    finally:
        await store.close()
    assert [e.type for e in stored] == [e["type"] for e in recorded]  # the stored bytes are never rewritten
    shown = (await api.get(f"/v1/arenas/{arena_id}/events")).json()["events"]
    renamed = [A.RENAMED.get(e["type"], e["type"]) for e in recorded]
    assert [e["type"] for e in shown] == renamed and "tournament.PlayerWithdrew" in renamed
    assert [e["data"] for e in shown] == [e["data"] for e in recorded]
    report = verify_competition([(e["type"], e["data"]) for e in shown])
    assert report.ok and report.finished, report.problems
    streamed = await api.get(f"/v1/arenas/{arena_id}/stream", headers={"Last-Event-ID": "0"})
    names = [line.removeprefix("event: ") for line in streamed.text.splitlines() if line.startswith("event: ")]
    assert [n for n in names if n != "standings"] == renamed
