"""The whole OAuth flow in Chromium: a sample app on another origin sends the player to the consent page, the
player signs in with a password there, sees the app and its scopes, allows it; the app exchanges the code
(PKCE S256) and acts as the player, refreshes its token; the player revokes the app in the lobby and the
app is refused."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest

from testkit.live import static_files
from tests.web.conftest import screenshot
from tests.web.support import check_page, wait_until

APP_PAGE = Path(__file__).parent / "oauth_app"


@pytest.fixture(scope="module")
def app_origin() -> Iterator[str]:
    """The sample app, served from an origin of its own."""
    with static_files(APP_PAGE) as origin:
        yield origin


def registered(site: str, redirect_uri: str) -> tuple[dict, dict]:
    """An app registered by its developer, and a player with a password (name, password)."""
    dev = httpx.post(site + "/v1/players", json={"name": f"Dev-{uuid.uuid4().hex[:6]}"}).json()
    app = httpx.post(site + "/v1/oauth/apps", json={"name": "Board Buddy", "redirect_uris": [redirect_uri],
                                                    "scopes": ["read", "play"]},
                     headers={"Authorization": f"Bearer {dev['token']}"}).json()
    name = f"Kim-{uuid.uuid4().hex[:6]}"
    kim = httpx.post(site + "/v1/players", json={"name": name}).json()
    resp = httpx.post(site + "/v1/players/me/password", json={"password": "a long secret"},
                      headers={"Authorization": f"Bearer {kim['token']}"})
    assert resp.status_code == 200, resp.text
    return app, {"name": name, "password": "a long secret"}


def test_an_app_on_another_origin_gets_scoped_access_by_consent_and_loses_it_when_revoked(site, browser, app_origin):
    app, kim = registered(site, app_origin + "/index.html")
    context = browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{app_origin}/index.html?{urlencode({'api': site, 'client_id': app['client_id']})}")
        page.click("#connect")
        page.wait_for_selector("#signin-name")  # the consent page, on Stela's origin, asks to sign in first
        assert page.url.startswith(site + "/consent.html?")
        page.fill("#signin-name", kim["name"])
        page.fill("#signin-password", kim["password"])
        page.click("#signin button[type=submit]")
        page.wait_for_selector("#allow")
        assert page.inner_text("#app-name") == "Board Buddy"
        assert page.eval_on_selector_all("#scopes li", "els => els.map(e => e.dataset.scope)") == ["read", "play"]
        screenshot(page, "web-oauth-consent.png")
        for width, height in ((1280, 900), (390, 844)):  # drawn like the boards, on a desk and on a phone
            page.set_viewport_size({"width": width, "height": height})
            check_page(page, "consent")
        page.set_viewport_size({"width": 800, "height": 900})
        page.click("#allow")
        wait_until(page, lambda: page.url.startswith(app_origin) and "Connected as" in page.inner_text("#out"),
                   "the app connected")
        assert page.inner_text("#out") == f"Connected as {kim['name']}"
        assert page.evaluate("document.body.dataset.scope") == "read play"
        page.click("#refresh")
        wait_until(page, lambda: "Connected as" in page.inner_text("#out") and
                   page.evaluate("JSON.parse(sessionStorage.getItem('tokens')).refresh_token") is not None,
                   "a refreshed token")
        lobby = context.new_page()
        lobby.goto(site + "/")
        lobby.wait_for_selector(f'#my-apps li[data-app="{app["client_id"]}"] button.revoke')
        lobby.click(f'#my-apps li[data-app="{app["client_id"]}"] button.revoke')
        wait_until(lobby, lambda: "No app acts for you." in lobby.inner_text("#my-apps"), "the app revoked")
        page.click("#whoami")
        wait_until(page, lambda: "Refused" in page.inner_text("#out"), "the app refused")
        assert page.inner_text("#out") == "Refused: 401 unauthorized"
    finally:
        context.close()


def test_a_player_who_denies_sends_the_app_access_denied(site, browser, app_origin):
    app, kim = registered(site, app_origin + "/index.html")
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{app_origin}/index.html?{urlencode({'api': site, 'client_id': app['client_id']})}")
        page.click("#connect")
        page.fill("#signin-name", kim["name"])
        page.fill("#signin-password", kim["password"])
        page.click("#signin button[type=submit]")
        page.click("#deny")
        wait_until(page, lambda: page.url.startswith(app_origin) and "Not connected" in page.inner_text("#out"),
                   "the app told of the refusal")
        assert page.inner_text("#out") == "Not connected: access_denied"
    finally:
        context.close()


def test_the_consent_page_refuses_to_answer_inside_another_sites_frame(site, browser, app_origin):
    app, _ = registered(site, app_origin + "/index.html")
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(app_origin + "/index.html")
        # the frame loads (its load event fires) but the browser shows nothing of Stela's: the page is sent
        # with `frame-ancestors 'none'` and `X-Frame-Options: DENY`, so none of it (and none of its
        # script) runs inside another site's frame
        page.evaluate("""url => new Promise(done => { const f = document.createElement("iframe"); f.id = "framed";
                                  f.onload = done; f.src = url; document.body.append(f); })""",
                      f"{site}/consent.html?client_id={app['client_id']}")
        framed = [f for f in page.frames if f.url.startswith(site)]
        assert all(f.locator("#allow, #signin-name, #refused").count() == 0 for f in framed), [f.url for f in framed]
    finally:
        context.close()
