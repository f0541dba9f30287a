"""Every page besides the boards is drawn in the boards' language, readable on a desk and on a phone.

At 1280x900 and 390x844: the welcome (register and sign in), the lobby with its account, the competitions (one
list, one form) and the one competition page, for a tournament and an arena, each with the organiser's tools. On
each: no text under 12 px, nothing wider than the screen, and no bare default form control (every visible input,
select and button framed by the shared style: a border of the boards' colours and rounded corners). Each is
screenshotted (into docs/screenshots/ under `make screenshots`). The OAuth consent page is checked alike in test_oauth_consent.py.
"""

from __future__ import annotations

import httpx
import pytest

from tests.web.conftest import browser, site  # noqa: F401  (the service in-process; Chromium)
from tests.web.support import check_page, register, wait_until

@pytest.mark.parametrize("size", [(1280, 900), (390, 844)])
def test_every_page_is_drawn_like_the_boards_at_both_sizes(size, site, browser):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 600, has_touch=width < 600)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(site + "/")
        page.wait_for_selector("#signin")
        check_page(page, "welcome")
        me = register(page, site, f"Org {width}")
        wait_until(page, lambda: page.locator("#my-games li").count() and page.locator("#open-games li").count(), "the lobby's lists")
        check_page(page, "lobby")
        auth = {"Authorization": f"Bearer {me['token']}"}
        tournament = httpx.post(f"{site}/v1/tournaments", headers=auth, json={
            "kind": "tikal", "name": "Autumn cup", "seats": 2, "format": "swiss", "rounds": 3}).json()
        arena = httpx.post(f"{site}/v1/arenas", headers=auth, json={
            "kind": "goldmine", "name": "Night arena", "seats": 2, "minutes": 30}).json()
        for route, ready, name in (("#/competitions", "#competitions li[data-format=swiss]", "competitions"),
                                   (f"#/tournament/{tournament['tournament_id']}", "#t-bots", "tournament"),
                                   (f"#/arena/{arena['arena_id']}", "#a-countdown", "arena")):
            page.goto(f"{site}/{route}")
            page.wait_for_selector(ready)
            check_page(page, name)
        assert not errors, errors
    finally:
        context.close()
