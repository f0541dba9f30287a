"""A finished game says how it ended: the final scores, the winner and why it stopped (a resignation, a timeout,
abandonment, Gold Mine's round limit or dead cave, a game called off), never who is "to act"; the move list says
it too, and the status bar does not keep an old message."""

from __future__ import annotations

import httpx

from tests.web.support import wait_until


def test_a_resigned_game_says_who_resigned_and_the_final_scores(site, browser):
    players = [httpx.post(f"{site}/v1/players", json={"name": name}).json() for name in ("Ann", "Bob")]
    auth = [{"Authorization": f"Bearer {p['token']}"} for p in players]
    game = httpx.post(f"{site}/v1/games", json={"kind": "goldmine", "seats": 2}, headers=auth[0]).json()
    httpx.post(f"{site}/v1/games/{game['id']}/join", json={}, headers=auth[1]).raise_for_status()
    httpx.post(f"{site}/v1/games/{game['id']}/start", json={}, headers=auth[0]).raise_for_status()
    at = httpx.get(f"{site}/v1/games/{game['id']}").json()["version"]
    httpx.post(f"{site}/v1/games/{game['id']}/commands", headers=auth[1],
               json={"command": {"type": "table.Resign"}, "expected_version": at}).raise_for_status()

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        page.goto(f"{site}/")
        page.evaluate("p => localStorage.setItem('stela.player', JSON.stringify(p))",
                      {k: players[0][k] for k in ("id", "name", "token")})
        page.evaluate("document.getElementById('status').textContent = 'an old message'")
        page.goto(f"{site}/#/game/{game['id']}")
        wait_until(page, lambda: page.locator(".outcome").count(), "the outcome")
        outcome = page.inner_text(".outcome")
        assert "Final: Ann (seat 0) 0, Bob (seat 1) 0; Ann (seat 0) won." in outcome, outcome
        assert "Bob (seat 1) resigned: the game ended there." in outcome, outcome
        assert "to act" not in page.inner_text("section.info").lower()
        assert page.inner_text("#status") == ""
        wait_until(page, lambda: "Game over" in page.inner_text(".move-list"), "the end in the move list")
        lines = page.inner_text(".move-list")
        assert "Bob resigned" in lines and "The game started" in lines, lines
        assert page.locator(".player.winner").count() == 1 and "Ann" in page.inner_text(".player.winner")
        assert not errors, errors
    finally:
        context.close()


def test_every_way_a_game_ends_is_said_in_words(site, browser):
    page = browser.new_page()
    try:
        page.goto(f"{site}/")
        said = page.evaluate("""async () => {
          const { howItEnded, outcomeLine } = await import("/moves.js");
          const names = (s) => ["Ann", "Bob"][s];
          const game = (details, status = "finished") => ({ status, outcome: { scores: [3, 5], ranks: [2, 1], winners: [1], details } });
          return {
            resigned: howItEnded(game({ resigned: 0, reason: "resigned" }), names),
            timed_out: howItEnded(game({ resigned: 0, reason: "timed_out" }), names),
            abandoned: howItEnded(game({ resigned: 1, reason: "abandoned" }), names),
            dead_cave: howItEnded(game({ dead_cave: true }), names),
            played: howItEnded(game({}), names),
            aborted: howItEnded({ status: "aborted", outcome: null }, names, [{ kind: "end", text: "The game was called off (no players)" }]),
            line: outcomeLine({ scores: [3, 3], winners: [0, 1] }, names),
          };
        }""")
        assert said == {
            "resigned": "Ann resigned: the game ended there.",
            "timed_out": "Ann ran out of time: the game ended there.",
            "abandoned": "Bob abandoned the game: the game ended there.",
            "dead_cave": "The cave is dead: no one can win any more, so the game ended (most coins first).",
            "played": "Played to the end.",
            "aborted": "The game was called off (no players).",
            "line": "Ann 3, Bob 3; Ann and Bob share the win",
        }, said
    finally:
        page.close()
