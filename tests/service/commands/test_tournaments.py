"""Tournaments over HTTP on PostgreSQL: rounds created and advanced by themselves to standings the audit
re-derives and the list read model shows, the live stream, and a round's pairing and games written together
or not at all. (On the memory store: test_tournament_service.py.)"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest
from litestar.testing import AsyncTestClient

import domain.tournament as T
from projections.runner import lag
from projections.tournaments import Tournaments as TournamentList
from service.edge.app import create_app
from service.store import bulk
from service.live.fanout import Broker
from service.commands.competition import verify_competition
from service.commands.tournaments import Tournaments
from service.commands.verify import parse_ndjson, verify_log
from testkit.api import auth, found
from testkit.readmodels import assert_equal_to_rebuild
from tests.service.commands.test_tournament_service import play_round, player, started_cup


def with_tournaments(settings: Any, games: Any) -> Any:
    """The app, which starts the tournament service, its result runner and the timeout worker itself."""
    return create_app(settings, games=games)


@pytest.fixture
async def api(settings, games) -> AsyncIterator[AsyncTestClient]:
    async with AsyncTestClient(with_tournaments(settings, games), timeout=30) as c:
        yield c


async def test_a_swiss_of_tally_runs_to_final_standings_and_every_game_and_pairing_verifies(api, games):
    organiser = await player(api, "Org")
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "name": "Cup", "options": {"target": 9}, "seats": 2, "rounds": 2})
    assert r.status_code == 201, r.text
    tid = r.json()["tournament_id"]
    players = {}
    for i in range(5):
        p = await player(api, f"P{i}")
        players[p["id"]] = p
        r = await api.post(f"/v1/tournaments/{tid}/register", headers=auth(p), json={})
        assert r.status_code == 200, r.text
    some = next(iter(players.values()))
    assert (await api.post(f"/v1/tournaments/{tid}/start", headers=auth(some))).status_code == 403
    bogus = await api.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser), json={"round": 2})
    assert bogus.status_code == 400 and "round" in bogus.json()["detail"]  # it takes no body
    r = await api.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser))
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["status"] == "running" and len(view["rounds"][0]["tables"]) == 2
    assert len(view["rounds"][0]["byes"]) == 1
    for round_ in (1, 2):
        await play_round(api, view, players)

        async def advanced() -> Any:
            v = (await api.get(f"/v1/tournaments/{tid}")).json()
            return v if v["status"] == "finished" or v["round"] > round_ else None

        view = await found(advanced)
    assert view["status"] == "finished"
    assert len(view["standings"]) == 5

    async def listed_finished() -> bool:  # the list is a read model: it follows the log within moments
        page = (await api.get("/v1/tournaments", params={"status": "finished", "kind": "tally"})).json()
        return tid in [t["tournament_id"] for t in page["items"]]

    await found(listed_finished)
    events = (await api.get(f"/v1/tournaments/{tid}/events")).json()["events"]
    assert events[0]["type"] == "tournament.TournamentCreated" and events[-1]["type"] == "tournament.SeedRevealed"
    stream = await api.get(f"/v1/tournaments/{tid}/stream")  # ended: the snapshot, then the stream closes
    first_frame = stream.text.split("\n\n")[0].split("\n")
    assert "event: snapshot" in first_frame and f"id: {events[-1]['version']}" in first_frame
    assert verify_competition([(e["type"], e["data"]) for e in events]).ok
    for round_view in view["rounds"]:
        for table in round_view["tables"]:
            log = (await api.get(f"/v1/games/{table['game_id']}/export")).content
            report = verify_log(parse_ndjson(log), games)
            assert report.ok, report.problems


# -- the service side without HTTP: crash recovery and racing runners ------------------------------


@pytest.fixture
async def service(pg_dsn):
    from service.commands.players import Players
    from service.commands.repository import GameRepository
    from service.store.postgres import PostgresStore
    from testkit.tally import TALLY

    store = await PostgresStore.connect(pg_dsn, 8)
    await store.ensure_tables([])
    tournaments_ = Tournaments(store, GameRepository(store, {"tally": TALLY}), Broker())
    yield tournaments_, Players(store)
    await store.close()


async def test_a_pairing_and_its_games_commit_together_or_not_at_all(service, monkeypatch):
    tournaments_, players = service
    tid, viewers = await started_cup(tournaments_, players)
    organiser = next(iter(viewers.values()))
    version = (await tournaments_.load(tid)).state.version

    async def crash(*_):
        raise ConnectionError("the process died while writing the round's games")

    real = bulk.create_games
    monkeypatch.setattr(bulk, "create_games", crash)
    with pytest.raises(ConnectionError):
        await tournaments_.act(organiser, tid, T.Start())
    stored = await tournaments_.store.read_stream(Tournaments.stream_of(tid))
    assert stored[-1].version == version and all(e.type != "tournament.RoundPaired" for e in stored)
    monkeypatch.setattr(bulk, "create_games", real)
    tournaments_.repository.clear()  # (as a fresh process would)
    state = await tournaments_.act(organiser, tid, T.Start())
    tables = state.rounds[0].tables
    assert all([await tournaments_.store.stream_version(t.game_id) > 0 for t in tables])


# -- the list read model and the live stream --------------------------------------------------------


async def test_the_list_filters_by_status_and_kind_and_pages_newest_first_by_cursor(api, settings):
    organiser = await player(api, "Org")
    made = []
    for i in range(5):
        r = await api.post("/v1/tournaments", headers=auth(organiser), json={
            "kind": "tally", "name": f"Cup {i}", "options": {"target": 9}, "seats": 2, "rounds": 1})
        made.append(r.json()["tournament_id"])
    entrants = [await player(api, f"E{i}") for i in range(2)]
    for p in entrants:
        await api.post(f"/v1/tournaments/{made[0]}/register", headers=auth(p), json={})
    assert (await api.post(f"/v1/tournaments/{made[0]}/start", headers=auth(organiser))).status_code == 200

    async def all_pages(**params: Any) -> list[dict[str, Any]]:
        items, cursor = [], None
        while True:
            page = (await api.get("/v1/tournaments", params={**params, **({"cursor": cursor} if cursor else {})}))
            assert page.status_code == 200, page.text
            items += page.json()["items"]
            cursor = page.json()["next_cursor"]
            if cursor is None:
                return items

    async def projected() -> bool:
        running = (await api.get("/v1/tournaments", params={"status": "running", "kind": "tally"})).json()["items"]
        return any(t["tournament_id"] == made[0] for t in running)

    await found(projected)
    newest = [t["tournament_id"] for t in await all_pages(kind="tally", limit=2) if t["tournament_id"] in made]
    assert newest == made[::-1]  # every one once, newest first, across pages of two
    waiting = await all_pages(status="registration", kind="tally", limit=2)
    assert {t["tournament_id"] for t in waiting} >= set(made[1:]) and made[0] not in {t["tournament_id"]
                                                                                     for t in waiting}
    first = next(t for t in await all_pages(status="running", kind="tally") if t["tournament_id"] == made[0])
    assert (first["name"], first["players"], first["round"], first["organiser"]) == ("Cup 0", 2, 1, organiser["id"])
    assert not (await api.get("/v1/tournaments", params={"kind": "nope"})).json()["items"]
    async with asyncpg.create_pool(settings.database_url, min_size=1, max_size=2) as pool:

        async def caught_up() -> bool:
            return (await lag(pool, ["tournaments"]))["tournaments"]["events"] == 0

        await found(caught_up)
        await assert_equal_to_rebuild(pool, [TournamentList()])  # the live rows are what a replay of the log gives
    r = await api.get("/v1/tournaments", params={"cursor": "not-a-cursor"})
    assert r.status_code == 422 and r.json()["code"] == "bad_cursor"
    assert (await api.get("/v1/tournaments", params={"status": "paused"})).status_code == 400


async def test_the_stream_delivers_registrations_live_and_a_reconnect_gets_exactly_what_it_missed(settings, games):
    from testkit.live import serving, sse_events

    async def collect(http, tid: str, headers: dict[str, str], out: list[dict[str, str]]) -> None:
        async with http.stream("GET", f"/v1/tournaments/{tid}/stream", headers=headers) as resp:
            assert resp.status_code == 200, await resp.aread()
            async for message in sse_events(resp):
                out.append(message)

    def ids(messages: list[dict[str, str]]) -> list[int]:
        return [int(m["id"]) for m in messages if "id" in m and m.get("event") != "snapshot"]

    async def register(http, tid: str, name: str) -> int:
        r = await http.post("/v1/players", json={"name": name})
        who = {"Authorization": f"Bearer {r.json()['token']}"}
        r = await http.post(f"/v1/tournaments/{tid}/register", headers=who, json={})
        assert r.status_code == 200, r.text
        return (await http.get(f"/v1/tournaments/{tid}/events")).json()["version"]

    app = with_tournaments(settings, games)
    with serving(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            r = await http.post("/v1/players", json={"name": "Org"})
            org = {"Authorization": f"Bearer {r.json()['token']}"}
            r = await http.post("/v1/tournaments", headers=org, json={
                "kind": "tally", "options": {"target": 9}, "seats": 2, "rounds": 1})
            tid = r.json()["tournament_id"]
            first: list[dict[str, str]] = []
            task = asyncio.create_task(collect(http, tid, {}, first))
            await found(lambda: _async(any(m.get("event") == "snapshot" for m in first)))
            live = [await register(http, tid, f"A{i}") for i in range(2)]
            await found(lambda: _async(ids(first) == live))
            follower = app.state.services.broker.followers[Tournaments.stream_of(tid)]
            assert follower.reads == 0  # the appends' pushes woke it: no polling, no read of the store
            task.cancel()
            missed = [await register(http, tid, f"B{i}") for i in range(3)]
            second: list[dict[str, str]] = []
            task = asyncio.create_task(collect(http, tid, {"Last-Event-ID": str(live[-1])}, second))
            await found(lambda: _async(ids(second) == missed))
            assert (await http.post(f"/v1/tournaments/{tid}/start", headers=org)).status_code == 200
            started_at = (await http.get(f"/v1/tournaments/{tid}/events")).json()["version"]
            await found(lambda: _async(ids(second) and ids(second)[-1] == started_at))
            task.cancel()
            assert ids(second) == list(range(missed[0], started_at + 1))  # no gap, no duplicate
            assert not any(m.get("event") == "snapshot" for m in second)
            paired = next(json.loads(m["data"]) for m in second if m.get("event") == "tournament.RoundPaired")
            assert all(t["seed"] is None for t in paired["data"]["tables"])  # seeds stay secret while it runs
            r = await http.get(f"/v1/tournaments/{tid}/stream", headers={"Last-Event-ID": str(started_at + 1)})
            assert r.status_code == 400


async def _async(value: Any) -> Any:
    return value
