"""The lobby offers a game against a bot of every kind; a bot worker (over HTTP, in a thread) joins, starts
and plays it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import fresh_database
from testkit.live import serving
from tests.web.conftest import browser, screenshot  # noqa: F401  (Debian's Chromium)
from tests.web.support import register, wait_until


ADMIN = "web-bot-worker-secret"


@pytest.fixture(scope="module")
def bot_site() -> Iterator[str]:
    """The site with an admin token, and a bot worker playing the bots its players ask for (in a thread)."""
    from service.bots.runner import BotWorker
    from service.edge.app import create_app
    from service.ops.settings import Settings

    with fresh_database("stela_web_bots") as dsn:
        settings = Settings(database_url=dsn, redis_url=None, rate_limit=0, heartbeat_seconds=1, snapshot_every=20,
                            log_level="warning", projector="embedded", admin_token=ADMIN, env="development")
        with serving(create_app(settings)) as url:
            loop = asyncio.new_event_loop()
            stop = asyncio.Event()

            async def work() -> None:
                async with httpx.AsyncClient(base_url=url, timeout=30) as http:
                    await BotWorker(http, ADMIN, "web", lease_seconds=6).run(stop)

            thread = threading.Thread(target=loop.run_until_complete, args=(work(),), daemon=True)
            thread.start()
            try:
                yield url
            finally:
                loop.call_soon_threadsafe(stop.set)
                thread.join(30)


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
