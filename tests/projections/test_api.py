"""The read models through the API: the game list's filters and cursor pages, history, leaderboards, stats."""

from __future__ import annotations

from tests.projections.support import api_lag, wait_caught_up
from testkit.api import play_to_end, player, started_game


async def pages(client, query: str, limit: int) -> list[list[dict]]:
    """Every page of GET /v1/games?{query} with `limit` items per page."""
    out, cursor = [], None
    while True:
        url = f"/v1/games?{query}&limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        resp = await client.get(url)
        assert resp.status_code == 200, resp.text
        body = resp.json()
        out.append(body["items"])
        cursor = body["next_cursor"]
        if cursor is None:
            return out


async def test_the_game_list_filters_and_pages_newest_first_without_repeats(client):
    finished, players = await started_game(client, "tally", 2)
    await play_to_end(client, finished, players)
    host = await player(client, "Host")
    lobby = []
    for seats in (2, 3, 4, 2, 3):
        resp = await client.post("/v1/games", json={"kind": "tally", "seats": seats}, headers=host["headers"])
        lobby.append(resp.json()["id"])
    active, _ = await started_game(client, "tally", 3)
    await wait_caught_up(api_lag(client))

    everything = [g["id"] for page in await pages(client, "", 2) for g in page]
    assert everything == [active, *reversed(lobby), finished]
    open_pages = await pages(client, "status=open", 2)
    assert [len(p) for p in open_pages] == [2, 2, 1]
    assert [g["id"] for p in open_pages for g in p] == list(reversed(lobby))
    assert all(g["open_seats"] > 0 for p in open_pages for g in p)
    (mine,) = await pages(client, f"player={host['id']}&open_seats=true", 10)
    assert {g["id"] for g in mine} == set(lobby)
    assert mine[0]["seats"][0] == {"seat": 0, "player_id": host["id"], "name": "Host"}
    (full,) = await pages(client, "open_seats=false&kind=tally", 10)
    assert [g["id"] for g in full] == [active, finished]
    ended = full[1]
    assert ended["status"] == "finished" and ended["winners"] and ended["to_act"] == []
    assert full[0]["status"] == "active" and len(full[0]["to_act"]) == 1
    (none,) = await pages(client, "kind=tikal", 10)
    assert none == []


async def test_a_cursor_stays_stable_when_games_are_created_between_pages(client):
    host = await player(client, "Host")
    for _ in range(4):
        await client.post("/v1/games", json={"kind": "tally", "seats": 2}, headers=host["headers"])
    await wait_caught_up(api_lag(client))
    first = (await client.get("/v1/games?limit=2")).json()
    await client.post("/v1/games", json={"kind": "tally", "seats": 2}, headers=host["headers"])
    await wait_caught_up(api_lag(client))
    second = (await client.get(f"/v1/games?limit=2&cursor={first['next_cursor']}")).json()
    ids = [g["id"] for g in first["items"] + second["items"]]
    assert len(set(ids)) == 4
    bad = await client.get("/v1/games?cursor=not-a-cursor")
    assert bad.status_code == 422 and bad.json()["code"] == "bad_cursor"


async def test_history_leaderboard_and_stats_follow_finished_games(client):
    game_id, players = await started_game(client, "tally", 3)
    final = await play_to_end(client, game_id, players)
    await wait_caught_up(api_lag(client))

    winner = final["outcome"]["winners"][0]
    history = (await client.get(f"/v1/players/{players[winner]['id']}/games")).json()
    (row,) = history["items"]
    assert row["game_id"] == game_id and row["won"] is True and row["rank"] == 1
    assert row["score"] == final["outcome"]["scores"][winner] and row["status"] == "finished"

    board = (await client.get("/v1/leaderboards/tally?limit=2")).json()
    assert board["items"][0]["player_id"] == players[winner]["id"]
    rest = (await client.get(f"/v1/leaderboards/tally?cursor={board['next_cursor']}")).json()
    assert len(board["items"] + rest["items"]) == 3 and rest["next_cursor"] is None
    assert all(r["games"] == 1 for r in board["items"] + rest["items"])

    stats = (await client.get("/v1/stats")).json()
    assert {"kind": "tally", "status": "finished", "games": 1} in stats["games"]
    assert sum(d["events"] for d in stats["events_per_day"]) == final["version"]
    (length,) = stats["finished_lengths"]
    assert length["games"] == 1 and length["avg_events"] == final["version"] and length["avg_seconds"] >= 0

    assert (await client.get("/v1/players/nobody/games")).json()["code"] == "player_not_found"
    assert (await client.get("/v1/leaderboards/chess")).status_code == 404
    ready = (await client.get("/readyz")).json()
    assert ready["details"]["projections"]["games"] == {"events": 0, "seconds": 0.0}
