"""A duplicate deal stays sealed until its last table ends: every read path is searched for its seed and deal.

Every table of a duplicate round plays the same seed, so tally deals each table the same secrets. While
one table is still playing, the finished one must not show anyone (a player of the other table, a
spectator, the organiser) its revealed seed or its full deal, through any read path; the moment the
last table ends, it opens like any finished game.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from testkit.api import found

ADMIN = {"Authorization": "Bearer admin-secret"}


@pytest.fixture
def base_url(server):
    """The worker's shared server (tests/conftest.py)."""
    return server


async def register(c: httpx.AsyncClient, name: str) -> dict[str, Any]:
    body = (await c.post("/v1/players", json={"name": name})).json()
    return {"id": body["id"], "headers": {"Authorization": f"Bearer {body['token']}"}}


async def play_to_the_end(c: httpx.AsyncClient, game_id: str, seats: list[dict[str, Any]]) -> list[dict]:
    """Every command response of the game, played by its seats adding 3 in turn."""
    answers = []
    while (game := (await c.get(f"/v1/games/{game_id}", headers=seats[0]["headers"])).json())["status"] == "active":
        r = await c.post(f"/v1/games/{game_id}/commands", headers=seats[game["to_act"][0]]["headers"],
                         json={"command": {"type": "tally.Add", "amount": 3}})
        assert r.status_code == 200, r.text
        answers.append(r.json())
    return answers


async def sse_text(c: httpx.AsyncClient, url: str, headers: dict[str, str], seconds: float = 1.0) -> str:
    """What a stream sends in its first `seconds` (from its first event on)."""
    chunks: list[str] = []

    async def read() -> None:
        async with c.stream("GET", url, headers={**headers, "Last-Event-ID": "0"}, timeout=30) as resp:
            chunks.append(f"{resp.status_code}\n")
            async for text in resp.aiter_text():
                chunks.append(text)

    try:
        await asyncio.wait_for(read(), seconds)
    except TimeoutError:
        pass
    return "".join(chunks)


async def every_read(c: httpx.AsyncClient, headers: dict[str, str], tid: str, games: list[str],
                     players: list[str]) -> dict[str, str]:
    """Every read path a client has to a tournament's games, as `headers` sees it: path -> body."""
    paths = ["/v1/games", "/v1/games?status=finished", f"/v1/tournaments/{tid}", f"/v1/tournaments/{tid}/events"]
    paths += [f"/v1/players/{p}/games" for p in players]
    for g in games:
        paths += [f"/v1/games/{g}", f"/v1/games/{g}/events", f"/v1/games/{g}/events?as_seat=0",
                  f"/v1/games/{g}/events?as_seat=1", f"/v1/games/{g}/export", f"/v1/games/{g}/versions/3",
                  f"/v1/games/{g}/versions/3?seat=1", f"/v1/games/{g}/legal", f"/v1/games/{g}/board.svg"]
    bodies = {p: f"{(r := await c.get(p, headers=headers)).status_code} {r.text}" for p in paths}
    for g in games:
        bodies[f"/v1/games/{g}/stream"] = await sse_text(c, f"/v1/games/{g}/stream", headers)
    bodies[f"/v1/tournaments/{tid}/stream"] = await sse_text(c, f"/v1/tournaments/{tid}/stream", headers)
    return bodies


async def duplicate_deal(c: httpx.AsyncClient) -> tuple[dict, str, dict[str, dict], list[dict], dict[str, list]]:
    """A duplicate tally tournament of 4 players started: organiser, id, players by id, the two tables of
    round 1 and each table's seats (game id -> players in seat order)."""
    organiser = await register(c, "Org")
    r = await c.post("/v1/tournaments", headers=organiser["headers"], json={
        "kind": "tally", "options": {"target": 9}, "seats": 2, "rounds": 2, "duplicate": True})
    tid = r.json()["tournament_id"]
    players = {}
    for i in range(4):
        p = await register(c, f"P{i}")
        players[p["id"]] = p
        assert (await c.post(f"/v1/tournaments/{tid}/register", headers=p["headers"], json={})).status_code == 200
    view = (await c.post(f"/v1/tournaments/{tid}/start", headers=organiser["headers"])).json()
    tables = view["rounds"][0]["tables"]
    return organiser, tid, players, tables, {t["game_id"]: [players[p] for p in t["players"]] for t in tables}


async def test_no_read_path_shows_a_duplicate_deal_until_its_last_table_ends(base_url):
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as c:
        organiser, tid, players, (first, second), seats = await duplicate_deal(c)

        answers = await play_to_the_end(c, first["game_id"], seats[first["game_id"]])
        assert all(e["type"] != "table.SeedRevealed" for a in answers for e in a["events"])
        log = (await c.get(f"/v1/games/{first['game_id']}/events", headers=ADMIN)).json()["events"]
        seed = next(e for e in log if e["type"] == "table.SeedRevealed")["data"]["seed"]
        # the whole deal as a field ("secrets":[6,3]): the bare list could equal the seats' running scores
        deal = '"secrets":' + json.dumps(next(e for e in log if e["type"] == "tally.SecretsDealt")["data"]["secrets"],
                                         separators=(",", ":"))
        plain = await register(c, "Lobby")  # a game created after the end: once listed, the end is projected
        made = (await c.post("/v1/games", headers=plain["headers"], json={"kind": "tally", "seats": 2})).json()
        await found(lambda: _listed(c, made["id"]))

        games = [first["game_id"], second["game_id"]]
        viewers = {"spectator": {}, "organiser": organiser["headers"],
                   **{f"{name} {p['id']}": p["headers"] for name, t in (("finished table", first),
                                                                          ("running table", second))
                      for p in seats[t["game_id"]]}}
        for who, headers in viewers.items():
            for path, body in (await every_read(c, headers, tid, games, list(players))).items():
                assert seed not in body and deal not in body, f"{who} read the deal through {path}: {body[:300]}"
        outsider = await c.get(f"/v1/games/{first['game_id']}/events")
        assert outsider.status_code == 403 and outsider.json()["code"] == "deal_sealed"
        shown = (await c.get(f"/v1/tournaments/{tid}")).json()
        assert shown["rounds"][0]["tables"][0]["ranks"] is None and all(s["points"] == 0 for s in shown["standings"])

        await play_to_the_end(c, second["game_id"], seats[second["game_id"]])
        opened = (await c.get(f"/v1/games/{first['game_id']}/events")).json()["events"]
        assert any(e["type"] == "table.SeedRevealed" and e["data"]["seed"] == seed for e in opened)
        assert (await c.get(f"/v1/games/{first['game_id']}/export")).status_code == 200
        assert await found(lambda: _listed(c, first["game_id"], "?status=finished"))

        async def counted() -> Any:
            v = (await c.get(f"/v1/tournaments/{tid}")).json()
            return v if v["round"] == 2 else None

        shown = await found(counted)
        assert shown["rounds"][0]["tables"][0]["ranks"] is not None
        assert sum(s["points"] for s in shown["standings"]) == 2


async def _listed(c: httpx.AsyncClient, game_id: str, query: str = "") -> bool:
    return game_id in [g["id"] for g in (await c.get(f"/v1/games{query}")).json()["items"]]
