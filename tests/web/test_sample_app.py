"""The sample third-party app's page (clients/sample-app) in Chromium, on an origin of its own, using only the
TypeScript SDK's dist/: it registers itself as an app, signs a player in with OAuth 2.0 + PKCE through the
consent page, plays a whole game against a bot from the multiplexed stream's turn frames, and logs out
(RFC 7009), after which its token is refused. The Python half runs in clients/python/tests/test_sample_app.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from testkit.live import static_files
from tests.web.support import wait_until

CLIENTS = Path(__file__).parents[2] / "clients"  # the page imports ../typescript/dist/


@pytest.fixture(scope="module")
def app_origin() -> Iterator[str]:
    with static_files(CLIENTS) as origin:
        yield origin


def test_the_sample_page_signs_in_with_pkce_plays_a_game_against_a_bot_and_logs_out(bot_site, browser, app_origin):
    name = f"Kim-{uuid.uuid4().hex[:6]}"
    kim = httpx.post(bot_site + "/v1/players", json={"name": name}).json()
    assert httpx.post(bot_site + "/v1/players/me/password", json={"password": "a long secret"},
                      headers={"Authorization": f"Bearer {kim['token']}"}).status_code == 200
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{app_origin}/sample-app/index.html")
        page.fill("#api", bot_site)
        page.click("#register")
        wait_until(page, lambda: page.input_value("#client-id"), "the app registered")
        page.click("#sign-in")
        page.wait_for_selector("#signin-name")  # Stela's consent page asks the player to sign in
        assert page.url.startswith(bot_site + "/consent.html?")
        page.fill("#signin-name", name)
        page.fill("#signin-password", "a long secret")
        page.click("#signin button[type=submit]")
        page.click("#allow")
        wait_until(page, lambda: page.url.startswith(app_origin) and f"Signed in as {name}." in page.inner_text("#who"),
                   "back on the page, signed in")
        page.click("#play")
        played = 0

        def step() -> bool:
            nonlocal played
            status = page.inner_text("#status")
            if "finished" in status or "aborted" in status:
                return True  # the game is over
            buttons = page.locator("#commands button")
            if "your turn" in status and buttons.count():
                before = page.inner_text("#status")
                buttons.first.click()
                played += 1
                wait_until(page, lambda: page.inner_text("#status") != before, "the stream's next turn frame")
            return False

        wait_until(page, step, "the game's end", deadline_s=300)
        status = page.inner_text("#status")
        assert "finished" in status or "aborted" in status, status
        log = page.inner_text("#log")
        assert played > 0 and "table.GameEnded" in log, (played, log[-500:])
        token = page.evaluate("JSON.parse(sessionStorage.getItem('stela-sample')).accessToken")
        assert httpx.get(bot_site + "/v1/players/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        page.click("#log-out")
        wait_until(page, lambda: page.is_hidden("#game"), "logged out")
        assert httpx.get(bot_site + "/v1/players/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
        assert not errors, errors
    finally:
        context.close()
