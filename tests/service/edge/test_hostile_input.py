"""Whatever a client sends, a malformed body is a 400 problem, a non-JSON body a 415, never a 500."""

from __future__ import annotations

import pytest

from testkit.api import player, started_game

PROBLEM = "application/problem+json"
JSON = {"content-type": "application/json"}


def refused(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith(PROBLEM)
    body = resp.json()
    assert body["code"] == code
    return body


@pytest.mark.parametrize("body", [b"[" * 5000 + b"]" * 5000, b'{"name": ' + b'{"a":' * 3000 + b"1" + b"}" * 3001,
                                  b'{"name": "\xff\xfe"}', b"\xc3\x28", b"4\xff3~ garbage"])
async def test_deep_or_badly_encoded_bodies_are_400_at_every_endpoint(client, body):
    ann = await player(client)
    game_id, players = await started_game(client, "tally", 2)
    for path, headers in (("/v1/players", {}), ("/v1/games", ann["headers"]),
                          (f"/v1/games/{game_id}/join", ann["headers"]),
                          (f"/v1/games/{game_id}/commands", players[0]["headers"])):
        refused(await client.post(path, content=body, headers={**headers, **JSON}), 400, "invalid_request")


async def test_a_body_in_any_format_but_json_is_415(client):
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        refused(await client.post("/v1/players", content=b'{"name": "Ann"}', headers={"content-type": content_type}),
                415, "unsupported_media_type")
    charset = await client.post("/v1/players", content=b'{"name": "Ann"}',
                                headers={"content-type": "application/json; charset=utf-8"})
    assert charset.status_code == 201


async def test_raw_json_without_a_content_type_is_415_not_guessed(client):
    refused(await client.post("/v1/players", content=b'{"name": "Ann"}'), 415, "unsupported_media_type")


async def test_an_unknown_field_is_a_400_naming_it_in_every_body(client):
    ann = await player(client)
    body = refused(await client.post("/v1/players", json={"name": "Bo", "nmae": "x"}), 400, "invalid_request")
    assert "nmae" in body["detail"]
    body = refused(await client.post("/v1/games", json={"kind": "tally", "seats": 2, "sets": 3},
                                     headers=ann["headers"]), 400, "invalid_request")
    assert "sets" in body["detail"]
    body = refused(await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {"tagret": 3}},
                                     headers=ann["headers"]), 400, "invalid_request")
    assert "tagret" in body["detail"]  # inside the options too: never read as "left at its default"
    game_id, players = await started_game(client, "tally", 2)
    body = refused(await client.post(f"/v1/games/{game_id}/join", json={"seta": 1}, headers=ann["headers"]),
                   400, "invalid_request")
    assert "seta" in body["detail"]


async def test_an_endpoint_without_a_body_refuses_one_with_fields(client):
    """start, leave, stream tickets and token rotation take no body: `{}` or nothing passes, a field is a 400."""
    game_id, players = await started_game(client, "tally", 2)
    headers = players[0]["headers"]
    for path in (f"/v1/games/{game_id}/start", f"/v1/games/{game_id}/leave", f"/v1/games/{game_id}/stream-tickets",
                 "/v1/players/me/stream-tickets", "/v1/players/me/token"):
        body = refused(await client.post(path, json={"seat": 1}, headers=headers), 400, "invalid_request")
        assert "seat" in body["detail"], path
    assert (await client.post(f"/v1/games/{game_id}/stream-tickets", json={}, headers=headers)).status_code == 201
    assert (await client.post(f"/v1/games/{game_id}/stream-tickets", headers=headers)).status_code == 201


async def test_a_typo_in_expected_version_never_skips_the_version_check(client):
    game_id, players = await started_game(client, "tally", 2)
    before = (await client.get(f"/v1/games/{game_id}")).json()["version"]
    body = refused(await client.post(f"/v1/games/{game_id}/commands", headers=players[0]["headers"],
                                     json={"command": {"type": "tally.Add", "amount": 1}, "expected_verison": 1}),
                   400, "invalid_request")
    assert "expected_verison" in body["detail"]
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == before


async def test_an_unknown_field_inside_a_command_is_refused_by_name_and_nothing_is_played(client):
    game_id, players = await started_game(client, "tally", 2)
    before = (await client.get(f"/v1/games/{game_id}")).json()["version"]
    for query in ("", "?dry_run=true"):
        body = refused(await client.post(f"/v1/games/{game_id}/commands{query}", headers=players[0]["headers"],
                                         json={"command": {"type": "tally.Add", "amount": 1, "amuont": 2}}),
                       400, "invalid_request")
        assert "amuont" in body["detail"]
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == before
