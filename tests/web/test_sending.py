"""A command chosen while the last one's answer is still on its way is sent once that answer is in.

The game page hears of its own command twice: the stream's `turn` frame, and the POST's answer. Under load
the frame can come first, and the page then already offers the seat's next command while the last one is
being sent. A click then must not be lost (CI met it in a whole Tobago game: "End turn" clicked in that gap
did nothing, and the game waited on a player who believed they had ended their turn). Here the page's
command answers are held back 2 s in the browser, so the frame always comes first.
"""

from __future__ import annotations

import json

import httpx

from tests.web.conftest import browser  # noqa: F401  (Debian's Chromium)
from tests.web.support import click_in_list, version, wait_until

# every answer to a command POST reaches the page's code `window.__hold` ms late (the request itself goes at once)
HOLD_ANSWERS = """(() => {
  const native = window.fetch.bind(window);
  window.__hold = 0;
  window.fetch = async (input, init) => {
    const answer = await native(input, init);
    const url = typeof input === "string" ? input : input.url;
    const method = (init && init.method) || (typeof input === "string" ? "GET" : input.method);
    if (method === "POST" && /\\/v1\\/games\\/[^/]+\\/commands/.test(url)) await new Promise((done) => setTimeout(done, window.__hold));
    return answer;
  };
})()"""


def test_a_command_chosen_before_the_last_ones_answer_came_is_sent_after_it(site, browser):
    ann, bob = (httpx.post(f"{site}/v1/players", json={"name": n}).json() for n in ("Ann", "Bob"))
    auth = {"Authorization": f"Bearer {ann['token']}"}
    game_id = httpx.post(f"{site}/v1/games", headers=auth, json={"kind": "tikal", "seats": 2}).json()["id"]
    httpx.post(f"{site}/v1/games/{game_id}/join", json={}, headers={"Authorization": f"Bearer {bob['token']}"}).raise_for_status()
    httpx.post(f"{site}/v1/games/{game_id}/start", json={}, headers=auth).raise_for_status()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.add_init_script(HOLD_ANSWERS)
    player = json.dumps({"id": ann["id"], "name": ann["name"], "token": ann["token"]})
    page.add_init_script(f"localStorage.setItem('stela.player', {json.dumps(player)})")
    try:
        page.goto(f"{site}/#/game/{game_id}")
        buttons = page.locator("ol.commands button")
        wait_until(page, lambda: buttons.count(), "Ann's commands")
        start = version(page)
        page.evaluate("window.__hold = 2000")
        click_in_list(page, 0)  # Ann places her tile: her turn goes on
        # the stream's frame shows the next turn, Ann's again, while the answer is held
        wait_until(page, lambda: version(page) > start and buttons.count(), "the frame's next turn, before the answer")
        assert page.inner_text("#status") == "Sending…"
        first = version(page)
        page.evaluate("window.__hold = 0")
        click_in_list(page, 0)  # chosen while the first command is still being sent
        wait_until(page, lambda: version(page) > first, "the second command sent once the first answer came")
        game = httpx.get(f"{site}/v1/games/{game_id}", headers=auth).json()
        assert game["version"] == version(page) and page.inner_text("#status") == "", (game, page.inner_text("#status"))
        assert not errors, errors
    finally:
        context.close()
