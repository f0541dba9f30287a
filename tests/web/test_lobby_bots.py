"""The lobby offers a game against a bot of every kind; a bot worker (over HTTP, in a thread) joins, starts
and plays it."""

from __future__ import annotations

import httpx

from tests.web.conftest import bot_site, browser, screenshot  # noqa: F401  (the site with a bot worker; Chromium)
from tests.web.support import register, wait_until


def test_the_lobby_offers_a_game_against_a_bot_of_every_kind(bot_site, browser):
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    try:
        me = register(page, bot_site, "Solo")
        for kind in [k["kind"] for k in httpx.get(bot_site + "/v1/kinds").json()]:
            page.goto(bot_site + "/")
            page.wait_for_selector("#play-bots")
            page.select_option("#bot-kind", kind)
            page.select_option("#bot-strategy", "greedy")
            page.fill("#bot-strength", "4")
            page.click("#play-bots button[type=submit]")
            wait_until(page, lambda: "#/game/" in page.url, f"the {kind} game's page")
            game_id = page.url.rsplit("/", 1)[1]
            game = wait_until(page, lambda: (g := httpx.get(f"{bot_site}/v1/games/{game_id}").json())["status"] == "active"
                              and g, f"the bot starting the {kind} game", 90)
            names = [s["name"] for s in game["seats"]]
            assert names[0] == "Solo" and all(n.startswith("Greedy bot ") for n in names[1:]), names
            assert len(set(names)) == len(names), names  # each bot a name of its own
            assert game["seats"][0]["player_id"] == me["id"]
        screenshot(page, "web-lobby-bot-game.png")
    finally:
        context.close()
