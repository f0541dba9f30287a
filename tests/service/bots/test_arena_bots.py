"""Bots in an arena: its organiser enters them (anyone else is refused before any bot exists), a bot worker
plays every game the arena pairs them into until the arena ends, and the arena's log still verifies.

An arena lasts whole minutes (one at least); the test does not wait one out. The arena worker reads the time
through `service.workers.arenas.now_ms` (the server runs in this process, `testkit.live.serving`), and once
the bots have finished games the test moves that clock past the arena's end: the worker closes the arena
on its next tick, the games still running finish and count, and the last one ends it, as at the real end.
"""

from __future__ import annotations

import asyncio

import httpx
import msgspec
import pytest

import domain.tournament.arena as A
import service.workers.arenas as arena_worker
from service.bots.runner import BotWorker
from service.edge.app import create_app
from tests.conftest import fresh_database
from tests.service.commands.test_accounts import unique
from testkit.api import player
from testkit.live import serving

ADMIN = "admin-secret"  # the tests' settings
ARENA = {"kind": "tally", "name": "Bot arena", "seats": 2, "minutes": 1, "berserk": False, "options": {"target": 6}}


@pytest.fixture
def base(settings, games):
    """A server on a database of its own, so bots other tests left unfinished never fill this worker's lease."""
    with fresh_database("stela_arena_bots") as dsn:
        with serving(create_app(msgspec.structs.replace(settings, database_url=dsn), games=games)) as url:
            yield url


async def test_a_stranger_cannot_add_bots_to_an_arena_and_leaves_no_bot_behind(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        organiser, stranger = await player(http, unique("Org")), await player(http, unique())
        made = await http.post("/v1/arenas", json=ARENA, headers=organiser["headers"])
        assert made.status_code == 201, made.text
        aid = made.json()["arena_id"]
        refused = await http.post(f"/v1/arenas/{aid}/bots", json={"count": 3}, headers=stranger["headers"])
        assert refused.status_code == 403 and "organiser" in refused.json()["detail"], refused.text
        assert await BotWorker(http, ADMIN, "orphans", lease_seconds=30).step() == []  # no bot left behind
        assert (await http.get(f"/v1/arenas/{aid}")).json()["players"] == 0
        missing = await http.post("/v1/arenas/3b9d6f1e-8c2a-4e7b-a1d0-5f6e7a8b9c0d/bots", json={"count": 1},
                                  headers=organiser["headers"])
        assert missing.status_code == 404
        assert await BotWorker(http, ADMIN, "orphans", lease_seconds=30).step() == []


async def test_bots_the_organiser_adds_play_the_arena_until_it_ends(base, monkeypatch):
    ahead = [0]  # ms the arena worker's clock runs ahead of the real one
    real = arena_worker.now_ms
    monkeypatch.setattr(arena_worker, "now_ms", lambda: real() + ahead[0])
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        organiser = await player(http, unique("Org"))
        made = await http.post("/v1/arenas", json=ARENA, headers=organiser["headers"])
        aid = made.json()["arena_id"]
        added = await http.post(f"/v1/arenas/{aid}/bots", json={"count": 3, "strategy": "greedy", "strength": 4},
                                headers=organiser["headers"])
        assert added.status_code == 200, added.text
        names = [s["name"] for s in added.json()["standings"]]
        assert len(set(names)) == 3 and all(n.startswith("Greedy bot ") for n in names), names
        worker = BotWorker(http, ADMIN, "arena", lease_seconds=30, poll=1)
        stop = asyncio.Event()
        running = asyncio.create_task(worker.run(stop))
        deadline = asyncio.get_running_loop().time() + 240
        while (view := (await http.get(f"/v1/arenas/{aid}")).json())["status"] != "finished":
            assert asyncio.get_running_loop().time() < deadline, "the arena did not finish"
            if not ahead[0] and sum(s["games"] for s in view["standings"]) >= 4:  # two games played out
                ahead[0] = 60_000 * ARENA["minutes"]  # the arena's time is up: the worker closes it
            await asyncio.sleep(0.5)
        while len(worker.played) < 3:  # each bot sees the end on its next look and says it is done
            assert asyncio.get_running_loop().time() < deadline, f"bots done: {worker.played}"
            await asyncio.sleep(0.5)
        stop.set()
        await running
        assert sum(s["games"] for s in view["standings"]) >= 2  # games the bots played to the end, not aborted
        log = (await http.get(f"/v1/arenas/{aid}/events")).json()["events"]
        events = [A.decode_event(e["type"], e["data"]) for e in log]
        assert [e.by for e in events if isinstance(e, A.PlayerJoined)] == [made.json()["organiser"]] * 3
        assert A.verify(events).ok
        assert sorted(worker.played) == sorted(s["player_id"] for s in view["standings"])
        assert await BotWorker(http, ADMIN, "later", lease_seconds=30).step() == []  # done: leased no more
