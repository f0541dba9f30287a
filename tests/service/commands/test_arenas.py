"""Arenas over HTTP on the memory store, through the same Services as on PostgreSQL: players join and are
paired by themselves, results score with streaks, berserk halves a clock in the game (once, whichever
replica asks), pause and leave, the end at the fixed time, and the audit. (The live stream on PostgreSQL:
test_arena_api.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from domain.kernel import RuleViolation
from service.commands.arenas import Arenas
from service.commands.competition import verify_competition
from service.commands.repository import GameRepository
from service.live.fanout import Broker
from service.commands.verify import parse_ndjson, verify_log
from service.store.protocol import ConcurrencyError
from service.workers import arenas as worker_module
from testkit.api import auth, found

TC = {"total_seconds": 600}


@pytest.fixture
def api(client):
    return client


async def player(api: Any, name: str) -> dict[str, str]:
    r = await api.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    return {"id": r.json()["id"], "auth": f"Bearer {r.json()['token']}", "name": name}


async def arena(api: Any, arena_id: str) -> dict[str, Any]:
    r = await api.get(f"/v1/arenas/{arena_id}")
    assert r.status_code == 200, r.text
    return r.json()


async def finish(api: Any, game_id: str, players: dict[str, dict[str, str]], winner: str | None = None):
    """Play a tally game to its end (`winner`, when given, brings the counter to the target)."""
    while True:
        game = (await api.get(f"/v1/games/{game_id}")).json()
        if game["status"] != "active":
            return game
        seat = game["to_act"][0]
        who = players[game["seats"][seat]["player_id"]]
        total, target = game["view"]["total"], game["view"]["target"]
        amount = 1 if winner is not None and who["id"] != winner and target - total <= 4 else 3
        r = await api.post(f"/v1/games/{game_id}/commands", headers=auth(who),
                           json={"command": {"type": "tally.Add", "amount": min(amount, max(1, target - total))}})
        assert r.status_code in (200, 409), r.text


async def test_create_refuses_what_cannot_run(api):
    org = await player(api, "Org")
    bad = [({"kind": "nope"}, 404), ({"kind": "tally", "seats": 7}, 400),
           ({"kind": "tally", "berserk": True}, 422), ({"kind": "tally", "surprise": 1}, 400),
           ({"kind": "tally", "options": {"surprise": 1}}, 422), ({"kind": "tally", "time_control": {"x": 1}}, 400)]
    for body, status in bad:
        r = await api.post("/v1/arenas", headers=auth(org), json=body)
        assert r.status_code == status, (body, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
    assert (await api.post("/v1/arenas", json={"kind": "tally"})).status_code == 401
    assert (await api.get("/v1/arenas/6f1c2e3d-0000-4000-8000-000000000000")).status_code == 404


async def test_an_arena_pairs_scores_berserks_pauses_ends_at_its_time_and_verifies(api, memory_settings, games,
                                                                                   monkeypatch):
    org = await player(api, "Org")
    r = await api.post("/v1/arenas", headers=auth(org), json={
        "kind": "tally", "name": "Blitz", "seats": 2, "minutes": 1, "time_control": TC, "options": {"target": 12},
        "berserk_moves": 2})
    assert r.status_code == 201, r.text
    view = r.json()
    arena_id = view["arena_id"]
    assert view["berserk"] and view["status"] == "open" and view["ends_at_ms"] - view["starts_at_ms"] == 60_000
    assert view["seed"] is None and view["berserk_moves"] == 2
    players = {p["id"]: p for p in [await player(api, n) for n in ("Ann", "Ben", "Cy", "Di")]}
    for p in players.values():
        r = await api.post(f"/v1/arenas/{arena_id}/join", headers=auth(p), json={"rating": 1500})
        assert r.status_code == 200, r.text
    again = await api.post(f"/v1/arenas/{arena_id}/join", headers=auth(next(iter(players.values()))), json={})
    assert again.status_code == 409 and again.json()["code"] == "arena.already_playing"

    async def all_playing():
        v = await arena(api, arena_id)
        return v if v["running"] == 2 else None

    view = await all_playing() or await found(all_playing)
    first = {s["player_id"]: s["playing"] for s in view["standings"]}
    # berserk: before one's first move, once, only in one's own game; the clock is halved in the game
    game_id = first[next(iter(players))]
    game = (await api.get(f"/v1/games/{game_id}")).json()
    late = next(s for s in game["seats"] if s["seat"] == 1)["player_id"]
    stranger = next(pid for pid in players if first[pid] != game_id)
    r = await api.post(f"/v1/arenas/{arena_id}/games/{game_id}/berserk", headers=auth(players[stranger]))
    assert r.status_code == 403, r.text
    # the game moved on between the halving's read and its append (the opponent's move, a timeout): decided
    # again on the game as it then stands, not answered 409 version_conflict (a live SDK test met that)
    arenas, tries = api.app.state.services.arenas, []
    once = arenas.game_loop.run

    async def raced(command, loaded):
        tries.append(loaded.state.version)
        if len(tries) == 1:
            raise ConcurrencyError(game_id, loaded.state.version, loaded.state.version + 1)
        return await once(command, loaded)

    monkeypatch.setattr(arenas.game_loop, "run", raced)
    r = await api.post(f"/v1/arenas/{arena_id}/games/{game_id}/berserk", headers=auth(players[late]))
    assert r.status_code == 200, r.text
    assert len(tries) == 2
    monkeypatch.setattr(arenas.game_loop, "run", once)
    r = await api.post(f"/v1/arenas/{arena_id}/games/{game_id}/berserk", headers=auth(players[late]))
    assert r.status_code == 409 and r.json()["code"] == "arena.already_berserk"
    # another replica's berserk, checked by the arena before this one was recorded there: the game itself
    # refuses to halve the same clock twice
    store = api.app.state.services.store  # that replica: its own repository and loop over the same store
    replica = Arenas(store, GameRepository(store, games), Broker(), memory_settings.snapshot_every)
    with pytest.raises(RuleViolation, match="berserk once"):
        await replica._halve_clock(game_id, late)
    events = (await api.get(f"/v1/games/{game_id}/events")).json()["events"]
    clocks = [e["data"] for e in events if e["type"] == "table.ClockSet"]
    assert clocks[-1]["remaining_ms"] == [600_000, 300_000]
    # a berserk after one's own first move is refused with its own code (issue 44), though the game runs
    early = next(s for s in game["seats"] if s["seat"] == 0)["player_id"]
    r = await api.post(f"/v1/games/{game_id}/commands", headers=auth(players[early]),
                       json={"command": {"type": "tally.Add", "amount": 3}})
    assert r.status_code == 200, r.text
    r = await api.post(f"/v1/arenas/{arena_id}/games/{game_id}/berserk", headers=auth(players[early]))
    assert r.status_code == 409 and r.json()["code"] == "arena.berserk_too_late", r.text
    # the berserker wins its game; everyone else's games end too
    await finish(api, game_id, players, winner=late)
    for pid, gid in first.items():
        if gid != game_id:
            await finish(api, gid, players)

    async def scored():
        v = await arena(api, arena_id)
        return v if v["games"] >= 2 and sum(s["games"] for s in v["standings"]) == 4 else None

    view = await found(scored)
    points = {s["player_id"]: s["points"] for s in view["standings"]}
    assert points[late] == 3  # a win (2) and the berserk bonus (1): the berserker made its 2 own moves
    # everyone free again is paired again, never against the same opponent; pausing takes one out
    r = await api.post(f"/v1/arenas/{arena_id}/pause", headers=auth(players[stranger]))
    assert r.status_code in (200, 409), r.text

    async def repaired():
        v = await arena(api, arena_id)
        return v if v["games"] > 2 or v["running"] else None

    view = await found(repaired)
    standing = {s["player_id"]: s for s in view["standings"]}
    assert standing[stranger]["presence"] == "paused"
    # the end: the worker's clock passes the end time; running games finish and count, then the arena ends
    monkeypatch.setattr(worker_module, "now_ms", lambda: view["ends_at_ms"] + 1)

    async def closed():
        v = await arena(api, arena_id)
        return v if v["status"] != "open" else None

    view = await found(closed)
    assert (await api.post(f"/v1/arenas/{arena_id}/join", headers=auth(players[stranger]), json={})).json()["code"] \
        == "arena.closed"
    for s in view["standings"]:
        if s["playing"]:
            await finish(api, s["playing"], players)

    async def finished():
        v = await arena(api, arena_id)
        return v if v["status"] == "finished" else None

    view = await found(finished)
    assert view["seed"] is not None and view["running"] == 0
    public = (await api.get(f"/v1/arenas/{arena_id}/events")).json()["events"]
    report = verify_competition([(e["type"], e["data"]) for e in public])
    assert report.ok and report.finished and report.games_checked >= 2, report.problems
    paired = [g["game_id"] for e in public if e["type"] == "arena.PlayersPaired" for g in e["data"]["games"]]
    assert len(paired) == view["games"]
    assert await store.arenas_of(paired) == dict.fromkeys(paired, arena_id)  # linked to the arena
    assert await store.tournaments_of(paired) == {}  # and to no tournament
    for game_id in paired:  # every game verifies, the berserk one (its halved clock) included
        log = (await api.get(f"/v1/games/{game_id}/export")).content
        report = verify_log(parse_ndjson(log), games)
        assert report.ok, report.problems
