"""A kind without a board drawer (the test game Tally) gets the generic board: drawn from its view and its
component catalogue, every legal command a click on it, its text readable, and any view shape drawn without
an error. The four catalogue kinds keep their own drawers.

Screenshot: build/screenshots/web-generic.png (Tally mid-game, at 1280x900).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.web.conftest import screenshot
from tests.web.support import click_in_lobby, create, play_through, register, status_of, version, wait_until

VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture
def client_page(site, browser) -> Iterator:
    """A page of the web client at 1280x900, for running its board modules directly."""
    page = browser.new_page(viewport=VIEWPORT)
    try:
        page.goto(site + "/")
        page.wait_for_selector("main")
        yield page
    finally:
        page.close()


def board_module(page, code: str):
    """Run `code` (an async function body) in the page with `boards` = boards/index.js and `generic` = generic.js."""
    return page.evaluate(f"""async () => {{
      const boards = await import("/boards/index.js");
      const generic = await import("/boards/generic.js");
      {code}
    }}""")


SMALLEST_TEXT_JS = """() => {
  const svg = document.querySelector("svg.board");
  const scale = svg.getScreenCTM().a;
  return Math.min(...[...svg.querySelectorAll("text")].filter((t) => t.textContent.trim())
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));
}"""


def test_a_kind_without_a_drawer_is_drawn_and_played_from_its_board(site, browser):
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(2)]
    ann, bob = (c.new_page() for c in contexts)
    errors: list[str] = []
    for page in (ann, bob):
        page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        register(ann, site, "Ann")
        register(bob, site, "Bob")
        game_id = create(ann, "tally", 2)
        click_in_lobby(bob, site, game_id, "join")
        click_in_lobby(ann, site, game_id, "start")
        for page in (ann, bob):
            page.goto(f"{site}/#/game/{game_id}")
        wait_until(ann, lambda: status_of(ann) == "active" and status_of(bob) == "active", "the started game")
        wait_until(ann, lambda: ann.locator("ol.commands button").count() == 4, "Ann's four legal commands")

        board = ann.locator("svg.board.generic")
        assert board.count() == 1
        text = board.evaluate("svg => svg.textContent")
        for shown in ("Tally · phase play", "To act: Ann (seat 0)", "Ann (seat 0): 0 ◀ to act", "Bob (seat 1): 0",
                      "total: 0", "target: 15", "my secret:", "Your moves"):
            assert shown in text, f"{shown!r} not on the board: {text}"
        summary = ann.inner_text(".board-text")
        assert "Phase play; to act: Ann (seat 0)." in summary and "target: 15" in summary
        # every legal command is a click on the board: Add by its button among the moves, Roll on the action bar
        keys = [json.loads(k) for k in ann.locator("ol.commands button").evaluate_all("bs => bs.map((b) => b.dataset.keys)")]
        assert keys == [["move:Add: amount 1"], ["move:Add: amount 2"], ["move:Add: amount 3"], ["do:Roll"]]
        for path in keys:  # the moves on the board, Roll on the action bar beside it
            assert ann.locator(f'.table [data-key="{path[0]}"].target').count() == 1, path
        assert ann.evaluate(SMALLEST_TEXT_JS) >= 12, "text on the generic board below 12px at 1280x900"
        screenshot(ann, "web-generic.png")

        board.locator('[data-key="move:Add: amount 2"]').click()
        wait_until(bob, lambda: bob.locator('.table [data-key="do:Roll"].target').count(), "Bob's turn, Roll offered")
        bob.locator('.table [data-key="do:Roll"]').click()
        wait_until(ann, lambda: version(ann) == version(bob) and ann.locator("ol.commands button").count(), "Ann's turn again")
        sent = play_through([ann, bob], site, game_id, "tally")
        assert {w for w, _ in sent} - {"list"}, f"no command sent from the board: {sent}"

        final = httpx.get(f"{site}/v1/games/{game_id}").json()
        assert final["status"] == "finished"
        assert final["view"]["added"][0] >= 2
        wait_until(ann, lambda: status_of(ann) == "finished", "the finished game on Ann's page")
        assert "phase over" in ann.locator("svg.board.generic").evaluate("svg => svg.textContent")

        ann.goto(f"{site}/#/replay/{game_id}")
        wait_until(ann, lambda: ann.locator("#verdict").count(), "the verification result")
        assert ann.inner_text("#verdict") == "Verified"
        assert ann.locator("svg.board.generic").count() == 1
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def test_the_four_kinds_keep_their_own_drawers_and_others_get_the_generic_board(client_page):
    drawers = board_module(client_page, """
      const own = {};
      for (const kind of ["tikal", "coatl", "tobago", "goldmine", "tally", "chess", "constructor"])
        own[kind] = boards.boardFor(kind) === generic ? "generic" : "own";
      return own;""")
    assert drawers == {"tikal": "own", "coatl": "own", "tobago": "own", "goldmine": "own",
                       "tally": "generic", "chess": "generic", "constructor": "generic"}


def test_components_named_by_id_are_shown_with_their_printed_data(client_page):
    """Gold Mine's catalogue holds its tiles by id; a view naming one by id alone gets its printed data."""
    drawn = board_module(client_page, """
      await generic.load("goldmine");
      const view = { kind: "goldmine", seat: null, phase: "play", to_act: [1], scores: [3, 5],
                     drawn: "E1#1", hands: [["E1#1"], []], pirates: [{ seat: 0, coins: 3 }, { seat: 1, coins: 5 }] };
      const d = generic.draw(view, { names: (s) => `P${s}`, seats: 2 });
      return { text: d.svg.textContent, components: d.svg.querySelectorAll(".generic-component").length,
               summary: d.summary };""")
    assert drawn["components"] == 2, drawn
    assert "drawn: E1#1" in drawn["text"] and "kind: entrance" in drawn["text"] and "design: E1" in drawn["text"]
    assert "P1: 5 ◀ to act" in drawn["text"] and "You are watching." in drawn["text"]
    assert "pirates (2)" in drawn["text"] and "coins: 5" in drawn["text"]
    assert any(line.startswith("drawn: E1#1 (design E1, kind entrance") for line in drawn["summary"]), drawn["summary"]


def test_the_generic_board_draws_any_view_without_throwing(client_page):
    results = board_module(client_page, """
      const deep = {}; let at = deep; for (let i = 0; i < 20; i++) { at.next = { i }; at = at.next; }
      const cyclic = { kind: "odd", phase: "x" }; cyclic.self = cyclic;
      const views = [null, undefined, 7, "text", [], [1, [2, [3]]], {}, { kind: 5, to_act: "0", scores: "none" },
        { kind: "odd", phase: null, to_act: [0, 9], scores: [null, { a: 1 }], seat: 0, deep,
          grid: [[1, 2], [3, null]], empty: {}, none: [], long: "word ".repeat(400), flag: true,
          many: Array.from({ length: 3000 }, (_, i) => ({ i })) }, cyclic];
      const commands = [{ type: "odd.Go", to: [1, 2] }, { type: "odd.Pass" }, { type: "odd.Say", text: 'a "quote"' }, null];
      return views.map((v) => {
        try {
          const d = generic.draw(v, { names: (s) => `seat ${s}`, seats: 2, commands });
          return { ok: d.svg.tagName === "svg" && Array.isArray(d.summary), height: Number(d.svg.getAttribute("viewBox").split(" ")[3]),
                   keys: commands.map((c) => generic.keys(c)) };
        } catch (err) { return { ok: false, error: String(err) }; }
      });""")
    assert all(r["ok"] for r in results), results
    assert all(0 < r["height"] < 20_000 for r in results), [r["height"] for r in results]
    assert results[0]["keys"] == [["move:Go: to 1 2"], None, ["move:Say: text a 'quote'"], None]


def started_view(site: str, kind: str) -> dict:
    """The first seat's view of a freshly started two-seat game of `kind`, through the API."""
    tokens = [httpx.post(f"{site}/v1/players", json={"name": name}).json()["token"] for name in ("Cy", "Di")]
    auth = [{"Authorization": f"Bearer {t}"} for t in tokens]
    game = httpx.post(f"{site}/v1/games", json={"kind": kind, "seats": 2}, headers=auth[0]).json()
    httpx.post(f"{site}/v1/games/{game['id']}/join", json={}, headers=auth[1]).raise_for_status()
    httpx.post(f"{site}/v1/games/{game['id']}/start", json={}, headers=auth[0]).raise_for_status()
    return httpx.get(f"{site}/v1/games/{game['id']}", headers=auth[0]).json()["view"]


@pytest.mark.parametrize("kind", ["tikal", "coatl", "tobago", "goldmine"])
def test_the_generic_board_draws_the_real_views_of_every_kind(kind, site, client_page):
    """Were a catalogue kind's drawer missing, its real views (nested boards, cards, maps) would still be drawn,
    readable, with the components they name by id looked up in its catalogue."""
    view = started_view(site, kind)
    drawn = client_page.evaluate("""async (view) => {
      const generic = await import("/boards/generic.js");
      await generic.load(view.kind);
      const d = generic.draw(view, { names: (s) => `seat ${s}`, seats: 2, commands: [] });
      document.querySelector("main").replaceChildren(d.svg);
      return { text: d.svg.textContent, lines: d.summary.length };
    }""", view)
    assert f"phase {view['phase']}" in drawn["text"] and drawn["lines"] > 3
    for name in (k for k in view if k not in ("kind", "seat", "phase", "to_act", "scores")):
        assert name.replace("_", " ") in drawn["text"], f"{kind}: the field {name} is not on the board"
    assert client_page.evaluate(SMALLEST_TEXT_JS) >= 12
    screenshot(client_page, f"web-generic-{kind}.png")
