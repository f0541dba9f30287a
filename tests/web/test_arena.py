"""An arena run from the web client: organised from the form, joined from two browsers, paired by the service on
its own, followed live (countdown and standings) by a spectator who never reloads; a player pauses and resumes.

What the pages show is checked against the server's own view.
"""

from __future__ import annotations

import httpx

from tests.web.conftest import screenshot
from tests.web.support import register, wait_until


def rows(page) -> dict[str, dict[str, str]]:
    """The standings table as the page shows it, by player id."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#a-standings tbody tr')].map((tr) =>
      [tr.dataset.player, { name: tr.querySelector('th').textContent, points: tr.querySelector('.points').textContent,
        presence: tr.querySelector('.presence').textContent }]))""")


def test_an_arena_is_organised_joined_paired_and_followed_live_in_the_browser(site, browser):
    contexts = [browser.new_context(viewport={"width": 1100, "height": 900}) for _ in range(2)]
    contexts.append(browser.new_context(viewport={"width": 375, "height": 740}))  # the spectator on a phone
    ann, bob, watcher = (c.new_page() for c in contexts)
    try:
        players = [register(ann, site, "Ann"), register(bob, site, "Bob")]
        ann.goto(site + "/#/arenas")
        ann.wait_for_selector("#a-create")
        ann.fill("#a-name", "Blitz night")
        ann.select_option("#a-kind", "coatl")
        ann.fill("#a-minutes", "20")
        ann.fill("#a-clock", "300")
        ann.click("#a-create button[type=submit]")
        wait_until(ann, lambda: "#/arena/" in ann.url, "the new arena's page")
        arena_id = ann.url.rsplit("/", 1)[1]
        created = httpx.get(f"{site}/v1/arenas/{arena_id}").json()
        assert (created["name"], created["kind"], created["berserk"], created["time_control"]["total_seconds"]) == \
            ("Blitz night", "coatl", True, 300)
        assert created["ends_at_ms"] - created["starts_at_ms"] == 20 * 60_000

        watcher.goto(f"{site}/#/arena/{arena_id}")
        wait_until(watcher, lambda: watcher.get_attribute("main", "data-live") == "stream", "the spectator following")
        assert watcher.locator("#a-join").count() == 0  # not signed in: nothing to press
        assert "Ends in" in watcher.text_content("#a-countdown")

        ann.click("#a-join")
        bob.goto(f"{site}/#/arenas")
        entry = bob.locator(f'#arenas li[data-arena="{arena_id}"] a')
        wait_until(bob, lambda: entry.count(), "the arena in Bob's list")
        entry.click()
        bob.wait_for_selector("#a-join")
        bob.click("#a-join")
        # the service pairs them by itself; every page hears it over the stream
        wait_until(ann, lambda: ann.locator("#a-my-game").count(), "Ann's game link")
        wait_until(watcher, lambda: {r["presence"] for r in rows(watcher).values()} == {"playing"}, "the pairing, live")
        server = httpx.get(f"{site}/v1/arenas/{arena_id}").json()
        assert set(rows(watcher)) == {p["id"] for p in players} == {s["player_id"] for s in server["standings"]}
        assert server["running"] == 1
        bob.click("#a-pause")
        wait_until(bob, lambda: bob.locator("#a-join").count(), "Bob's resume button")
        assert httpx.get(f"{site}/v1/arenas/{arena_id}").json()["standings"][1]["presence"] in ("paused", "active")
        bob.click("#a-join")
        wait_until(bob, lambda: bob.locator("#a-pause").count(), "Bob back in the arena")
        assert "null" not in watcher.text_content("main")
        screenshot(watcher, "web-arena.png")
    finally:
        for c in contexts:
            c.close()


def test_the_organiser_adds_bots_from_the_arena_page_and_sees_them_in_the_standings(site, browser):
    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    try:
        organiser = register(page, site, "Olga")
        made = httpx.post(f"{site}/v1/arenas", headers={"Authorization": f"Bearer {organiser['token']}"},
                          json={"kind": "coatl", "name": "Bot arena", "minutes": 20, "berserk": False})
        assert made.status_code == 201, made.text
        arena_id = made.json()["arena_id"]
        page.goto(f"{site}/#/arena/{arena_id}")
        page.wait_for_selector("#a-bots-add")
        page.fill("#a-bots-count", "3")
        page.select_option("#a-bots-strategy", "random")
        page.fill("#a-bots-strength", "2")
        page.click("#a-bots-add")
        wait_until(page, lambda: len(rows(page)) == 3, "three bots in the standings")
        server = httpx.get(f"{site}/v1/arenas/{arena_id}").json()
        assert set(rows(page)) == {s["player_id"] for s in server["standings"]}
        assert all(s["name"].startswith("Random bot ") for s in server["standings"]), server["standings"]

        other = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        try:
            register(other, site, "Pia")
            other.goto(f"{site}/#/arena/{arena_id}")
            other.wait_for_selector("#a-join")
            assert other.locator("#a-bots-add").count() == 0  # only the organiser is offered the control
        finally:
            other.context.close()
    finally:
        page.context.close()
