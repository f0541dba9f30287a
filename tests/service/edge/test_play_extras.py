"""One request per step (include=view,legal), dry runs that reveal nothing, resigning, clocks over HTTP."""

from __future__ import annotations

from testkit.api import player, started_game


async def test_a_command_can_answer_with_the_callers_new_view_and_legal_commands(client):
    game_id, players = await started_game(client, "tally", 2, {"target": 50})
    resp = await client.post(f"/v1/games/{game_id}/commands?include=view,legal", headers=players[0]["headers"],
                             json={"command": {"type": "tally.Add", "amount": 2}})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["view"]["kind"] == "tally" and body["view"]["seat"] == 0 and body["view"]["total"] == 2
    assert body["legal"] == []  # seat 1 acts now
    resp = await client.post(f"/v1/games/{game_id}/commands?include=legal", headers=players[1]["headers"],
                             json={"command": {"type": "tally.Add", "amount": 1}})
    assert resp.json()["view"] is None and resp.json()["legal"] == []
    plain = await client.post(f"/v1/games/{game_id}/commands", headers=players[0]["headers"],
                              json={"command": {"type": "tally.Add", "amount": 1}})
    assert plain.json()["view"] is None and plain.json()["legal"] is None
    bad = await client.post(f"/v1/games/{game_id}/commands?include=everything", headers=players[1]["headers"],
                            json={"command": {"type": "tally.Add", "amount": 1}})
    assert bad.status_code == 400


async def test_a_dry_run_reveals_no_roll(client):
    game_id, players = await started_game(client, "tally", 2, {"target": 50})
    resp = await client.post(f"/v1/games/{game_id}/commands?dry_run=true&include=view", headers=players[0]["headers"],
                             json={"command": {"type": "tally.Roll"}})
    body = resp.json()
    assert resp.status_code == 200 and body["dry_run"] is True
    game = (await client.get(f"/v1/games/{game_id}")).json()
    assert body["events"] == [] and body["view"]["total"] == 0 and body["version"] == game["version"]


async def test_resigning_over_http_ends_a_two_player_game_for_the_opponent(client):
    game_id, players = await started_game(client, "tally", 2, {"target": 50})
    resp = await client.post(f"/v1/games/{game_id}/commands", headers=players[1]["headers"],
                             json={"command": {"type": "table.Resign"}})
    assert resp.status_code == 200, resp.text
    assert [e["type"] for e in resp.json()["events"]] == ["table.SeatResigned", "table.GameEnded", "table.SeedRevealed"]
    game = (await client.get(f"/v1/games/{game_id}")).json()
    assert game["status"] == "finished" and game["outcome"]["winners"] == [0]


async def test_a_clocked_game_shows_its_deadlines_and_refuses_an_incomplete_time_control(client):
    ann, bob = await player(client, "Ann"), await player(client, "Bob")
    bad = await client.post("/v1/games", headers=ann["headers"],
                            json={"kind": "tally", "seats": 2, "time_control": {"increment_seconds": 3}})
    assert bad.status_code == 422 and bad.json()["code"] == "table.bad_time_control"
    resp = await client.post("/v1/games", headers=ann["headers"],
                             json={"kind": "tally", "seats": 2, "time_control": {"per_move_seconds": 30}})
    assert resp.status_code == 201, resp.text
    game_id = resp.json()["id"]
    await client.post(f"/v1/games/{game_id}/join", json={}, headers=bob["headers"])
    await client.post(f"/v1/games/{game_id}/start", headers=ann["headers"])
    game = (await client.get(f"/v1/games/{game_id}")).json()
    assert game["time_control"]["per_move_seconds"] == 30
    deadline = game["clock"]["deadlines_ms"]
    assert deadline[0] is not None and deadline[1] is None
    events = (await client.get(f"/v1/games/{game_id}/events")).json()["events"]
    assert events[-1]["type"] == "table.ClockSet"


async def test_a_seat_reads_the_legal_list_its_command_s_answer_listed_without_listing_again(client, monkeypatch):
    """`include=legal` and `GET /legal` of one version and seat share one listing (`views.legal_list`)."""
    from domain.table.view import TableReading

    listed: list[int] = []
    original = TableReading.legal

    def counting(self, state, seat):
        listed.append(state.version)
        return original(self, state, seat)

    monkeypatch.setattr(TableReading, "legal", counting)
    game_id, players = await started_game(client, "tally", 2)
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    headers = players[seat]["headers"]
    body = {"command": {"type": "tally.Add", "amount": 1}}
    answer = (await client.post(f"/v1/games/{game_id}/commands?dry_run=true&include=legal", json=body,
                                headers=headers)).json()
    assert len(listed) == 1 and answer["legal"]
    again = (await client.get(f"/v1/games/{game_id}/legal", headers=headers)).json()
    assert again["commands"] == answer["legal"] and again["version"] == answer["version"]
    assert len(listed) == 1  # the list was not made again
    await client.post(f"/v1/games/{game_id}/commands", json=body, headers=headers)
    other = players[1 - seat]["headers"]
    assert (await client.get(f"/v1/games/{game_id}/legal", headers=other)).json()["commands"]
    assert len(listed) == 2  # a new version: listed anew
