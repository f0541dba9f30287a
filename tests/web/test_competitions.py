"""Competitions run from the web client's one competition page, in either format: a tournament of rounds and an
arena are each organised from the one form, entered from two browsers and followed live by a spectator who never
reloads; the tournament's table is played to the end through the UI, the arena pairs its players by itself and a
player berserks, pauses and resumes there. The organiser's tools (bots in either format; the start, the
crosstable, pauses and corrections of a tournament) and an invitation code typed across a live redraw too.

The spectator's page must hear every step over the competition's stream. What the pages show is checked against
the server's own view. The old links (`#/tournaments`, `#/arenas`) still reach the pages.
"""

from __future__ import annotations

import httpx

from tests.web.conftest import screenshot
from tests.web.support import OPTIONS, play_through, register, status_of, version, wait_until

DESK, PHONE = {"width": 1100, "height": 900}, {"width": 375, "height": 740}


def rows(page) -> list[dict[str, str]]:
    """The standings table as the page shows it, in its order, for either format."""
    return page.evaluate("""() => [...document.querySelectorAll('#t-standings tbody tr')].map((tr) => ({
      player: tr.dataset.player, name: tr.querySelector('th').textContent, points: tr.querySelector('.points').textContent,
      games: tr.querySelector('.games').textContent, state: tr.querySelector('.state').textContent }))""")


def listed(page, competition_id: str):
    """The competition's entry in the page's one list of competitions."""
    return page.locator(f'#competitions li[data-competition="{competition_id}"]')


def organise(page, format_: str, fields: dict[str, str]) -> str:
    """Fill the one form (`kind` chosen, then each field `#t-<name>` in order), choose `format_` and submit: the new
    competition's id, from the URL of its page."""
    page.select_option("#t-format", format_)
    for name, value in fields.items():
        if name == "kind":
            page.select_option("#t-kind", value)  # first: a kind's choice draws its option fields again
        else:
            page.fill(f"#t-{name}", value)
    page.click("#t-create button[type=submit]")
    family = "arena" if format_ == "arena" else "tournament"
    wait_until(page, lambda: f"#/{family}/" in page.url, f"the new {family}'s page")
    return page.url.rsplit("/", 1)[1]


def test_a_tournament_is_organised_entered_played_and_followed_live_on_the_competition_page(site, browser):
    """Organised from the form (an option from the kind's schema; a format's own field shown only for it), entered
    by two (a third enters and withdraws), started, its table played to the end through the UI; a spectator on a
    phone sees every step live and the final standings as the server ranks them."""
    contexts = [browser.new_context(viewport=DESK) for _ in range(2)] + [browser.new_context(viewport=PHONE)]
    ann, bob, watcher = (c.new_page() for c in contexts)
    try:
        players = [register(ann, site, "Ann"), register(bob, site, "Bob")]
        ann.goto(site + "/#/tournaments")  # the old link reaches the competitions
        ann.wait_for_selector("#t-create")
        ann.select_option("#t-format", "single_elimination")
        assert ann.locator("#t-advance").is_visible()  # asked only for the format that uses it
        assert not ann.locator("#t-minutes").is_visible()  # an arena's length is no tournament's
        ann.select_option("#t-format", "swiss")
        assert not ann.locator("#t-advance").is_visible()
        # an option from the kind's schema, as in the game form
        tid = organise(ann, "swiss", {"kind": "goldmine", "name": "Gold Cup", "seats": "2", "rounds": "1",
                                      **{f"opt-{k}": str(v) for k, v in OPTIONS["goldmine"].items()}})
        created = httpx.get(f"{site}/v1/tournaments/{tid}").json()
        assert (created["kind"], created["seats"], created["format"], created["rounds_planned"], created["name"]) == \
            ("goldmine", 2, "swiss", 1, "Gold Cup")
        assert created["organiser"] == players[0]["id"] and created["status"] == "registration"

        watcher.goto(f"{site}/#/tournament/{tid}")
        wait_until(watcher, lambda: watcher.get_attribute("main", "data-live") == "stream", "the spectator following")
        assert watcher.locator("#t-register").count() == 0  # not signed in: nothing to press

        ann.click("#t-register")
        bob.goto(site + "/#/competitions")
        entry = listed(bob, tid).locator("a")
        wait_until(bob, lambda: entry.count(), "the tournament in Bob's list")
        entry.click()
        bob.wait_for_selector("#t-register")
        assert bob.locator("#t-start").count() == 0  # only the organiser starts it
        bob.click("#t-register")
        ids = {p["id"] for p in players}
        cat = browser.new_context(viewport=DESK).new_page()
        try:  # a third entrant changes her mind before the start: her entry goes again
            cat_id = register(cat, site, "Cat")["id"]
            # her page gets no stream, so only her moves redraw it: each answers with her entry, not the
            # tournament, and the page must read the tournament again (drawing the entry would fail)
            cat.route(f"**/v1/tournaments/{tid}/stream", lambda route: route.abort())
            cat.goto(f"{site}/#/tournament/{tid}")
            cat.click("#t-register")
            for page in (ann, watcher):
                wait_until(page, lambda: {r["player"] for r in rows(page)} == ids | {cat_id}, "three entrants, live")
            wait_until(cat, lambda: cat.inner_text("#status") == "Registered", "Cat's registration in words")
            wait_until(cat, lambda: cat_id in {r["player"] for r in rows(cat)}, "Cat in her own page's standings")
            cat.click("#t-withdraw")
            wait_until(cat, lambda: cat.inner_text("#status") == "Withdrawn", "Cat's withdrawal in words")
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
        shown = [{"player": r["player"], "name": r["name"], "points": f"{float(r['points']):g}", "games": r["games"]}
                 for r in rows(watcher)]
        assert shown == expected  # order, names, points and games, as the server ranks them
        assert sorted(float(r["points"]) for r in shown) != [0.0, 0.0]  # the result was counted
        assert watcher.locator("#t-rounds li.done").count() == 1
        assert ended["seed"] in watcher.inner_text(".seed")
        assert watcher.evaluate("document.documentElement.scrollWidth") <= 375
        screenshot(watcher, "web-tournament.png")
        ann.goto(site + "/#/competitions")
        wait_until(ann, lambda: "finished" in listed(ann, tid).inner_text(), "the list")
        screenshot(ann, "web-competitions.png")
    finally:
        for c in contexts:
            c.close()


def test_an_arena_is_organised_joined_paired_berserked_and_followed_live_on_the_same_page(site, browser):
    """The same form makes an arena (its length and clock asked only for it); two players join from the same
    page, the service pairs them by itself, one berserks in the game, another pauses and comes back, and a
    spectator on a phone follows the countdown and the standings live; a third, whose page hears no stream, sees
    each of her own moves (join, pause, join again, leave) drawn from the arena read again after it."""
    contexts = [browser.new_context(viewport=DESK) for _ in range(2)] + [browser.new_context(viewport=PHONE)]
    ann, bob, watcher = (c.new_page() for c in contexts)
    try:
        players = [register(ann, site, "Ann"), register(bob, site, "Bob")]
        ann.goto(site + "/#/arenas")  # the old link: the form offers an arena
        ann.wait_for_selector("#t-create")
        assert ann.input_value("#t-format") == "arena"
        assert not ann.locator("#t-rounds").is_visible() and not ann.locator("#t-code-new").is_visible()
        arena_id = organise(ann, "arena", {"kind": "coatl", "name": "Blitz night", "minutes": "20", "clock": "300"})
        created = httpx.get(f"{site}/v1/arenas/{arena_id}").json()
        assert (created["name"], created["kind"], created["berserk"], created["time_control"]["total_seconds"]) == \
            ("Blitz night", "coatl", True, 300)
        assert created["ends_at_ms"] - created["starts_at_ms"] == 20 * 60_000

        watcher.goto(f"{site}/#/arena/{arena_id}")
        wait_until(watcher, lambda: watcher.get_attribute("main", "data-live") == "stream", "the spectator following")
        assert watcher.locator("#t-register").count() == 0  # not signed in: nothing to press
        assert "Ends in" in watcher.text_content("#a-countdown")

        ann.click("#t-register")
        bob.goto(f"{site}/#/competitions")
        entry = listed(bob, arena_id).locator("a")
        wait_until(bob, lambda: entry.count(), "the arena in Bob's list")
        assert "arena" in listed(bob, arena_id).inner_text()
        entry.click()
        bob.wait_for_selector("#t-register")
        bob.click("#t-register")
        # the service pairs them by itself; every page hears it over the stream
        wait_until(ann, lambda: ann.locator("#t-my-game").count(), "Ann's game link")
        wait_until(watcher, lambda: {r["state"] for r in rows(watcher)} == {"playing"}, "the pairing, live")
        server = httpx.get(f"{site}/v1/arenas/{arena_id}").json()
        assert {r["player"] for r in rows(watcher)} == {p["id"] for p in players} == \
            {s["player_id"] for s in server["standings"]}
        assert server["running"] == 1

        game_id = ann.get_attribute("#t-my-game", "href").rsplit("/", 1)[1]
        ann.click("#a-berserk")  # before her first move in the game
        wait_until(ann, lambda: "Berserk" in ann.inner_text("#status") and not ann.locator("#a-berserk").count(),
                   "the berserk taken")
        events = httpx.get(f"{site}/v1/arenas/{arena_id}/events").json()["events"]
        assert [e["data"]["game_id"] for e in events if e["type"] == "arena.Berserked"
                and e["data"]["player_id"] == players[0]["id"]] == [game_id]

        bob.click("#t-pause")
        wait_until(bob, lambda: bob.locator("#t-resume").count(), "Bob's resume button")
        assert httpx.get(f"{site}/v1/arenas/{arena_id}").json()["standings"][1]["presence"] in ("paused", "active")
        bob.click("#t-resume")
        wait_until(bob, lambda: bob.locator("#t-pause").count(), "Bob back in the arena")
        assert "null" not in watcher.text_content("main") and "undefined" not in watcher.text_content("main")
        assert watcher.evaluate("document.documentElement.scrollWidth") <= 375
        screenshot(watcher, "web-arena.png")

        cy = browser.new_context(viewport=DESK).new_page()
        try:  # a third player (alone free: not paired) joins, pauses, comes back and leaves for good
            cy_id = register(cy, site, "Cy")["id"]
            # her page gets no stream, so only her moves redraw it: each answers with her part of the arena, not
            # the arena, and the page must read the arena again (drawing the answer would fail)
            cy.route(f"**/v1/arenas/{arena_id}/stream", lambda route: route.abort())
            cy.goto(f"{site}/#/arena/{arena_id}")
            for button, words, then in (
                    ("#t-register", "Joined: paired as soon as enough players are free", "#t-pause"),
                    ("#t-pause", "Paused: join again to resume", "#t-resume"),
                    ("#t-resume", "Back in the arena", "#t-withdraw"),
                    ("#t-withdraw", "Left the arena (your points stay)", None)):
                cy.click(button)
                wait_until(cy, lambda: cy.inner_text("#status") == words, f"Cy's {button} in words")
                if then:
                    wait_until(cy, lambda: cy.locator(then).count(), f"{then} offered to Cy")
            mine = {r["player"]: r["state"] for r in rows(cy)}
            assert mine[cy_id] == "left" and len(mine) == 3, mine
            assert not cy.locator("#t-register, #t-resume, #t-pause, #t-withdraw").count()
        finally:
            cy.context.close()
    finally:
        for c in contexts:
            c.close()


def test_the_organiser_adds_bots_from_the_competition_page_in_either_format(site, browser):
    """Count, strategy and strength, from the one page: the bots enter the standings live, each named its own
    way; the tournament may then start with them; a player who is not the organiser is offered no such control."""
    page, other = (browser.new_context(viewport=DESK).new_page() for _ in range(2))
    try:
        auth = {"Authorization": f"Bearer {register(page, site, 'Olga')['token']}"}
        register(other, site, "Pia")
        tournament = httpx.post(f"{site}/v1/tournaments", headers=auth, json={
            "kind": "goldmine", "name": "Bot night", "seats": 2, "rounds": 1, "options": OPTIONS["goldmine"]})
        arena = httpx.post(f"{site}/v1/arenas", headers=auth, json={
            "kind": "coatl", "name": "Bot arena", "minutes": 20, "berserk": False})
        assert tournament.status_code == arena.status_code == 201, (tournament.text, arena.text)
        for route, api in ((f"tournament/{tournament.json()['tournament_id']}",
                            f"tournaments/{tournament.json()['tournament_id']}"),
                           (f"arena/{arena.json()['arena_id']}", f"arenas/{arena.json()['arena_id']}")):
            page.goto(f"{site}/#/{route}")
            page.wait_for_selector("#t-bots-add")
            page.fill("#t-bots-count", "3")
            page.select_option("#t-bots-strategy", "random")
            page.fill("#t-bots-strength", "2")
            page.click("#t-bots-add")
            wait_until(page, lambda: len(rows(page)) == 3, f"three bots in the standings of {route}")
            # the arena pairs its bots at once and their games go on, so a finished game can reorder the
            # standings between the page's last redraw and this read: the page catches up with the server
            def caught_up(api: str = api) -> list[dict] | None:
                standings = httpx.get(f"{site}/v1/{api}").json()["standings"]
                return standings if [r["player"] for r in rows(page)] == [s["player_id"] for s in standings] else None

            standings = wait_until(page, caught_up, f"the page showing {route}'s standings in the server's order")
            names = [s["name"] for s in standings]
            assert len(set(names)) == 3 and all(n.startswith("Random bot ") for n in names), names
            if route.startswith("tournament"):
                wait_until(page, lambda: page.locator("#t-start").is_enabled(), "the start offered with the bots")
            other.goto(f"{site}/#/{route}")
            other.wait_for_selector("#t-register")
            assert other.locator("#t-bots-add").count() == 0  # an entrant has no organiser's tools
    finally:
        for p in (page, other):
            p.context.close()


def test_the_organiser_tools_crosstable_an_invitation_and_a_start_refused_without_players(site, browser):
    """Nobody registered: the start is offered disabled and the server refuses it anyway (409). By invitation: a
    wrong code is refused in words; a half-typed code survives a live redraw of the page (the field keeps its
    text, focus and caret, so the code sent is the one typed). The organiser annuls a game and pauses a player from
    the page; the crosstable follows every round."""
    org_ctx, p1_ctx, p2_ctx = (browser.new_context(viewport=DESK) for _ in range(3))
    org, one, two = org_ctx.new_page(), p1_ctx.new_page(), p2_ctx.new_page()
    try:
        organiser = register(org, site, "Olga")
        org.goto(site + "/#/competitions")
        org.wait_for_selector("#t-create")
        tid = organise(org, "swiss", {"kind": "goldmine", "name": "Invitational", "seats": "2", "rounds": "2",
                                      "code-new": "club-7", **{f"opt-{k}": str(v) for k, v in OPTIONS["goldmine"].items()}})
        start = org.locator("#t-start")
        assert start.is_disabled() and "needs 2 players" in start.inner_text()
        refused = httpx.post(f"{site}/v1/tournaments/{tid}/start",
                             headers={"Authorization": f"Bearer {organiser['token']}"})
        assert refused.status_code == 409 and refused.json()["code"] == "tournament.too_few_players"

        ids = [register(one, site, "Pia")["id"], register(two, site, "Quin")["id"]]
        one.goto(f"{site}/#/tournament/{tid}")
        one.wait_for_selector("#t-code")
        one.fill("#t-code", "wrong")
        one.click("#t-register")
        wait_until(one, lambda: "invitation" in one.inner_text("#status"), "the refusal in words")
        one.fill("#t-code", "")
        one.locator("#t-code").click()
        one.keyboard.type("club-")  # half typed when Quin's entry redraws her page
        two.goto(f"{site}/#/tournament/{tid}")
        two.wait_for_selector("#t-code")
        two.fill("#t-code", "club-7")
        two.click("#t-register")
        wait_until(two, lambda: two.locator("#t-withdraw").count(), "registered with the code")
        wait_until(one, lambda: "1 registered" in one.inner_text("#t-summary"), "Pia's page redrawn by the stream")
        assert one.input_value("#t-code") == "club-"
        one.keyboard.type("7")  # the focus and caret stayed in the field
        assert one.input_value("#t-code") == "club-7"
        one.click("#t-register")
        wait_until(one, lambda: one.locator("#t-withdraw").count(), "registered with the code typed")
        assert "null" not in one.inner_text("main")  # a part left out of the page is not drawn as text

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
