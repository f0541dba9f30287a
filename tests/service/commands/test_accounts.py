"""Accounts over HTTP: a password, sign-in by name for a fresh token, personal access tokens with scopes,
and the security properties: no user enumeration (equal hash work), throttled brute force, no scope
escalation, revoked tokens and their tickets refused."""

from __future__ import annotations

import uuid

import pytest
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from testkit.api import player


def unique(prefix: str = "Ann") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def with_password(client, password: str = "correct horse battery") -> dict:
    who = await player(client, unique())
    resp = await client.post("/v1/players/me/password", json={"password": password}, headers=who["headers"])
    assert resp.status_code == 200, resp.text
    assert resp.json()["login"] == who["name"].casefold()
    return who


@pytest.fixture
async def strict(settings, games):
    """An app that throttles after 3 failed sign-ins."""
    import msgspec

    app = create_app(msgspec.structs.replace(settings, sign_in_failures=3), games=games)
    async with AsyncTestClient(app, timeout=30) as c:
        yield c


async def test_a_player_with_a_password_signs_in_by_name_and_its_first_token_keeps_working(client):
    who = await with_password(client)
    resp = await client.post("/v1/sessions", json={"name": who["name"].upper(), "password": "correct horse battery"})
    assert resp.status_code == 201, resp.text
    session = resp.json()
    assert session["player_id"] == who["id"] and session["kind"] == "session" and session["token"] != who["token"]
    assert (await client.get("/v1/players/me", headers=bearer(session["token"]))).json()["id"] == who["id"]
    assert (await client.get("/v1/players/me", headers=who["headers"])).json()["id"] == who["id"]
    listed = (await client.get("/v1/players/me/tokens", headers=who["headers"])).json()
    assert [t["id"] for t in listed] == [session["id"]] and "token" not in listed[0]


async def test_a_wrong_password_and_an_unknown_name_are_refused_alike_after_equal_hash_work(client):
    who = await with_password(client)
    passwords = client.app.state.services.accounts.passwords
    answers, work = [], []
    for name in (who["name"], unique("Nobody")):
        before = passwords.verifications
        resp = await client.post("/v1/sessions", json={"name": name, "password": "wrong password!"})
        work.append(passwords.verifications - before)
        answers.append((resp.status_code, resp.json()["code"], resp.json()["detail"]))
    assert work == [1, 1]
    assert answers[0] == answers[1] == (401, "sign_in_failed", "the name and password do not match")


async def test_brute_force_on_a_name_is_throttled_known_or_not_and_costs_no_hash_work(strict):
    who = await with_password(strict)
    passwords = strict.app.state.services.accounts.passwords
    for name in (who["name"], unique("Nobody")):
        for _ in range(3):
            assert (await strict.post("/v1/sessions", json={"name": name, "password": "guess guess"})).status_code == 401
        before = passwords.verifications
        resp = await strict.post("/v1/sessions", json={"name": name, "password": "correct horse battery"})
        assert resp.status_code == 429 and resp.json()["code"] == "sign_in_throttled", resp.text
        assert int(resp.headers["retry-after"]) > 0
        assert passwords.verifications == before  # refused before any hash


async def test_a_personal_access_token_does_what_its_scopes_allow_and_nothing_more(client):
    who = await player(client, unique())
    resp = await client.post("/v1/players/me/tokens", json={"name": "reader", "scopes": ["read"]},
                             headers=who["headers"])
    assert resp.status_code == 201, resp.text
    reader = bearer(resp.json()["token"])
    assert resp.json()["scopes"] == ["read"]
    assert (await client.get("/v1/players/me", headers=reader)).status_code == 200
    refused = [
        await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {}}, headers=reader),
        await client.post("/v1/players/me/tokens", json={"name": "more", "scopes": ["play"]}, headers=reader),
        await client.post("/v1/players/me/token", headers=reader),  # a first token with every scope
        await client.post("/v1/players/me/password", json={"password": "taken over!"}, headers=reader),
        await client.post("/v1/games/any/commands", json={"command": {"type": "tally.Roll"}}, headers=reader),
    ]
    assert [(r.status_code, r.json()["code"]) for r in refused] == [(403, "insufficient_scope")] * 5


async def test_a_player_can_play_with_a_play_token(client):
    who = await player(client, unique())
    token = (await client.post("/v1/players/me/tokens", json={"name": "bot", "scopes": ["play", "read"]},
                               headers=who["headers"])).json()["token"]
    resp = await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {}}, headers=bearer(token))
    assert resp.status_code == 201, resp.text


async def test_tokens_are_revoked_one_by_one_and_their_tickets_with_them(client):
    who = await player(client, unique())
    made = [(await client.post("/v1/players/me/tokens", json={"name": f"t{i}", "scopes": ["read"]},
                               headers=who["headers"])).json() for i in range(2)]
    ticket = (await client.post("/v1/players/me/stream-tickets", headers=bearer(made[0]["token"]))).json()["ticket"]
    resp = await client.delete(f"/v1/players/me/tokens/{made[0]['id']}", headers=who["headers"])
    assert resp.status_code == 204
    assert (await client.get("/v1/players/me", headers=bearer(made[0]["token"]))).status_code == 401
    assert (await client.get("/v1/players/me", headers=bearer(made[1]["token"]))).status_code == 200
    refused = await client.get(f"/v1/players/me/stream?ticket={ticket}")
    assert refused.status_code == 401, refused.text
    again = await client.delete(f"/v1/players/me/tokens/{made[0]['id']}", headers=who["headers"])
    assert again.status_code == 404 and again.json()["code"] == "token_not_found"
    assert [t["id"] for t in (await client.get("/v1/players/me/tokens", headers=who["headers"])).json()] == [
        made[1]["id"]]


async def test_bad_account_input_is_refused_with_its_code(client):
    who = await player(client, unique())
    short = await client.post("/v1/players/me/password", json={"password": "short"}, headers=who["headers"])
    scope = await client.post("/v1/players/me/tokens", json={"name": "x", "scopes": ["admin"]}, headers=who["headers"])
    assert (short.status_code, short.json()["code"]) == (400, "invalid_request")
    assert (scope.status_code, scope.json()["code"]) == (400, "invalid_request")
    first = await with_password(client)
    twin = await player(client, first["name"].upper())  # names are free; logins are not
    taken = await client.post("/v1/players/me/password", json={"password": "another one"}, headers=twin["headers"])
    assert (taken.status_code, taken.json()["code"]) == (409, "name_taken")


def test_every_operation_that_reads_the_caller_names_the_scope_it_needs():
    import inspect

    from litestar.handlers import HTTPRouteHandler

    from service.edge.dependencies import SCOPES
    from service.ops.settings import Settings

    app = create_app(Settings(database_url="postgresql://unused", rate_limit=1))
    callers = {h.operation_id for r in app.routes for h in getattr(r, "route_handlers", ())
               if isinstance(h, HTTPRouteHandler) and ("viewer" in inspect.signature(h.fn).parameters
                                                       or h.operation_id == "sendCommand")}
    assert callers - set(SCOPES) == set()
    document = app.openapi_schema.to_schema()
    send = document["paths"]["/v1/games/{game_id}/commands"]["post"]["security"]
    assert send == [{"bearer": ["play"]}, {"oauth": ["play"]}]


async def test_rotating_from_a_session_replaces_the_first_token_and_ends_the_session(client):
    who = await with_password(client)
    session = (await client.post("/v1/sessions", json={"name": who["name"], "password": "correct horse battery"})).json()
    rotated = await client.post("/v1/players/me/token", headers=bearer(session["token"]))
    assert rotated.status_code == 201
    for old in (session["token"], who["token"]):
        assert (await client.get("/v1/players/me", headers=bearer(old))).status_code == 401
    fresh = bearer(rotated.json()["token"])
    assert (await client.get("/v1/players/me", headers=fresh)).json()["id"] == who["id"]
    other = (await client.post("/v1/sessions", json={"name": who["name"], "password": "correct horse battery"})).json()
    assert (await client.delete("/v1/players/me/token", headers=fresh)).status_code == 204
    assert (await client.get("/v1/players/me", headers=fresh)).status_code == 401
    assert (await client.get("/v1/players/me", headers=bearer(other["token"]))).status_code == 200  # only the one used


def test_the_documented_scopes_are_the_grantable_ones():
    from typing import get_args

    from service.commands.players import GRANTABLE
    from service.edge.routes.accounts import Scope

    assert get_args(Scope) == GRANTABLE
