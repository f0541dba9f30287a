"""The organiser adds bots from the tournament page (count, strategy, strength): they enter the standings, live,
each with a name of its own, and only the organiser is offered the control."""

from __future__ import annotations

import httpx

from tests.web.support import OPTIONS, register, wait_until


def test_the_organiser_adds_bots_from_the_tournament_page(site, browser):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    try:
        organiser = register(page, site, "Olga")
        made = httpx.post(f"{site}/v1/tournaments", headers={"Authorization": f"Bearer {organiser['token']}"},
                          json={"kind": "goldmine", "name": "Bot night", "seats": 2, "rounds": 1,
                                "options": OPTIONS["goldmine"]})
        assert made.status_code == 201, made.text
        tid = made.json()["tournament_id"]
        page.goto(f"{site}/#/tournament/{tid}")
        page.wait_for_selector("#t-bots-add")
        page.fill("#t-bots-count", "3")
        page.select_option("#t-bots-strategy", "random")
        page.fill("#t-bots-strength", "2")
        page.click("#t-bots-add")
        wait_until(page, lambda: page.locator("#t-standings tbody tr").count() == 3, "three bots in the standings")
        names = [s["name"] for s in httpx.get(f"{site}/v1/tournaments/{tid}").json()["standings"]]
        assert len(set(names)) == 3 and all(n.startswith("Random bot ") for n in names), names
        wait_until(page, lambda: page.locator("#t-start").is_enabled(), "the start offered with the bots")

        other = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        try:
            register(other, site, "Pia")
            other.goto(f"{site}/#/tournament/{tid}")
            other.wait_for_selector("#t-register")
            assert other.locator("#t-bots-add").count() == 0  # an entrant has no organiser's tools
        finally:
            other.context.close()
    finally:
        context.close()
