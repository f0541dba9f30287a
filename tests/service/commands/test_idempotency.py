"""Idempotency-Key: a resent request gets its first result or refusal, marked as a replay; a key
reused for another request is refused; create, join, leave and start honour it like commands."""

from __future__ import annotations

from testkit.api import player, started_game

ADD = {"command": {"type": "tally.Add", "amount": 1}}


def keyed(headers: dict, key: str) -> dict:
    return {**headers, "Idempotency-Key": key}


async def test_a_resent_command_is_a_marked_replay_of_its_first_result(client):
    game_id, players = await started_game(client, "tally", 2)
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    headers = keyed(players[seat]["headers"], "k1")
    first = await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=headers)
    again = await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.json()["version"] == first.json()["version"]
    assert again.headers["idempotent-replayed"] == "true" and "idempotent-replayed" not in first.headers


async def test_a_key_reused_for_another_request_is_422(client):
    game_id, players = await started_game(client, "tally", 2)
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    headers = keyed(players[seat]["headers"], "k2")
    assert (await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=headers)).status_code == 200
    other = await client.post(f"/v1/games/{game_id}/commands", headers=headers,
                              json={"command": {"type": "tally.Add", "amount": 2}})
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"


async def test_a_refused_first_attempt_is_replayed_and_never_applied_later(client):
    game_id, players = await started_game(client, "tally", 2)
    game = (await client.get(f"/v1/games/{game_id}")).json()
    waiting = 1 - game["to_act"][0]
    headers = keyed(players[waiting]["headers"], "k3")
    refused = await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=headers)
    assert refused.status_code == 409
    mover = players[game["to_act"][0]]["headers"]
    assert (await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=mover)).status_code == 200
    now = (await client.get(f"/v1/games/{game_id}")).json()
    assert waiting in now["to_act"]  # the refused command would fit now
    again = await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=headers)
    assert again.status_code == 409 and again.json()["code"] == refused.json()["code"]
    assert again.headers["idempotent-replayed"] == "true"
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == now["version"]


async def test_a_resent_create_makes_one_game(client):
    ann = await player(client)
    body = {"kind": "tally", "seats": 2}
    first = await client.post("/v1/games", json=body, headers=keyed(ann["headers"], "c1"))
    again = await client.post("/v1/games", json=body, headers=keyed(ann["headers"], "c1"))
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"] and again.headers["idempotent-replayed"] == "true"
    other = await client.post("/v1/games", json={"kind": "tally", "seats": 3}, headers=keyed(ann["headers"], "c1"))
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"


async def test_a_resent_join_or_start_answers_its_first_success(client):
    ann, bob = await player(client, "Ann"), await player(client, "Bob")
    game_id = (await client.post("/v1/games", json={"kind": "tally", "seats": 2}, headers=ann["headers"])).json()["id"]
    for _ in range(2):
        joined = await client.post(f"/v1/games/{game_id}/join", json={}, headers=keyed(bob["headers"], "j1"))
        assert joined.status_code == 200, joined.text
    assert joined.headers["idempotent-replayed"] == "true"
    for _ in range(2):
        started = await client.post(f"/v1/games/{game_id}/start", headers=keyed(ann["headers"], "s1"))
        assert started.status_code == 200 and started.json()["status"] == "active"
    assert started.headers["idempotent-replayed"] == "true"


async def test_starting_a_game_one_is_not_seated_in_is_403(client):
    ann, stranger = await player(client, "Ann"), await player(client, "Stranger")
    game_id = (await client.post("/v1/games", json={"kind": "tally", "seats": 2}, headers=ann["headers"])).json()["id"]
    resp = await client.post(f"/v1/games/{game_id}/start", headers=stranger["headers"])
    assert resp.status_code == 403 and resp.json()["code"] == "not_seated"


async def test_a_seat_can_be_left_before_the_start_only(client):
    ann, bob = await player(client, "Ann"), await player(client, "Bob")
    game_id = (await client.post("/v1/games", json={"kind": "tally", "seats": 2}, headers=ann["headers"])).json()["id"]
    await client.post(f"/v1/games/{game_id}/join", json={}, headers=bob["headers"])
    left = await client.post(f"/v1/games/{game_id}/leave", headers=bob["headers"])
    assert left.status_code == 200 and bob["id"] not in [s["player_id"] for s in left.json()["seats"]]
    assert (await client.post(f"/v1/games/{game_id}/leave", headers=bob["headers"])).status_code == 403
    game_id, players = await started_game(client, "tally", 2)
    late = await client.post(f"/v1/games/{game_id}/leave", headers=players[1]["headers"])
    assert late.status_code == 409 and late.json()["code"] == "table.not_open"
