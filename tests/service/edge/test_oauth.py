"""OAuth 2.0 authorization code with PKCE over HTTP, and its attacks: code and refresh-token replay, PKCE
downgrade, redirect-URI mismatch, scope escalation, a revoked app's token and ticket."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.service.commands.test_accounts import bearer, unique
from testkit.api import player

CALLBACK = "http://127.0.0.1:9/callback"


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


async def app_of(client, scopes=("read", "play"), uris=(CALLBACK,)) -> dict:
    owner = await player(client, unique("Dev"))
    resp = await client.post("/v1/oauth/apps", json={"name": "Board Buddy", "redirect_uris": list(uris),
                                                      "scopes": list(scopes)}, headers=owner["headers"])
    assert resp.status_code == 201, resp.text
    return resp.json()


def ask(app: dict, challenge: str | None, **overrides) -> str:
    params = {"response_type": "code", "client_id": app["client_id"], "redirect_uri": CALLBACK,
              "scope": "read play", "state": "s-42", "code_challenge": challenge, "code_challenge_method": "S256",
              **overrides}
    return urlencode({k: v for k, v in params.items() if v is not None})


async def authorize(client, who: dict, query: str, allow: bool = True) -> dict:
    """The player's answer; the app's callback parameters."""
    resp = await client.post("/v1/oauth/authorize", json={"request": query, "allow": allow}, headers=who["headers"])
    assert resp.status_code == 200, resp.text
    target = urlsplit(resp.json()["redirect_to"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == CALLBACK
    return {k: v[0] for k, v in parse_qs(target.query).items()}


async def exchange(client, app: dict, code: str, verifier: str | None, redirect_uri: str = CALLBACK):
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "client_id": app["client_id"], "code_verifier": verifier}
    return await client.post("/oauth/token", content=urlencode({k: v for k, v in form.items() if v is not None}),
                             headers={"Content-Type": "application/x-www-form-urlencoded"})


async def granted(client, scopes=("read", "play")) -> tuple[dict, dict, dict]:
    """An app, a player and the tokens the player granted it."""
    app, who = await app_of(client, scopes), await player(client, unique())
    verifier, challenge = pkce()
    code = (await authorize(client, who, ask(app, challenge)))["code"]
    resp = await exchange(client, app, code, verifier)
    assert resp.status_code == 200, resp.text
    return app, who, resp.json()


async def refresh(client, app: dict, refresh_token: str):
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": app["client_id"]}
    return await client.post("/oauth/token", content=urlencode(form),
                             headers={"Content-Type": "application/x-www-form-urlencoded"})


async def test_the_consent_request_names_the_app_and_the_scopes(client):
    app, who = await app_of(client), await player(client, unique())
    resp = await client.get(f"/v1/oauth/authorize?{ask(app, pkce()[1])}", headers=who["headers"])
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"client_id": app["client_id"], "name": "Board Buddy", "scopes": ["read", "play"],
                           "redirect_uri": CALLBACK}


async def test_a_granted_app_acts_within_its_scopes_until_its_token_expires_or_is_refreshed(client):
    app, who, tokens = await granted(client)
    assert tokens["token_type"] == "Bearer" and tokens["scope"] == "read play" and tokens["expires_in"] == 3600
    me = await client.get("/v1/players/me", headers=bearer(tokens["access_token"]))
    assert me.json()["id"] == who["id"]
    made = await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {}},
                             headers=bearer(tokens["access_token"]))
    assert made.status_code == 201, made.text
    organise = await client.post("/v1/tournaments", json={}, headers=bearer(tokens["access_token"]))
    assert (organise.status_code, organise.json()["code"]) == (403, "insufficient_scope")
    account = await client.post("/v1/players/me/tokens", json={"name": "x", "scopes": ["read"]},
                                headers=bearer(tokens["access_token"]))
    assert account.status_code == 403  # an app never manages the account
    fresh = await refresh(client, app, tokens["refresh_token"])
    assert fresh.status_code == 200, fresh.text
    assert fresh.json()["refresh_token"] != tokens["refresh_token"]
    assert (await client.get("/v1/players/me", headers=bearer(fresh.json()["access_token"]))).status_code == 200


async def test_a_replayed_code_is_refused_and_revokes_the_tokens_it_gave(client):
    app, who = await app_of(client), await player(client, unique())
    verifier, challenge = pkce()
    code = (await authorize(client, who, ask(app, challenge)))["code"]
    first = await exchange(client, app, code, verifier)
    assert first.status_code == 200
    again = await exchange(client, app, code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert (await client.get("/v1/players/me", headers=bearer(first.json()["access_token"]))).status_code == 401


async def test_a_replayed_refresh_token_is_refused_and_ends_its_grant(client):
    app, _, tokens = await granted(client)
    rotated = await refresh(client, app, tokens["refresh_token"])
    assert rotated.status_code == 200
    replay = await refresh(client, app, tokens["refresh_token"])
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert (await client.get("/v1/players/me", headers=bearer(rotated.json()["access_token"]))).status_code == 401
    assert (await refresh(client, app, rotated.json()["refresh_token"])).status_code == 400


async def test_pkce_is_required_and_only_s256(client):
    app, who = await app_of(client), await player(client, unique())
    verifier, challenge = pkce()
    for query in (ask(app, verifier, code_challenge_method="plain"), ask(app, None),
                  ask(app, challenge, code_challenge_method=None)):
        resp = await client.get(f"/v1/oauth/authorize?{query}", headers=who["headers"])
        assert (resp.status_code, resp.json()["code"]) == (422, "oauth.invalid_request"), query
        answer = await authorize(client, who, query)  # the app hears of it at its registered URI
        assert answer["error"] == "invalid_request" and "code" not in answer
    code = (await authorize(client, who, ask(app, challenge)))["code"]
    missing = await exchange(client, app, code, None)
    assert missing.status_code == 400 and missing.json()["error"] == "invalid_request"
    code = (await authorize(client, who, ask(app, challenge)))["code"]
    wrong = await exchange(client, app, code, pkce()[0])
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    code = (await authorize(client, who, ask(app, challenge)))["code"]
    plain = await exchange(client, app, code, challenge)  # the challenge itself as a "plain" verifier
    assert plain.status_code == 400 and plain.json()["error"] == "invalid_grant"


async def test_a_redirect_uri_must_match_exactly(client):
    app, who = await app_of(client), await player(client, unique())
    verifier, challenge = pkce()
    for uri in (CALLBACK + "/", CALLBACK + "?x=1", "http://127.0.0.1:9/other", "https://evil.example/callback"):
        resp = await client.get(f"/v1/oauth/authorize?{ask(app, challenge, redirect_uri=uri)}", headers=who["headers"])
        assert resp.status_code == 422, uri
        decided = await client.post("/v1/oauth/authorize", json={"request": ask(app, challenge, redirect_uri=uri),
                                                                 "allow": True}, headers=who["headers"])
        assert decided.status_code == 422, uri  # never sent to an unregistered URI
    code = (await authorize(client, who, ask(app, challenge)))["code"]
    resp = await exchange(client, app, code, verifier, redirect_uri="http://127.0.0.1:9/other")
    assert resp.status_code == 400 and resp.json()["error"] == "invalid_grant"
    bad = await client.post("/v1/oauth/apps", json={"name": "x", "redirect_uris": ["http://evil.example/cb"],
                                                    "scopes": ["read"]}, headers=who["headers"])
    assert (bad.status_code, bad.json()["code"]) == (422, "invalid_redirect_uri")


async def test_an_app_gets_no_scope_beyond_what_it_registered(client):
    app, who = await app_of(client, scopes=("read",)), await player(client, unique())
    verifier, challenge = pkce()
    consent = await client.get(f"/v1/oauth/authorize?{ask(app, challenge, scope='read play tournaments:organise')}",
                               headers=who["headers"])
    assert consent.json()["scopes"] == ["read"]
    code = (await authorize(client, who, ask(app, challenge, scope="read play")))["code"]
    tokens = (await exchange(client, app, code, verifier)).json()
    assert tokens["scope"] == "read"
    play = await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {}},
                             headers=bearer(tokens["access_token"]))
    assert play.status_code == 403
    unknown = await client.get(f"/v1/oauth/authorize?{ask(app, challenge, scope='admin')}", headers=who["headers"])
    assert unknown.status_code == 422 and unknown.json()["code"] == "oauth.invalid_scope"
    wider = await refresh(client, app, tokens["refresh_token"])
    assert wider.status_code == 200 and wider.json()["scope"] == "read"


async def test_a_denied_request_sends_the_app_access_denied(client):
    app, who = await app_of(client), await player(client, unique())
    answer = await authorize(client, who, ask(app, pkce()[1]), allow=False)
    assert (answer["error"], answer["state"]) == ("access_denied", "s-42") and "code" not in answer


async def test_a_revoked_apps_tokens_and_tickets_are_refused(client):
    app, who, tokens = await granted(client)
    listed = (await client.get("/v1/players/me/apps", headers=who["headers"])).json()
    assert [(a["client_id"], a["scopes"]) for a in listed] == [(app["client_id"], ["read", "play"])]
    ticket = await client.post("/v1/players/me/stream-tickets", headers=bearer(tokens["access_token"]))
    assert ticket.status_code == 201
    assert (await client.delete(f"/v1/players/me/apps/{app['client_id']}", headers=who["headers"])).status_code == 204
    assert (await client.get("/v1/players/me", headers=bearer(tokens["access_token"]))).status_code == 401
    stream = await client.get(f"/v1/players/me/stream?ticket={ticket.json()['ticket']}")
    assert stream.status_code == 401
    assert (await refresh(client, app, tokens["refresh_token"])).status_code == 400
    assert (await client.get("/v1/players/me/apps", headers=who["headers"])).json() == []
    again = await client.delete(f"/v1/players/me/apps/{app['client_id']}", headers=who["headers"])
    assert (again.status_code, again.json()["code"]) == (404, "app_not_found")


async def test_the_discovery_document_describes_the_server(client):
    resp = await client.get("/.well-known/oauth-authorization-server")
    assert resp.status_code == 200
    doc, issuer = resp.json(), client.app.state.services.settings.issuer
    assert doc["issuer"] == issuer == "http://127.0.0.1:8000"  # no public URL set: where `stela serve` listens
    assert doc["token_endpoint"] == issuer + "/oauth/token"
    assert doc["revocation_endpoint"] == issuer + "/oauth/revoke"
    assert doc["authorization_endpoint"] == issuer + "/consent.html"
    assert doc["code_challenge_methods_supported"] == ["S256"]
    assert doc["scopes_supported"] == ["read", "play", "tournaments:organise"]


def test_the_discovery_document_is_valid_by_rfc_8414():
    from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

    from service.edge.routes.oauth import metadata

    AuthorizationServerMetadata(metadata("https://stela.example")).validate()


async def test_streams_opened_with_a_revoked_apps_token_end(settings, games):
    import asyncio

    import httpx

    from service.edge.app import create_app
    from tests.service.live.test_sse import collect, wait_for
    from testkit.live import serving

    with serving(create_app(settings, games=games)) as base:
        async with httpx.AsyncClient(base_url=base) as client:
            app, who, tokens = await granted(client)
            ticket = (await client.post("/v1/players/me/stream-tickets",
                                        headers=bearer(tokens["access_token"]))).json()["ticket"]
            frames: dict[str, list] = {"ticket": [], "bearer": [], "first token": []}
            tasks = {
                "ticket": asyncio.create_task(collect(client, f"/v1/players/me/stream?ticket={ticket}", {},
                                                      frames["ticket"])),
                "bearer": asyncio.create_task(collect(client, "/v1/players/me/stream",
                                                      bearer(tokens["access_token"]), frames["bearer"])),
                "first token": asyncio.create_task(collect(client, "/v1/players/me/stream", who["headers"],
                                                           frames["first token"]))}
            await wait_for(lambda: all(frames.values()), timeout=60)
            assert (await client.delete(f"/v1/players/me/apps/{app['client_id']}",
                                        headers=who["headers"])).status_code == 204
            await wait_for(lambda: tasks["ticket"].done() and tasks["bearer"].done(), timeout=60)
            assert not tasks["first token"].done()  # the player's own stream goes on
            tasks["first token"].cancel()


async def test_the_token_endpoint_bounds_its_form_and_headers_as_every_route_does(client):
    """Issue 43: the form route went around the edge's limits (no 431) and a 40,000-field form cost 30 s of CPU."""
    from service.edge.routes.oauth import TOKEN_FORM_BYTES

    form = {"Content-Type": "application/x-www-form-urlencoded"}
    many = "&".join(f"f{i}=x" for i in range(40_000)).encode()
    resp = await client.post("/oauth/token", content=many, headers=form)
    assert resp.status_code == 413 and resp.json()["code"] == "payload_too_large", resp.text
    resp = await client.post("/oauth/token", content=b"grant_type=refresh_token",
                             headers={**form, "X-Pad": "x" * 40_000})
    assert resp.status_code == 431, resp.text
    within = ("grant_type=refresh_token&refresh_token=x&" + "&".join(f"f{i}=" for i in range(3_000)))[:TOKEN_FORM_BYTES]
    resp = await client.post("/oauth/token", content=within.encode(), headers=form)
    assert resp.status_code in (400, 401) and "error" in resp.json(), resp.text


def test_a_forms_parameters_are_grouped_in_one_pass():
    """`_Request` grouped every key's values by scanning the whole form again for each key (quadratic)."""
    import time

    from service.commands.oauth import Wire, _Request

    params = [(f"f{i}", "x") for i in range(40_000)] + [("grant_type", "a"), ("grant_type", "b")]
    started = time.thread_time()
    request = _Request(Wire("POST", "https://x/oauth/token", {}, params))
    assert time.thread_time() - started < 1.0  # was ~30 s; one pass takes a few ms
    assert request.payload.datalist["grant_type"] == ["a", "b"] and request.payload.data["grant_type"] == "a"


def form(path_params: dict) -> dict:
    return {"content": urlencode({k: v for k, v in path_params.items() if v is not None}),
            "headers": {"Content-Type": "application/x-www-form-urlencoded"}}


async def revoke(client, app: dict, token: str | None, hint: str | None = None, client_id: str | None = None):
    return await client.post("/oauth/revoke", **form({"token": token, "token_type_hint": hint,
                                                      "client_id": client_id or app["client_id"]}))


async def works(client, access_token: str) -> bool:
    return (await client.get("/v1/players/me", headers=bearer(access_token))).status_code == 200


async def test_revoking_a_refresh_token_ends_that_grant_only(client):
    """RFC 7009: an app logging out on one device ends that device's grant, not the player's others."""
    app, who = await app_of(client), await player(client, unique())
    devices = []
    for _ in range(2):
        verifier, challenge = pkce()
        code = (await authorize(client, who, ask(app, challenge)))["code"]
        devices.append((await exchange(client, app, code, verifier)).json())
    rotated = (await refresh(client, app, devices[0]["refresh_token"])).json()  # the grant moved on once
    resp = await revoke(client, app, rotated["refresh_token"], "refresh_token")
    assert resp.status_code == 200 and resp.json() == {}, resp.text
    assert not await works(client, rotated["access_token"])
    assert (await refresh(client, app, rotated["refresh_token"])).status_code == 400
    assert await works(client, devices[1]["access_token"])  # the other device's grant
    assert (await refresh(client, app, devices[1]["refresh_token"])).status_code == 200


async def test_revoking_an_access_token_ends_its_grant_and_an_unknown_token_is_answered_alike(client):
    app, _, tokens = await granted(client)
    for token in (tokens["access_token"], tokens["access_token"], "stl_never-issued"):
        resp = await revoke(client, app, token)  # no hint: found as whichever it is (RFC 7009 2.1)
        assert resp.status_code == 200 and resp.json() == {}
    assert not await works(client, tokens["access_token"])
    assert (await refresh(client, app, tokens["refresh_token"])).status_code == 400


async def test_an_app_cannot_revoke_another_apps_token_nor_a_players_own(client):
    app, who, tokens = await granted(client)
    other = await app_of(client)
    resp = await revoke(client, other, tokens["refresh_token"])
    assert (resp.status_code, resp.json()["error"]) == (400, "invalid_grant")
    assert (await revoke(client, app, who["token"])).status_code == 200  # not an app's token: nothing happens
    assert await works(client, tokens["access_token"]) and await works(client, who["token"])


@pytest.fixture
async def public(settings, games):
    """An app whose public URL is set (and so its OAuth issuer)."""
    import msgspec
    from litestar.testing import AsyncTestClient

    from service.edge.app import create_app

    app = create_app(msgspec.structs.replace(settings, public_url="https://stela.example/"), games=games)
    async with AsyncTestClient(app, timeout=30) as c:
        yield c


async def test_the_issuer_comes_from_the_settings_never_from_the_host_header(public):
    for host in ("stela.example", "evil.example", "127.0.0.1"):
        doc = (await public.get("/.well-known/oauth-authorization-server", headers={"Host": host})).json()
        assert doc["issuer"] == "https://stela.example", host
        assert doc["token_endpoint"] == "https://stela.example/oauth/token"
        assert doc["revocation_endpoint"] == "https://stela.example/oauth/revoke"
        assert doc["authorization_endpoint"] == "https://stela.example/consent.html"


def test_the_oauth_issuer_setting_wins_over_the_public_url():
    from service.ops.settings import Settings

    both = Settings.from_env({"STELA_PUBLIC_URL": "https://api.example", "STELA_OAUTH_ISSUER": "https://id.example/"})
    assert (both.issuer, Settings.from_env({"STELA_PUBLIC_URL": "https://api.example"}).issuer) == (
        "https://id.example", "https://api.example")
    assert Settings.from_env({"STELA_HOST": "0.0.0.0", "STELA_PORT": "8080"}).issuer == "http://0.0.0.0:8080"


async def test_the_consent_page_may_not_be_framed_and_other_pages_are_unchanged(client):
    page = await client.get("/consent.html")
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert page.headers["content-security-policy"] == "frame-ancestors 'none'"
    assert page.headers["x-frame-options"] == "DENY"
    lobby = await client.get("/")
    assert lobby.status_code == 200 and "x-frame-options" not in lobby.headers


# -- every refusal docs/accounts.md lists, made as it says, answered as it says --------------------------


async def _consent(client, **overrides) -> tuple[int, str]:
    app, who = await app_of(client), await player(client, unique())
    resp = await client.get(f"/v1/oauth/authorize?{ask(app, pkce()[1], **overrides)}", headers=who["headers"])
    return resp.status_code, resp.json()["code"]


async def _token(client, form_fields: dict) -> tuple[int, str]:
    resp = await client.post("/oauth/token", **form(form_fields))
    return resp.status_code, resp.json()["error"]


async def _code(client, app: dict | None = None) -> tuple[dict, str, str]:
    """An app, a fresh code for it and the code's verifier."""
    app, who = app or await app_of(client), await player(client, unique())
    verifier, challenge = pkce()
    return app, (await authorize(client, who, ask(app, challenge)))["code"], verifier


def _answer(resp) -> tuple[int, str]:
    body = resp.json()
    return resp.status_code, body.get("code") or body.get("error")


async def _code_replay(client) -> tuple[int, str]:
    app, code, verifier = await _code(client)
    await exchange(client, app, code, verifier)
    return _answer(await exchange(client, app, code, verifier))


async def _refresh_replay(client) -> tuple[int, str]:
    app, _, tokens = await granted(client)
    await refresh(client, app, tokens["refresh_token"])
    return _answer(await refresh(client, app, tokens["refresh_token"]))


async def _other_apps_code(client) -> tuple[int, str]:
    app, code, verifier = await _code(client)
    return _answer(await exchange(client, await app_of(client), code, verifier))


async def _insecure_redirect(client) -> tuple[int, str]:
    owner = await player(client, unique("Dev"))
    return _answer(await client.post("/v1/oauth/apps", json={"name": "x", "redirect_uris": ["http://a.example/cb"],
                                                             "scopes": ["read"]}, headers=owner["headers"]))


async def _spoofing_app_name(client) -> tuple[int, str]:
    owner = await player(client, unique("Dev"))
    return _answer(await client.post("/v1/oauth/apps", json={"name": "Stela\u202e Official", "scopes": ["read"],
                                                             "redirect_uris": [CALLBACK]}, headers=owner["headers"]))


async def _revoke_other_app(client) -> tuple[int, str]:
    _, _, tokens = await granted(client)
    return _answer(await revoke(client, await app_of(client), tokens["refresh_token"]))


async def _with_code(client, make) -> tuple[int, str]:
    app, code, verifier = await _code(client)
    return _answer(await make(app, code, verifier))


PROBES = {
    "pkce_plain": lambda c: _consent(c, code_challenge_method="plain"),
    "pkce_missing": lambda c: _consent(c, code_challenge=None),
    "pkce_no_method": lambda c: _consent(c, code_challenge_method=None),
    "unknown_app": lambda c: _consent(c, client_id="app_nobody"),
    "unregistered_redirect": lambda c: _consent(c, redirect_uri="http://127.0.0.1:9/other"),
    "unknown_scope": lambda c: _consent(c, scope="admin"),
    "bad_response_type": lambda c: _consent(c, response_type="token"),
    "insecure_redirect": _insecure_redirect,
    "spoofing_app_name": _spoofing_app_name,
    "verifier_missing": lambda c: _with_code(c, lambda a, code, v: exchange(c, a, code, None)),
    "verifier_wrong": lambda c: _with_code(c, lambda a, code, v: exchange(c, a, code, pkce()[0])),
    "code_replay": _code_replay,
    "redirect_mismatch": lambda c: _with_code(
        c, lambda a, code, v: exchange(c, a, code, v, redirect_uri="http://127.0.0.1:9/other")),
    "refresh_replay": _refresh_replay,
    "other_apps_code": _other_apps_code,
    "unknown_client": lambda c: _token(c, {"grant_type": "refresh_token", "refresh_token": "x",
                                           "client_id": "app_nobody"}),
    "grant_type": lambda c: _with_code(c, lambda a, code, v: c.post("/oauth/token", **form(
        {"grant_type": "password", "client_id": a["client_id"], "username": "x", "password": "y"}))),
    "revoke_no_token": lambda c: _with_code(c, lambda a, code, v: revoke(c, a, None)),
    "revoke_bad_hint": lambda c: _with_code(c, lambda a, code, v: revoke(c, a, "x", "id_token")),
    "revoke_other_app": _revoke_other_app,
    "revoke_unknown_client": lambda c: _with_code(c, lambda a, code, v: revoke(c, a, "x", client_id="app_nobody")),
}


def documented_refusals() -> dict[str, tuple[int, str]]:
    import re
    from pathlib import Path

    text = (Path(__file__).parents[3] / "docs" / "accounts.md").read_text()
    rows = re.findall(r"^\| `(\w+)`: .* \| \w+ \| (\d{3}) `([\w.]+)` \|$", text, re.MULTILINE)
    return {name: (int(status), code) for name, status, code in rows}


async def test_each_documented_refusal_is_answered_as_documented(client):
    documented = documented_refusals()
    assert sorted(documented) == sorted(PROBES)  # every refusal documented is made here, and no other
    answers = {name: await probe(client) for name, probe in PROBES.items()}
    assert answers == documented
