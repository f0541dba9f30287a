"""A tournament run from the web client: organised from the form, entered from two browsers (a third enters and
withdraws), started, its table played to the end through the UI, while a spectator's tournament page follows
every step live.

The spectator never reloads: registrations, the pairing, the result and the final standings must reach
its page over the tournament stream. What the pages show is checked against the server's own view.
"""

from __future__ import annotations

import httpx

from tests.web.conftest import screenshot
from tests.web.support import OPTIONS, play_through, register, status_of, version, wait_until


def rows(page) -> list[dict[str, str]]:
    """The standings table as the page shows it."""
    return page.evaluate("""() => [...document.querySelectorAll('#t-standings tbody tr')].map((tr) => ({
      player: tr.dataset.player, name: tr.querySelector('th').textContent,
      points: tr.querySelector('.points').textContent, games: tr.querySelector('.games').textContent }))""")


def test_a_tournament_is_organised_entered_played_and_followed_live_in_the_browser(site, browser):
    contexts = [browser.new_context(viewport={"width": 1100, "height": 900}) for _ in range(2)]
    contexts.append(browser.new_context(viewport={"width": 375, "height": 740}))  # the spectator on a phone
    ann, bob, watcher = (c.new_page() for c in contexts)
    try:
        players = [register(ann, site, "Ann"), register(bob, site, "Bob")]
        ann.goto(site + "/#/tournaments")
        ann.wait_for_selector("#t-create")
        ann.fill("#t-name", "Gold Cup")
        ann.select_option("#t-kind", "goldmine")
        for name, value in OPTIONS["goldmine"].items():  # an option from the kind's schema, as the game form
            ann.fill(f"#t-opt-{name}", str(value))
        ann.fill("#t-seats", "2")
        ann.select_option("#t-format", "single_elimination")
        assert ann.locator("#t-advance").is_visible()  # asked only for the format that uses it
        ann.select_option("#t-format", "swiss")
        assert not ann.locator("#t-advance").is_visible()
        ann.fill("#t-rounds", "1")
        ann.click("#t-create button[type=submit]")
        wait_until(ann, lambda: "#/tournament/" in ann.url, "the new tournament's page")
        tid = ann.url.rsplit("/", 1)[1]
        created = httpx.get(f"{site}/v1/tournaments/{tid}").json()
        assert (created["kind"], created["seats"], created["format"], created["rounds_planned"], created["name"]) == \
            ("goldmine", 2, "swiss", 1, "Gold Cup")
        assert created["organiser"] == players[0]["id"] and created["status"] == "registration"

        watcher.goto(f"{site}/#/tournament/{tid}")
        wait_until(watcher, lambda: watcher.get_attribute("main", "data-live") == "stream", "the spectator following")
        assert watcher.locator("#t-register").count() == 0  # not signed in: nothing to press

        ann.click("#t-register")
        bob.goto(site + "/#/tournaments")
        entry = bob.locator(f'#tournaments li[data-tournament="{tid}"] a')
        wait_until(bob, lambda: entry.count(), "the tournament in Bob's list")
        entry.click()
        bob.wait_for_selector("#t-register")
        assert bob.locator("#t-start").count() == 0  # only the organiser starts it
        bob.click("#t-register")
        ids = {p["id"] for p in players}
        cat = contexts[1].browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        try:  # a third entrant changes her mind before the start: her entry goes again
            cat_id = register(cat, site, "Cat")["id"]
            cat.goto(f"{site}/#/tournament/{tid}")
            cat.click("#t-register")
            for page in (ann, watcher):
                wait_until(page, lambda: {r["player"] for r in rows(page)} == ids | {cat_id}, "three entrants, live")
            cat.click("#t-withdraw")
            wait_until(cat, lambda: cat.locator("#t-register").count(), "Cat free to register again")
        finally:
            cat.context.close()
        for page in (ann, bob, watcher):  # the others' entries and Cat's withdrawal arrive over the stream
            wait_until(page, lambda: {r["player"] for r in rows(page)} == ids, "both entrants in the standings")
        screenshot(watcher, "web-tournament-registration.png")

        ann.click("#t-start")
        wait_until(watcher, lambda: watcher.locator("#t-rounds li[data-game]").count() == 1, "round 1's table, live")
        started = httpx.get(f"{site}/v1/tournaments/{tid}").json()
        table = started["rounds"][0]["tables"][0]
        assert set(table["players"]) == ids and started["status"] == "running"
        game_id = table["game_id"]
        assert watcher.get_attribute("#t-rounds li[data-game] a", "href") == f"#/game/{game_id}"
        for page in (ann, bob):
            wait_until(page, lambda: page.locator("#t-my-game").count(), "the player's own game link")
            page.click("#t-my-game")
            wait_until(page, lambda: status_of(page) == "active", "the tournament game's page")
        sent = play_through([ann, bob], site, game_id, "goldmine", seed=3)
        assert {w.split("/")[0] for w, _ in sent} >= {"list", "bar", "spot"}  # clicks on the board and the list
        final = httpx.get(f"{site}/v1/games/{game_id}").json()
        assert final["status"] == "finished"
        for page in (ann, bob):
            wait_until(page, lambda: status_of(page) == "finished" and version(page) == final["version"],
                       "the game over")

        wait_until(watcher, lambda: watcher.get_attribute("main", "data-tournament-status") == "finished",
                   "the spectator's page at the tournament's end", 90)
        ended = httpx.get(f"{site}/v1/tournaments/{tid}").json()
        assert ended["status"] == "finished" and ended["seed"]
        expected = [{"player": s["player_id"], "name": s["name"], "points": f"{s['points']:g}", "games": "1"}
                    for s in ended["standings"]]
        shown = [{**r, "points": f"{float(r['points']):g}"} for r in rows(watcher)]
        assert shown == expected  # order, names, points and games, as the server ranks them
        assert sorted(float(r["points"]) for r in shown) != [0.0, 0.0]  # the result was counted
        assert watcher.locator("#t-rounds li.done").count() == 1
        assert ended["seed"] in watcher.inner_text(".seed")
        assert watcher.evaluate("document.documentElement.scrollWidth") <= 375
        screenshot(watcher, "web-tournament.png")
        ann.goto(site + "/#/tournaments")
        wait_until(ann, lambda: "finished" in ann.inner_text(f'#tournaments li[data-tournament="{tid}"]'), "the list")
        screenshot(ann, "web-tournaments.png")
    finally:
        for c in contexts:
            c.close()


def test_the_organiser_tools_crosstable_and_a_start_refused_without_players(site, browser):
    """Nobody registered: the start is offered disabled and the server refuses it anyway (409); by invitation, a
    player joins with the code; the organiser pauses a player and annuls a game from the page; the crosstable
    follows every round."""
    org_ctx, p1_ctx, p2_ctx = (browser.new_context(viewport={"width": 1100, "height": 900}) for _ in range(3))
    org, one, two = org_ctx.new_page(), p1_ctx.new_page(), p2_ctx.new_page()
    try:
        organiser = register(org, site, "Olga")
        org.goto(site + "/#/tournaments")
        org.wait_for_selector("#t-create")
        org.fill("#t-name", "Invitational")
        org.select_option("#t-kind", "goldmine")
        for name, value in OPTIONS["goldmine"].items():
            org.fill(f"#t-opt-{name}", str(value))
        org.fill("#t-seats", "2")
        org.fill("#t-rounds", "2")
        org.fill("#t-code-new", "club-7")
        org.click("#t-create button[type=submit]")
        wait_until(org, lambda: "#/tournament/" in org.url, "the new tournament's page")
        tid = org.url.rsplit("/", 1)[1]
        start = org.locator("#t-start")
        assert start.is_disabled() and "needs 2 players" in start.inner_text()
        refused = httpx.post(f"{site}/v1/tournaments/{tid}/start",
                             headers={"Authorization": f"Bearer {organiser['token']}"})
        assert refused.status_code == 409 and refused.json()["code"] == "tournament.too_few_players"
        ids = []
        for page, name in ((one, "Pia"), (two, "Quin")):
            ids.append(register(page, site, name)["id"])
            page.goto(f"{site}/#/tournament/{tid}")
            page.wait_for_selector("#t-code")
            page.fill("#t-code", "wrong")
            page.click("#t-register")
            wait_until(page, lambda: "invitation" in page.inner_text("#status"), "the refusal in words")
            page.fill("#t-code", "club-7")
            page.click("#t-register")
            wait_until(page, lambda: page.locator("#t-withdraw").count(), "registered with the code")
        wait_until(org, lambda: org.locator("#t-start").is_enabled(), "the start offered with two players")
        org.click("#t-start")
        wait_until(org, lambda: org.locator("#t-crosstable tbody tr").count() == 2, "the crosstable")
        wait_until(org, lambda: org.locator("#t-rounds .t-annul").count() == 1, "the organiser's corrections")
        org.click("#t-rounds .t-annul")
        wait_until(org, lambda: org.locator('#t-rounds section[data-round="1"] li[data-status="annulled"]').count(),
                   "the annulled table")
        wait_until(org, lambda: httpx.get(f"{site}/v1/tournaments/{tid}").json()["round"] == 2, "round 2, paired")
        org.select_option("#t-tool-player", ids[0])
        org.click("#t-tool-pause")
        wait_until(org, lambda: "paused" in org.inner_text(f'#t-standings tr[data-player="{ids[0]}"] .state'),
                   "the pause in the standings")
        wait_until(org, lambda: "annulled" in org.inner_text(f'#t-crosstable tr[data-player="{ids[1]}"] td[data-round="1"]'),
                   "round 1 in the crosstable")
        assert httpx.get(f"{site}/v1/tournaments/{tid}").json()["standings"][0]["points"] == 0
        assert org.get_attribute("#t-report-standings", "href").endswith("/report/csv?part=standings")
        screenshot(org, "web-tournament-tools.png")
    finally:
        for c in (org_ctx, p1_ctx, p2_ctx):
            c.close()


def test_a_half_typed_invitation_code_survives_a_live_update_of_the_page(site, browser):
    """The tournament page is redrawn whenever its stream says something happened: what the visitor typed into
    the invitation field, and the focus and caret in it, stay across that redraw, so the code sent is the one typed."""
    def player(name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {httpx.post(f'{site}/v1/players', json={'name': name}).json()['token']}"}

    organiser = player("Olga")
    created = httpx.post(f"{site}/v1/tournaments", headers=organiser, json={
        "kind": "goldmine", "name": "Club night", "seats": 2, "rounds": 1, "options": OPTIONS["goldmine"],
        "invitation_code": "club-9"})
    assert created.status_code == 201, created.text
    tid = created.json()["tournament_id"]
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    try:
        register(page, site, "Pia")
        page.goto(f"{site}/#/tournament/{tid}")
        page.wait_for_selector("#t-code")
        page.locator("#t-code").click()
        page.keyboard.type("club-")  # half typed
        other = httpx.post(f"{site}/v1/tournaments/{tid}/register", headers=player("Rex"), json={"code": "club-9"})
        assert other.status_code == 200, other.text
        wait_until(page, lambda: "1 registered" in page.inner_text("#t-summary"), "the page redrawn by the stream")
        assert page.input_value("#t-code") == "club-"
        page.keyboard.type("9")  # the focus and caret stayed in the field
        assert page.input_value("#t-code") == "club-9"
        page.click("#t-register")
        wait_until(page, lambda: page.locator("#t-withdraw").count(), "registered with the code typed")
        assert "null" not in page.inner_text("main")  # a part left out of the page is not drawn as text
    finally:
        context.close()
