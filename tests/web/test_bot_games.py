"""A whole game of every kind against an in-process bot, played through the board, a spectator following on a
phone, then the replay; the requests the page makes are counted.

The player asks for the game from the lobby's "Play against a bot" (a random bot of strength 1: a fast one) and
sends every command from the board (a piece then its target, one spot, the tile in hand turned with R and placed
on its ghost, or an action-bar button; every third by keyboard). The page lives on the multiplexed stream, so at
the default rate limits it makes at most 1.5 requests per own command over the whole game and meets no 429. The
player's page shows its own secrets and never the bot's, the spectator's neither (checked after the end against
each seat's view at the versions the pages showed). The spectator's page follows to the end; the replay verifies
the hash chain and seed commitment in the browser and its slider reaches versions all through the game as either
seat. The player's page is 1280x900 until the middle of the game, then 390x844; at the start, the middle and the
end: no text under 12 px and no piece under 16 px, the board beside the side column at 1280 and nothing wider
than the phone at 390; Tobago's maps and clue cards beside the island at 1280 and under it at 390, never
clipped; Cóatl at 390 never pans sideways; Tikal, fitted, fits its pane. No console error on any page. Each size
is screenshotted (into docs/screenshots/, which the README shows, under `make screenshots`).

What each check catches, planted: a turn frame ignored or a full re-read per event (requests per own command
over 1.5); the bot's hand or a seat's cards in a page (the secrets); a page that stops following (the final
version on both pages); a broken chain or a wrong seed in the replay ("Verified"); maps drawn back under the
island, Cóatl's wide layout on a phone, a fixed-height pane for Tikal (the layout checks).
"""

from __future__ import annotations

import re
import httpx
import pytest

from tests.web.conftest import bot_site, browser  # noqa: F401  (the site with a bot worker; Chromium)
from tests.web.support import SIZES_JS, play_against_bots, register, shoot, status_of, version, wait_until

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 900}
MIDDLE = 20  # the own command before which the page turns into a phone's
ENDINGS = ("Played to the end.", "The round limit was reached", "The cave is dead")
OPTIONS = {"goldmine": {"max_rounds": 6}, "tikal": {}, "coatl": {}, "tobago": {}}


def secrets(kind: str, view: dict) -> set[str]:
    """Ids of the cards only this seat may see, minus those that are public anyway."""
    if kind == "coatl":
        mine = next(p for p in view["players"] if p["seat"] == view["seat"])
        public = {c["id"] for c in view["row"]} | {c["id"] for p in view["players"] for co in p["coatls"] for c in co["cards"]}
        return {f"prophecy {c['id']}:" for c in (mine["hand"] or []) + (mine["dealt"] or []) if c["id"] not in public}
    if kind == "tobago":
        return {c["id"] for c in view["private"]["hand"]}
    return set()  # Tikal and Gold Mine show every seat the same table


def shown_in(secret: str, html: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(secret)}(?![\w])", html) is not None


LAYOUT_JS = """() => {
  const board = document.querySelector(".board-pane").getBoundingClientRect();
  const side = document.querySelector(".side").getBoundingClientRect();
  return { beside: board.right <= side.left && Math.abs(board.top - side.top) < 40, board: board.width,
           overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth };
}"""


TOBAGO_JS = """() => {
  const board = document.querySelector(".board-pane").getBoundingClientRect();
  const maps = document.querySelector(".tobago-maps").getBoundingClientRect();
  const clipped = [...document.querySelectorAll(".card-list button")].filter((el) => el.scrollWidth > el.clientWidth + 1
    || el.scrollHeight > el.clientHeight + 1).map((el) => el.textContent);
  return { beside: maps.left >= board.right, under: maps.top >= board.bottom, clipped };
}"""


COATL_ENDS_JS = """() => [...document.querySelectorAll('svg.board [data-key^="coatl:"]')].filter((el) => {
  const box = el.getBBox(), view = el.ownerSVGElement.viewBox.baseVal;
  return box.x < view.x - 1 || box.x + box.width > view.x + view.width + 1;
}).map((el) => el.dataset.key)"""


def look(kind: str, moment: str, page) -> None:
    """Sizes and layout at the page's width now (1280: side by side; 390: nothing wider than the screen)."""
    width = page.viewport_size["width"]
    page.wait_for_selector("svg.board")
    bad = page.evaluate(SIZES_JS)
    assert not bad, f"{kind} {moment} at {width}px: {bad[:8]}"
    layout = page.evaluate(LAYOUT_JS)
    assert layout["overflow"] <= 1, f"{kind} {moment}: the page is wider than {width}px by {layout['overflow']}"
    if width >= 1280:
        assert layout["beside"] and layout["board"] >= 640, f"{kind} {moment}: board and side column not side by side: {layout}"
    if kind == "tobago":  # the maps and clue cards beside the island on a desk, under it on a phone, never clipped
        where = page.evaluate(TOBAGO_JS)
        assert not where["clipped"] and (where["beside"] if width >= 1280 else where["under"]), f"tobago {moment} at {width}: {where}"
    if kind == "tikal":  # fitted, the board fits its pane at every stage: the pane never pans up and down
        tall = page.evaluate("(() => { const v = document.querySelector('.viewport'); return v.scrollHeight - v.clientHeight; })()")
        assert tall <= 1, f"tikal {moment}: the board is {tall}px taller than its pane"
    if width < 600 and kind == "coatl":  # a phone's Cóatl is one column: it never pans sideways
        wide = page.evaluate("(() => { const v = document.querySelector('.viewport'); return v.scrollWidth - v.clientWidth; })()")
        assert wide <= 1, f"coatl {moment}: the board is {wide}px wider than its window"
    if kind == "coatl":  # every coatl's ends lie inside the drawing, however long it grew: a tail cut off is unclickable
        outside = page.evaluate(COATL_ENDS_JS)
        assert not outside, f"coatl {moment} at {width}px: outside the drawing: {outside}"


def start_bot_game(page, kind: str) -> str:
    """"Play against a bot" from the lobby: a random bot of strength 1; the new game's id."""
    page.wait_for_selector("#play-bots")
    page.select_option("#bot-kind", kind)
    page.fill("#bot-seats", "2")
    for name, value in OPTIONS[kind].items():
        page.fill(f"#bot-opt-{name}", str(value))
    page.select_option("#bot-strategy", "random")
    page.fill("#bot-strength", "1")
    page.click("#play-bots button[type=submit]")
    wait_until(page, lambda: "#/game/" in page.url, f"the {kind} game's page")
    return page.url.rsplit("/", 1)[1]


@pytest.mark.parametrize("kind", ["goldmine", "coatl", "tikal", "tobago"])
def test_a_whole_game_against_a_bot_through_the_board_on_the_stream(kind, bot_site, browser):
    site = bot_site
    player = browser.new_context(viewport=DESK)
    watching = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page, watcher = player.new_page(), watching.new_page()
    errors: list[str] = []
    for p in (page, watcher):
        p.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        p.on("pageerror", lambda err: errors.append(str(err)))
    requests: list[str] = []  # every API request of the player's page, from the game page on
    refused: list[str] = []
    try:
        me = register(page, site, f"Ann {kind}")
        page.on("request", lambda r: requests.append(f"{r.method} {r.url}") if "/v1/" in r.url else None)
        page.on("response", lambda r: refused.append(r.url) if r.status == 429 else None)
        game_id = start_bot_game(page, kind)
        watcher.goto(f"{site}/#/game/{game_id}")
        wait_until(page, lambda: status_of(page) == "active" and status_of(watcher) == "active", "the bot starting the game", 60)
        auth = {"Authorization": f"Bearer {me['token']}"}
        seats = httpx.get(f"{site}/v1/games/{game_id}", headers=auth).json()["seats"]
        mine = next(s["seat"] for s in seats if s["player_id"] == me["id"])
        bot = 1 - mine
        seen: list[tuple[int, str, str]] = []  # (version, the player's page, the spectator's page)
        at_desk: list[int] = []

        def step(n: int, at: int) -> None:
            if n in (0, MIDDLE) or n % 15 == 7:
                wait_until(watcher, lambda: version(watcher) >= at, "the spectator at the player's version")
                seen.append((at, page.content(), watcher.content() if version(watcher) == at else ""))
            if n == 0:
                look(kind, "start", page)
                shoot(page, f"{kind}-1280.png")
            if n == MIDDLE:
                at_desk.append(len(requests))  # the requests of the first MIDDLE own commands, made at 1280
                look(kind, "middle", page)
                page.set_viewport_size(PHONE)
                look(kind, "middle", page)
                shoot(page, f"{kind}-390.png")
                look(kind, "middle", watcher)

        sent = play_against_bots(page, site, game_id, kind, me["token"], on_step=step)
        own = sum(sent.values())
        final = httpx.get(f"{site}/v1/games/{game_id}").json()
        assert final["status"] == "finished"
        for p in (page, watcher):
            wait_until(p, lambda: status_of(p) == "finished" and version(p) == final["version"], "every page at the final version")
        per_command = len(requests) / own
        print(f"{kind}: {own} own commands, {len(requests)} requests ({per_command:.2f} per own command), "
              f"{len(refused)} responses 429; {sorted(sent.items())}")
        print(f"{kind} per size: 1280x900 {at_desk[0]} requests for {MIDDLE} own commands "
              f"({at_desk[0] / MIDDLE:.2f}), 390x844 {len(requests) - at_desk[0]} for {own - MIDDLE} "
              f"({(len(requests) - at_desk[0]) / (own - MIDDLE):.2f})")
        print("requests", sorted({re.sub(r"[0-9a-f]{8,}|\d+", "N", r.split("?")[0]) for r in requests}))
        assert not refused, f"{kind}: 429 responses: {refused[:5]}"
        assert per_command <= 1.5, f"{kind}: {per_command:.2f} requests per own command"
        ways = {w.split("/")[0] for w, _ in sent}
        assert {"bar", "spot"} <= ways and "list" not in ways and (kind == "tobago" or "piece" in ways), \
            f"{kind}: not every way to send a command was used: {ways}"
        assert {w for w, _ in sent if w.endswith("/keyboard")}, f"{kind}: the board was not used by keyboard"

        assert watcher.locator("ol.commands button").count() == 0
        for p in (page, watcher):  # the end said in words: the result, how it ended, never "to act"
            outcome = p.inner_text(".outcome")
            assert "Final:" in outcome and any(how in outcome for how in ENDINGS), outcome
            assert "to act" not in p.inner_text("section.info").lower()
            look(kind, "end", p)
        moves = page.locator(".move-list li")
        assert moves.count() > 10 and "Game over" in moves.last.inner_text()

        for at, html, spectator in seen:  # after the end every seat's view at every version is public
            views = {s: httpx.get(f"{site}/v1/games/{game_id}/versions/{at}?seat={s}").json()["view"] for s in (mine, bot)}
            own_secrets, bot_secrets = secrets(kind, views[mine]), secrets(kind, views[bot]) - secrets(kind, views[mine])
            assert all(shown_in(s, html) for s in own_secrets), f"version {at}: the player's page lacks its own cards"
            assert not any(shown_in(s, html) for s in bot_secrets), f"version {at}: the player's page shows the bot's cards"
            assert not any(shown_in(s, spectator) for s in own_secrets | bot_secrets), f"version {at}: the spectator sees a hand"
        assert sum(1 for _, _, spectator in seen if spectator) >= 2, "the spectator was looked at"

        watcher.goto(f"{site}/#/replay/{game_id}")
        wait_until(watcher, lambda: watcher.locator("#verdict").count(), "the verification result")
        assert watcher.inner_text("#verdict") == "Verified", watcher.inner_text("#verification")
        shown = lambda n: watcher.wait_for_function("n => document.querySelector('main').dataset.shown === String(n)",  # noqa: E731
                                                    arg=n, polling="raf", timeout=30_000)
        last = final["version"]
        for seat in (mine, bot):  # the slider reaches versions all through the game as either seat
            watcher.select_option("#replay-seat", str(seat))
            for n in sorted({1, last, *range(1, last, max(1, last // 4))}):
                watcher.locator("#replay-version").fill(str(n))
                shown(n)
        watcher.locator("#replay-version").fill("1")
        shown(1)
        watcher.click("#replay-next")  # Next steps one version on
        shown(2)
        move = watcher.locator(".moves .move-list li.move").nth(3)  # a move of the list shows the game as it stood
        at = int(move.get_attribute("data-version"))
        move.locator("button").click()
        shown(at)
        assert watcher.locator(f'.move-list li.current[data-version="{at}"]').count() == 1
        assert not errors, f"console errors: {errors[:5]}"
    finally:
        player.close()
        watching.close()
