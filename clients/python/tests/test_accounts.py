"""Accounts, personal access tokens and OAuth apps through both clients, against a real server.

The synchronous client signs up and in with a password and makes a scoped token (a stranger's guesses meet
the sign-in throttle, raised at once); an app (registered by
its developer) gets a player's consent with PKCE, exchanges the code, refreshes with rotation (the spent
refresh token is refused after) and logs out with RFC 7009 revocation, which ends that grant only."""

from __future__ import annotations

import contextlib
import uuid

import pytest
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from stela_client import (
    Client, Forbidden, InvalidRequest, RateLimited, SyncClient, Unauthorized, authorization_request, s256,
)
from stela_client.oauth import OAuthDenied, StateMismatch

REDIRECT = "http://127.0.0.1:8765/back"


def _login() -> str:
    return f"ann-{uuid.uuid4().hex[:8]}"


def test_sign_up_sign_in_and_a_scoped_token_with_the_synchronous_client(server):
    login, password = _login(), "correct horse battery"
    with SyncClient(server.url) as ann:
        player = ann.register("Ann")
        assert ann.set_password(password, login=login).login == login
        with SyncClient(server.url) as again:
            session = again.sign_in(login, password)
            assert again.token == session.token != player.token and session.player_id == player.id
            assert again.me().id == player.id
            reader = again.create_token("reader", ["read"])
            assert reader.scopes == ["read"] and reader.kind == "personal"
            assert reader.id in {t.id for t in again.tokens()}
            with SyncClient(server.url, reader.token) as read_only:
                assert read_only.me().id == player.id
                with pytest.raises(Forbidden) as refused:
                    read_only.create_game("coatl", 2)
                assert refused.value.code == "insufficient_scope"
            again.revoke_access_token(reader.id)
            with SyncClient(server.url, reader.token) as revoked, pytest.raises(Unauthorized):
                revoked.me()
        with SyncClient(server.url) as stranger, pytest.raises(Unauthorized) as wrong:
            stranger.sign_in(login, "not the password")
        assert wrong.value.code == "sign_in_failed"
    with SyncClient(server.url) as stranger:  # the throttle's 15 minutes are raised at once, not waited for
        with pytest.raises(RateLimited) as throttled:
            for _ in range(20):
                with contextlib.suppress(Unauthorized):
                    stranger.sign_in(login, "still not the password")
        assert throttled.value.code == "sign_in_throttled" and throttled.value.retry_after
        assert throttled.value.retry_after > stranger.backoff.max_wait and stranger.counters.throttled == 0


def test_the_authorization_request_carries_state_and_an_s256_challenge_and_checks_the_redirect():
    request = authorization_request("https://stela.example/", "app-1", REDIRECT, ["read", "play"])
    assert request.url.startswith("https://stela.example/consent.html?response_type=code&client_id=app-1&")
    assert "code_challenge_method=S256" in request.query and f"code_challenge={request.challenge}" in request.query
    assert request.challenge == s256(request.verifier) and 43 <= len(request.verifier) <= 128
    assert "scope=read+play" in request.query
    other = authorization_request("https://stela.example", "app-1", REDIRECT, ["read"])
    assert other.state != request.state and other.verifier != request.verifier
    assert request.code_from(f"{REDIRECT}?code=abc&state={request.state}") == "abc"
    with pytest.raises(StateMismatch):
        request.code_from(f"{REDIRECT}?code=abc&state={other.state}")
    with pytest.raises(OAuthDenied) as denied:
        request.code_from(f"{REDIRECT}?error=access_denied&state={request.state}")
    assert denied.value.error == "access_denied"
    assert s256(request.verifier) == create_s256_code_challenge(request.verifier)  # the server's library agrees


async def _consent(player: Client, query: str, allow: bool = True) -> str:
    """What the consent page does for a signed-in player: show the request, post the answer."""
    shown = await player.describe_authorization(query)
    assert shown.redirect_uri == REDIRECT
    return (await player.decide_authorization(query, allow)).redirect_to


async def test_pkce_code_exchange_refresh_rotation_and_revocation(server):
    async with Client(server.url) as dev, Client(server.url) as ann, Client(server.url) as app, \
            Client(server.url) as other_device:
        await dev.register("Dev")
        made = await dev.register_app("Sample", [REDIRECT], ["read", "play"])
        assert (await dev.oauth_metadata())["revocation_endpoint"].endswith("/oauth/revoke")
        me = await ann.register("Ann")

        request = authorization_request(server.url, made.client_id, REDIRECT, ["read", "play"])
        code = request.code_from(await _consent(ann, request.query))
        tokens = await app.exchange_code(made.client_id, code, REDIRECT, request.verifier)
        assert app.token == tokens.access_token and app.refresh_token == tokens.refresh_token
        assert set(tokens.scope.split()) == {"read", "play"}
        assert (await app.me()).id == me.id
        game = await app.create_game("coatl", 2)  # `play` was granted
        assert game.seats[0].player_id == me.id

        spent = app.refresh_token
        fresh = await app.refresh(made.client_id)
        assert fresh.refresh_token != spent and app.token == fresh.access_token
        assert (await app.me()).id == me.id
        with pytest.raises(InvalidRequest) as replayed:
            await other_device.refresh(made.client_id, spent)  # a rotated refresh token used again
        assert replayed.value.code == "invalid_grant"

        # the replay revoked that grant (RFC 9700 4.14.2); a second device's own grant is not it
        second = authorization_request(server.url, made.client_id, REDIRECT, ["read"])
        await other_device.exchange_code(made.client_id, second.code_from(await _consent(ann, second.query)),
                                         REDIRECT, second.verifier)
        assert (await other_device.me()).id == me.id
        assert made.client_id in {a.client_id for a in await ann.authorized_apps()}

        third = authorization_request(server.url, made.client_id, REDIRECT, ["read"])
        async with Client(server.url) as laptop:
            await laptop.exchange_code(made.client_id, third.code_from(await _consent(ann, third.query)),
                                       REDIRECT, third.verifier)
            access = laptop.token
            await laptop.revoke_grant(made.client_id)  # logging out: this grant only
            assert laptop.token is None and laptop.refresh_token is None
            with pytest.raises(Unauthorized):
                await ann.as_player(access).me()
        assert (await other_device.me()).id == me.id  # the other device's grant stays

        denied = authorization_request(server.url, made.client_id, REDIRECT, ["read"])
        with pytest.raises(OAuthDenied):
            denied.code_from(await _consent(ann, denied.query, allow=False))

        await ann.revoke_app(made.client_id)
        with pytest.raises(Unauthorized):
            await other_device.me()
        assert made.client_id not in {a.client_id for a in await ann.authorized_apps()}
