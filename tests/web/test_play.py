"""Two players play a whole game of every kind in the web client through the board, a spectator follows on a
phone-sized screen, then the replay.

Every command is sent from the board (a piece then its target, one spot, the tile in hand turned with R and
placed on its ghost, or an action-bar button; every third by keyboard), never from the legal list. Each seat's
page must never hold the other seat's secrets (taken from the server's own view for that seat); the
spectator's page follows to the end; the replay slider reaches versions all through the game as either seat and steps through the move list; the browser's
verification of the hash chain and seed commitment passes. At the start, the middle and the end, on the
players' 1280x900 pages and the spectator's 390x844 one: no text under 12 px and no piece under 16 px (from
computed styles and bounding boxes), the board beside the side column at 1280 and nothing wider than the phone
at 390; no console error on any page. Screenshots of every board at start, middle and end (both widths) go to
build/screenshots/boards/ (gitignored; the path is printed), with web-<kind>-clicks.png (mid-game, clickable
parts highlighted) and web-<kind>-replay.png in build/screenshots/.
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.browser.conftest import ARTIFACTS
from tests.web.conftest import screenshot
from tests.web.support import click_in_lobby, create, play_through, register, status_of, version, wait_until


def secrets(kind: str, view: dict) -> set[str]:
    """Ids of the cards only this seat may see, minus those that are public anyway."""
    if kind == "coatl":
        mine = next(p for p in view["players"] if p["seat"] == view["seat"])
        public = {c["id"] for c in view["row"]} | {c["id"] for p in view["players"] for co in p["coatls"] for c in co["cards"]}
        return {f"prophecy {c['id']}:" for c in (mine["hand"] or []) + (mine["dealt"] or []) if c["id"] not in public}
    if kind == "tobago":
        return {c["id"] for c in view["private"]["hand"]}
    return set()  # Tikal and Gold Mine show every seat the same table


def assert_no_foreign_secrets(site: str, kind: str, game_id: str, pages: list, tokens: list[str]) -> None:
    games = [httpx.get(f"{site}/v1/games/{game_id}", headers={"Authorization": f"Bearer {t}"}).json() for t in tokens]
    views = [g["view"] for g in games]
    for seat, page in enumerate(pages):
        wait_until(page, lambda: version(page) == games[seat]["version"], "the page at the server's version")
        html = page.content()
        for other, view in enumerate(views):
            hidden = secrets(kind, view) - (secrets(kind, views[seat]) if other != seat else set())
            for secret in hidden:
                found = re.search(rf"(?<![\w]){re.escape(secret)}(?![\w])", html) is not None
                assert found == (other == seat), f"seat {seat}'s page {'lacks' if other == seat else 'shows'} {secret}"


SIZES_JS = """() => {
  const bad = [];
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  for (const el of document.querySelectorAll("main *, #status, header *")) {
    if (el.closest("svg") || !shown(el)) continue;
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < 12) bad.push(`text ${px}px: ${el.textContent.trim().slice(0, 40)}`);
  }
  for (const svg of document.querySelectorAll("main svg")) {
    const m = svg.getScreenCTM();
    if (!m) continue;
    for (const t of svg.querySelectorAll("text")) {
      if (!t.textContent.trim() || !shown(t)) continue;
      const px = parseFloat(getComputedStyle(t).fontSize) * m.a;
      if (px < 11.99) bad.push(`svg text ${px.toFixed(1)}px: ${t.textContent.slice(0, 40)}`);
    }
    for (const p of svg.querySelectorAll(".piece, .leader, .pawn, .coin, .mask, .camp, .guard, .atv, .amulet")) {
      const r = p.getBoundingClientRect();
      if (r.width && Math.min(r.width, r.height) < 15.99) bad.push(`piece ${r.width.toFixed(1)}x${r.height.toFixed(1)}: ${p.getAttribute("class")}`);
    }
  }
  return bad;
}"""

LAYOUT_JS = """() => {
  const board = document.querySelector(".board-pane").getBoundingClientRect();
  const side = document.querySelector(".side").getBoundingClientRect();
  return { beside: board.right <= side.left && Math.abs(board.top - side.top) < 40, board: board.width,
           overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth };
}"""

BOARDS = ARTIFACTS / "boards"


def look(kind: str, moment: str, pages: dict) -> None:
    """Sizes and layout on every page (1280: side by side; 390: nothing wider than the screen), and a
    screenshot of each at this moment of the game."""
    BOARDS.mkdir(parents=True, exist_ok=True)
    for width, page in pages.items():
        page.wait_for_selector("svg.board")
        bad = page.evaluate(SIZES_JS)
        assert not bad, f"{kind} {moment} at {width}px: {bad[:8]}"
        layout = page.evaluate(LAYOUT_JS)
        assert layout["overflow"] <= 1, f"{kind} {moment}: the page is wider than {width}px by {layout['overflow']}"
        if width >= 1280:
            assert layout["beside"] and layout["board"] >= 640, f"{kind} {moment}: board and side column not side by side: {layout}"
        path = BOARDS / f"{kind}-{moment}-{width}.png"
        page.screenshot(path=str(path), full_page=True)
        print("screenshot", path)


# The commands every game of a kind sends, each clicked on the board at least once (the list is the fallback).
CLICKED = {"goldmine": {"EndTurn", "PlaceTile"}, "coatl": {"TakePieces", "EndTurn", "KeepProphecies"},
           "tikal": {"PlaceTile", "EndTurn"}, "tobago": {"Drive", "EndTurn"}}


ENDINGS = ("Played to the end.", "The round limit was reached", "The cave is dead")  # Gold Mine plays 10 rounds here
MIDDLE = 30  # the command before which the middle of the game is looked at


@pytest.mark.slow  # a whole game per kind, played through the board
@pytest.mark.parametrize("kind", ["goldmine", "coatl", "tikal", "tobago"])
def test_two_players_play_a_whole_game_a_spectator_follows_and_the_replay_verifies(kind, site, browser):
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(2)]
    contexts.append(browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True))
    ann, bob, watcher = (c.new_page() for c in contexts)
    errors: list[str] = []
    for page in (ann, bob, watcher):
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        players = [register(ann, site, "Ann"), register(bob, site, "Bob")]
        game_id = create(ann, kind, 2)
        click_in_lobby(bob, site, game_id, "join")
        click_in_lobby(ann, site, game_id, "start")
        mine = [p.locator(f'#my-games li[data-game="{game_id}"]') for p in (ann, bob)]
        wait_until(ann, lambda: all(m.count() for m in mine) and any("your turn" in m.inner_text() for m in mine),
                   "the started game with 'your turn' in a player's lobby")
        for page in (ann, bob, watcher):
            page.goto(f"{site}/#/game/{game_id}")
        wait_until(ann, lambda: status_of(ann) == "active" and status_of(watcher) == "active", "the started game")
        for page in (ann, bob, watcher):  # seats with a stream ticket, the spectator without: no polling
            wait_until(page, lambda: page.get_attribute("main", "data-live"), "the page following the game")
            assert page.get_attribute("main", "data-live") == "stream"
        tokens = [p["token"] for p in players]

        def step(n, page):
            if n in (0, MIDDLE):
                wait_until(watcher, lambda: version(watcher) == version(page), "the spectator at the players' version")
                look(kind, "start" if n == 0 else "middle", {1280: page, 390: watcher})

        sent = play_through([ann, bob], site, game_id, kind,
                            check=lambda: assert_no_foreign_secrets(site, kind, game_id, [ann, bob], tokens),
                            snap=f"web-{kind}-clicks.png", board_only=True, on_step=step)
        print(kind, sorted(sent.items()))
        ways = {w.split("/")[0] for w, _ in sent}
        assert {"bar", "spot", "piece"} <= ways and "list" not in ways, f"{kind}: not every way to send a command was used: {ways}"
        assert {"piece/keyboard", "spot/keyboard"} & {w for w, _ in sent}, f"{kind}: the board was not used by keyboard"
        clicked = {t for w, t in sent if w != "list"}
        assert clicked >= CLICKED[kind], f"{kind}: {CLICKED[kind] - clicked} never sent by clicks: {sent}"
        final = httpx.get(f"{site}/v1/games/{game_id}").json()
        assert final["status"] == "finished"
        for page in (ann, bob, watcher):
            wait_until(page, lambda: status_of(page) == "finished" and version(page) == final["version"],
                       "every page at the final version")
        assert watcher.locator("ol.commands button").count() == 0
        for page in (ann, watcher):  # the end said in words: the result, how it ended, never "to act"
            outcome = page.inner_text(".outcome")
            assert "Final:" in outcome and any(how in outcome for how in ENDINGS), outcome
            assert "to act" not in page.inner_text("section.info").lower()
        look(kind, "end", {1280: ann, 390: watcher})
        screenshot(ann, f"web-{kind}.png")
        moves = ann.locator(".move-list li")
        assert moves.count() > 10 and "Game over" in moves.last.inner_text()

        watcher.goto(f"{site}/#/replay/{game_id}")
        wait_until(watcher, lambda: watcher.locator("#verdict").count(), "the verification result")
        assert watcher.inner_text("#verdict") == "Verified", watcher.inner_text("#verification")
        shown = lambda n: watcher.wait_for_function("n => document.querySelector('main').dataset.shown === String(n)",  # noqa: E731
                                                    arg=n, polling="raf", timeout=30_000)
        last = final["version"]
        for seat in (0, 1):  # the slider reaches versions all through the game as either seat
            watcher.select_option("#replay-seat", str(seat))
            for n in sorted({1, last, *range(1, last, max(1, last // (12 if seat == 0 else 4)))}):
                watcher.locator("#replay-version").fill(str(n))
                shown(n)
        watcher.locator("#replay-version").fill("1")
        shown(1)
        for n in (2, 3):  # Next steps one version on
            watcher.click("#replay-next")
            shown(n)
        move = watcher.locator(".moves .move-list li.move").nth(3)  # a move of the list shows the game as it stood
        at = int(move.get_attribute("data-version"))
        move.locator("button").click()
        shown(at)
        assert watcher.locator(f'.move-list li.current[data-version="{at}"]').count() == 1
        screenshot(watcher, f"web-{kind}-replay.png")
        assert not errors, f"console errors: {errors[:5]}"
    finally:
        for c in contexts:
            c.close()
