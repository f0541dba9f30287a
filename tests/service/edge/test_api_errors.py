"""Bad input gets a clear 4xx problem detail with a stable code, and writes nothing."""

from __future__ import annotations

from testkit.api import player, started_game

PROBLEM = "application/problem+json"


def problem(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith(PROBLEM)
    body = resp.json()
    assert body["code"] == code and body["status"] == status and body["title"] and body["detail"]
    return body


async def test_creating_a_game_needs_a_valid_token(client):
    problem(await client.post("/v1/games", json={"kind": "tally", "seats": 2}), 401, "unauthorized")
    problem(await client.post("/v1/games", json={"kind": "tally", "seats": 2},
                              headers={"Authorization": "Bearer nope"}), 401, "unauthorized")
    problem(await client.post("/v1/games", json={"kind": "tally", "seats": 2},
                              headers={"Authorization": "Basic abc"}), 401, "unauthorized")


async def test_a_wrong_token_is_refused_before_a_malformed_body_is_read(client):
    ann = await player(client)
    game = await client.post("/v1/games", json={"kind": "tally", "seats": 2}, headers=ann["headers"])
    for path in ("/v1/games", f"/v1/games/{game.json()['id']}/commands", "/v1/tournaments"):
        problem(await client.post(path, content=b"{not json", headers={"Authorization": "Bearer nope",
                "content-type": "application/json"}), 401, "unauthorized")
        problem(await client.post(path, json={"unknown": 1}, headers={"Authorization": "Bearer nope"}),
                401, "unauthorized")


async def test_malformed_bodies_are_400(client):
    ann = await player(client)
    problem(await client.post("/v1/games", content=b"{not json", headers={**ann["headers"],
            "content-type": "application/json"}), 400, "invalid_request")
    problem(await client.post("/v1/games", json={"kind": "tally", "seats": "two"}, headers=ann["headers"]),
            400, "invalid_request")
    problem(await client.post("/v1/players", json={"name": ""}), 400, "invalid_request")


async def test_unknown_kinds_games_and_players_are_404(client):
    ann = await player(client)
    problem(await client.post("/v1/games", json={"kind": "chess", "seats": 2}, headers=ann["headers"]),
            404, "unknown_kind")
    problem(await client.get("/v1/games/nope"), 404, "game_not_found")
    problem(await client.get("/v1/players/nope"), 404, "player_not_found")
    problem(await client.get("/v1/kinds/chess"), 404, "unknown_kind")


async def test_options_that_do_not_fit_are_422(client):
    ann = await player(client)
    problem(await client.post("/v1/games", json={"kind": "tally", "seats": 9}, headers=ann["headers"]),
            422, "table.bad_seat_count")
    problem(await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {"target": 1}},
                              headers=ann["headers"]), 422, "tally.bad_options")
    problem(await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {"target": "many"}},
                              headers=ann["headers"]), 422, "table.bad_options")
    problem(await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {"colour": "red"}},
                              headers=ann["headers"]), 400, "invalid_request")  # an unknown field is malformed


async def test_game_commands_are_checked_for_seat_shape_rules_and_version(client):
    game_id, players = await started_game(client, "tally", 2)
    stranger = await player(client, "Stranger")
    version = (await client.get(f"/v1/games/{game_id}")).json()["version"]
    add = {"command": {"type": "tally.Add", "amount": 1}}
    problem(await client.post(f"/v1/games/{game_id}/commands", json=add), 401, "unauthorized")
    problem(await client.post(f"/v1/games/{game_id}/commands", json=add, headers=stranger["headers"]),
            403, "not_seated")
    problem(await client.post(f"/v1/games/{game_id}/commands", json={"command": {"type": "tikal.EndTurn"}},
                              headers=players[0]["headers"]), 422, "invalid_command")
    problem(await client.post(f"/v1/games/{game_id}/commands", json={"command": {"type": "tally.Add"}},
                              headers=players[0]["headers"]), 422, "invalid_command")
    problem(await client.post(f"/v1/games/{game_id}/commands", json=add, headers=players[1]["headers"]),
            409, "tally.not_your_turn")
    body = problem(await client.post(f"/v1/games/{game_id}/commands", json={**add, "expected_version": 1},
                                     headers=players[0]["headers"]), 409, "version_conflict")
    assert body["current_version"] == version
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == version
    ok = await client.post(f"/v1/games/{game_id}/commands", json={**add, "expected_version": version},
                           headers=players[0]["headers"])
    assert ok.status_code == 200 and ok.json()["version"] == version + 1


async def test_joining_and_starting_follow_the_table_rules(client):
    ann, bob, cid = await player(client, "Ann"), await player(client, "Bob"), await player(client, "Cid")
    created = await client.post("/v1/games", json={"kind": "tally", "seats": 2}, headers=ann["headers"])
    assert created.status_code == 201 and created.headers["location"].endswith(created.json()["id"])
    game_id = created.json()["id"]
    problem(await client.post(f"/v1/games/{game_id}/start", headers=ann["headers"]), 409, "table.seats_open")
    problem(await client.post(f"/v1/games/{game_id}/join", json={}, headers=ann["headers"]), 409,
            "table.already_seated")
    problem(await client.post(f"/v1/games/{game_id}/join", json={"seat": 0}, headers=bob["headers"]), 409,
            "table.seat_taken")
    assert (await client.post(f"/v1/games/{game_id}/join", json={"seat": 1}, headers=bob["headers"])).status_code == 200
    problem(await client.post(f"/v1/games/{game_id}/join", json={}, headers=cid["headers"]), 409, "table.full")
    problem(await client.post(f"/v1/games/{game_id}/start", headers=cid["headers"]), 403, "not_seated")
    started = await client.post(f"/v1/games/{game_id}/start", headers=bob["headers"])
    assert started.status_code == 200 and started.json()["status"] == "active"


async def test_the_export_is_refused_while_the_game_runs_except_to_an_admin(client):
    game_id, players = await started_game(client, "tally", 2)
    problem(await client.get(f"/v1/games/{game_id}/export", headers=players[0]["headers"]), 403, "game_running")
    admin = await client.get(f"/v1/games/{game_id}/export", headers={"Authorization": "Bearer admin-secret"})
    assert admin.status_code == 200 and admin.text.count("\n") >= 4


async def test_characters_postgresql_cannot_store_are_400_and_write_nothing(client):
    problem(await client.get("/v1/games", params={"player": "a\x00b"}), 400, "invalid_request")
    problem(await client.get("/v1/games", params={"kind": "c\x00", "status": "open"}), 400, "invalid_request")
    problem(await client.get("/v1/tournaments", params={"kind": "c\x00"}), 400, "invalid_request")
    problem(await client.get("/v1/games/a%00b"), 400, "invalid_request")
    problem(await client.post("/v1/players", json={"name": "nul\x00name"}), 400, "invalid_request")
