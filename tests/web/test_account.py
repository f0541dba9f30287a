"""The lobby's Account panel in Chromium: a player signs in by login and changes the password there, the
current one asked for; the change ends the player's other tokens (docs/accounts.md)."""

from __future__ import annotations

import uuid

import httpx

from tests.web.support import wait_until


def test_a_player_changes_the_password_in_the_lobby_and_the_other_tokens_end(site, browser):
    name = f"Lee-{uuid.uuid4().hex[:6]}"
    lee = httpx.post(site + "/v1/players", json={"name": name}).json()
    first = {"Authorization": f"Bearer {lee['token']}"}
    login = httpx.post(site + "/v1/players/me/password", json={"password": "first secret"}, headers=first).json()["login"]
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(site + "/")
        page.fill("#signin-name", login)
        page.fill("#signin-password", "first secret")
        page.click("#signin button[type=submit]")
        page.wait_for_selector("#password-form")
        page.fill("#current-password", "not my password")
        page.fill("#new-password", "second secret")
        page.click("#password-form button[type=submit]")
        wait_until(page, lambda: "current password is wrong" in page.inner_text("#status"), "the refusal")
        page.fill("#current-password", "first secret")
        page.fill("#new-password", "second secret")
        page.click("#password-form button[type=submit]")
        wait_until(page, lambda: "Password set" in page.inner_text("#status"), "the change")
        assert page.inner_text("#status") == f"Password set: sign in as {login}; 1 other token(s) ended"
        assert httpx.get(site + "/v1/players/me", headers=first).status_code == 401  # the first token ended
        again = httpx.post(site + "/v1/sessions", json={"login": login, "password": "second secret"})
        assert again.status_code == 201 and again.json()["player_id"] == lee["id"]
    finally:
        context.close()
