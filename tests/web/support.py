"""Driving the web client like a person: register, create from the form, join, start, play by clicks on the board
or from the legal list."""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.conftest import screenshot

OPTIONS = {"goldmine": {"max_rounds": 6}}
ROOT = Path(__file__).parents[2]
# the README's pictures are rewritten only when asked (`make screenshots`): a test run leaves the tree as it was
SHOTS = ROOT / ("docs" if os.environ.get("STELA_SCREENSHOTS") == "docs" else "build") / "screenshots"

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
}"""  # text under 12 px, pieces under 16 px: what is too small to read


def shoot(page, name: str) -> None:
    """A screenshot of what the page shows from its top, into build/screenshots/ (docs/screenshots/, which the
    README shows, under `make screenshots`)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / name
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path))
    print("screenshot", path)


CONTROLS_JS = """() => {
  const bare = [];
  for (const el of document.querySelectorAll("main input, main select, main button, main textarea")) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || el.closest("svg") || el.type === "hidden") continue;
    if (el.type === "checkbox" || el.type === "radio" || el.type === "range") {
      if (getComputedStyle(el).accentColor === "auto") bare.push(`${el.type} #${el.id}`);
      continue;
    }
    const st = getComputedStyle(el);
    if (parseFloat(st.borderTopLeftRadius) < 4 || parseFloat(st.borderTopWidth) < 1 || st.borderTopStyle === "outset")
      bare.push(`${el.tagName.toLowerCase()} #${el.id || el.textContent.trim().slice(0, 20)}`);
  }
  return bare;
}"""
OVERFLOW_JS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def check_page(page, name: str) -> None:
    """A page besides the boards: readable, no wider than the screen, no bare control; then its screenshot."""
    width = page.viewport_size["width"]
    assert not page.evaluate(SIZES_JS), f"{name} at {width}: {page.evaluate(SIZES_JS)[:5]}"
    assert page.evaluate(OVERFLOW_JS) <= 1, f"{name} at {width}: wider than the screen"
    assert not page.evaluate(CONTROLS_JS), f"{name} at {width}: bare controls {page.evaluate(CONTROLS_JS)[:8]}"
    shoot(page, f"page-{name}-{width}.png")


def wait_until(page, check, what: str, deadline_s: float = 60) -> Any:
    """Poll `check()` until it is truthy (returns it); fail naming `what` after the deadline."""
    deadline = time.monotonic() + deadline_s
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        page.wait_for_timeout(20)


def register(page, site: str, name: str) -> dict[str, Any]:
    page.goto(site + "/")
    page.fill("#name", name)
    page.click("form button[type=submit]")
    page.wait_for_selector("#create")
    return json.loads(page.evaluate("localStorage.getItem('stela.player')"))


def create(page, kind: str, seats: int) -> str:
    page.select_option("#kind", kind)
    page.fill("#seats", str(seats))
    for name, value in OPTIONS.get(kind, {}).items():
        page.fill(f"#opt-{name}", str(value))
    page.click("#create button[type=submit]")
    wait_until(page, lambda: "#/game/" in page.url, "the new game's page")
    return page.url.rsplit("/", 1)[1]


def click_in_lobby(page, site: str, game_id: str, button: str) -> None:
    page.goto(site + "/#/")
    locator = page.locator(f'#open-games li[data-game="{game_id}"] button.{button}')
    wait_until(page, lambda: locator.count() > 0 or page.reload() and False, f"the {button} button", 60)
    locator.click()


STATE_JS = """() => {
  const info = document.querySelector("main section.info p");
  const m = info && info.textContent.match(/Version (\\d+)\\./);
  const buttons = [...document.querySelectorAll("ol.commands button")];
  return { version: m ? Number(m[1]) : -1, commands: buttons.map((b) => JSON.parse(b.dataset.command)),
           keys: buttons.map((b) => (b.dataset.keys ? JSON.parse(b.dataset.keys) : null)) };
}"""


def version(page) -> int:
    return page.evaluate(STATE_JS)["version"]


def status_of(page) -> str:
    return page.locator("main h1").first.inner_text().split("·")[-1].strip()


def hex_distance(a: list[int], b: list[int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def pick(kind: str, view: dict[str, Any], commands: list[dict[str, Any]], rnd: random.Random) -> int:
    """The index of the command to click: at random, except that Tikal ends half its turns at once (a game of
    36 tiles stays short) and Tobago heads for its treasures (and now and then swaps its clues: with a hand
    that fits no map, driving alone never ends the game)."""
    order = rnd.sample(range(len(commands)), len(commands))
    types = [c["type"].split(".")[1] for c in commands]
    if kind == "tikal" and "EndTurn" in types and rnd.random() < 0.5:
        return types.index("EndTurn")
    if kind != "tobago":
        return order[0]
    for wanted in ("CollectTreasure", "TakeCard", "StartHunt", "PlayClue"):
        for i in order:
            if types[i] == wanted:
                return i
    if "ExchangeClues" in types and rnd.random() < 0.25:  # a hand of clues that fit nowhere: swap them
        return types.index("ExchangeClues")
    maps = [m for m in view["maps"] if m["clues"]]
    drives = [i for i in order if types[i] == "Drive"]
    if maps and drives:
        goal = [view["island"][h][:2] for h in min(maps, key=lambda m: len(m["candidates"]))["candidates"]]
        return min(drives, key=lambda i: min(hex_distance(view["island"][commands[i]["hex"]][:2], g) for g in goal))
    return next((i for i in order if types[i] == "EndTurn"), order[0])


def part_for(page, key: str):
    """The offered board part named `key`; a ghost of the tile in hand at another rotation is reached by turning
    the tile with the R key first."""
    part = page.locator(f'.table [data-key="{key}"].target').first
    menu = page.locator(f'.table details.action-menu:not([open]):has([data-key="{key}"])')
    if menu.count():  # one of many of its kind: the action bar's menu for it is opened first
        menu.locator("summary").click()
    if key.startswith("place:"):
        for _ in range(6):
            if part.count():
                break
            before = page.inner_text(".hand-rotation")
            page.keyboard.press("r")
            wait_until(page, lambda: page.inner_text(".hand-rotation") != before, "the tile turned")
    return part


def click_on_board(page, index: int, command: dict[str, Any], keyboard: bool = False) -> list[str] | None:
    """Send the legal list's command `index` by clicking the board instead (a piece, then its target; a choice
    in words if several commands share those clicks), or with `keyboard` by focusing each part and pressing
    Enter; its click path, or None when it has none. A set to choose (cards to keep) is picked in reverse."""
    button = page.locator("ol.commands button").nth(index)
    keys = button.get_attribute("data-keys")
    if not keys:
        return None
    path = json.loads(keys)
    order = path[-2::-1] + path[-1:] if button.get_attribute("data-unordered") else path
    for key in order:
        part = part_for(page, key)
        if keyboard:  # a focusable button with a name (its SVG title, or its text) for assistive technology
            part.focus()
            assert page.evaluate("""() => { const e = document.activeElement;
              return e.tagName === 'BUTTON' ? e.textContent.length > 0 : e.getAttribute('role') === 'button'
                && e.querySelector(':scope > title').textContent.length > 0; }""")
            page.keyboard.press("Enter")
        else:
            part.click()
    choice = page.locator(".choice button")
    if choice.count():
        wanted = json.dumps(command, sort_keys=True)
        for i in range(choice.count()):
            if json.dumps(json.loads(choice.nth(i).get_attribute("data-command")), sort_keys=True) == wanted:
                choice.nth(i).click()
                break
        else:
            raise AssertionError(f"{command} is not among the choices")
    return path


def click_in_list(page, index: int) -> None:
    """Send the legal list's command `index` from the list itself (opened first: it folds away when long)."""
    page.locator("details.legal").evaluate("d => { d.open = true; }")
    page.locator("ol.commands button").nth(index).click()


def way(path: list[str] | None) -> str:
    """How a command was sent: from the legal list, an action-bar button, one spot, or a piece then a target."""
    if path is None:
        return "list"
    return "bar" if path[0].startswith("do:") else "spot" if len(path) == 1 else "piece"


def play_through(pages: list, site: str, game_id: str, kind: str, seed: int = 1, max_commands: int = 3000,
                 check=None, snap: str | None = None, board_only: bool = False, on_step=None) -> Counter:
    """Play whichever page offers commands until the game is over, mostly by clicks on the board (every
    fourth command from the legal list, the fallback, unless `board_only`; every third by keyboard); counts of
    (way, command type) sent, the way suffixed "/keyboard" when keys did it. `snap` names a screenshot of the
    acting page taken mid-game, with the board's clickable parts highlighted; `on_step(n, page)` is called
    before the n-th command with the page about to send it."""
    rnd = random.Random(seed)
    sent: Counter = Counter()
    with httpx.Client(base_url=site) as api:  # one connection, kept (a client per request builds its TLS context each time)
        while sum(sent.values()) < max_commands:
            truth = api.get(f"/v1/games/{game_id}").json()
            if truth["status"] != "active":
                return sent
            if check and sum(sent.values()) in (3, 25):
                check()

            def acting():
                for p in pages:
                    state = p.evaluate(STATE_JS)
                    if state["version"] == truth["version"] and state["commands"]:
                        return p, state["commands"], state["keys"]
                return None

            page, commands, keys = wait_until(pages[0], acting, f"a page offering commands at version {truth['version']}")
            if snap and sum(sent.values()) == 25:
                screenshot(page, snap)
            choice = pick(kind, truth["view"], commands, rnd)
            clicked = {t for w, t in sent if w != "list"}
            fresh = [i for i, c in enumerate(commands) if keys[i] and c["type"].split(".")[1] not in clicked]
            # now and then the longest clicks not made yet (not in Tobago, which heads for its end)
            if kind != "tobago" and fresh and rnd.random() < 0.5:
                longest = max(len(keys[i]) for i in fresh)
                choice = rnd.choice([i for i in fresh if len(keys[i]) == longest])
            n = sum(sent.values())
            if on_step:
                on_step(n, page)
            path = click_on_board(page, choice, commands[choice], keyboard=n % 3 == 0) if n % 4 or board_only else None
            assert path is not None or not board_only, f"{commands[choice]} cannot be sent from the board"
            if path is None:
                click_in_list(page, choice)
            sent[(way(path) + ("/keyboard" if path and n % 3 == 0 else ""), commands[choice]["type"].split(".")[1])] += 1
            page.wait_for_function("v => { const m = document.querySelector('main section.info p')?.textContent.match(/Version (\\d+)\\./);"
                                   " return (m && Number(m[1]) > v) || /conflict/.test(document.getElementById('status').textContent); }",
                                   arg=truth["version"], polling="raf", timeout=60_000)
            if path and n % 3 == 0:  # the keyboard player's focus stays on the page across the re-draw
                assert page.evaluate("document.querySelector('main').contains(document.activeElement)"), "focus lost"
        raise AssertionError("the game did not end")


def play_against_bots(page, site: str, game_id: str, kind: str, token: str, seed: int = 1, max_commands: int = 3000,
                      on_step=None) -> Counter:
    """Play the page's seat against bots until the game is over, every command by clicks on the board (every
    third by keyboard); counts of (way, command type) as `play_through` gives them. `on_step(n, version)` is
    called before the n-th command with the version the page shows."""
    rnd = random.Random(seed)
    sent: Counter = Counter()
    with httpx.Client(base_url=site, headers={"Authorization": f"Bearer {token}"}) as api:  # one connection, kept
        while sum(sent.values()) < max_commands:
            state = wait_until(page, lambda: (s := page.evaluate(STATE_JS))["commands"] and s
                               or status_of(page) in ("finished", "aborted") and s, "the board offering a command, or the end", 120)
            if not state["commands"]:
                return sent
            truth = api.get(f"/v1/games/{game_id}").json()
            if truth["version"] != state["version"]:
                continue  # the page is about to show a newer turn
            commands, keys = state["commands"], state["keys"]
            choice = pick(kind, truth["view"], commands, rnd)
            clicked = {t for w, t in sent}
            fresh = [i for i, c in enumerate(commands) if keys[i] and c["type"].split(".")[1] not in clicked]
            if kind != "tobago" and fresh and rnd.random() < 0.5:  # now and then the longest clicks not made yet
                longest = max(len(keys[i]) for i in fresh)
                choice = rnd.choice([i for i in fresh if len(keys[i]) == longest])
            n = sum(sent.values())
            if on_step:
                on_step(n, state["version"])
            path = click_on_board(page, choice, commands[choice], keyboard=n % 3 == 0)
            assert path is not None, f"{commands[choice]} cannot be sent from the board"
            sent[(way(path) + ("/keyboard" if n % 3 == 0 else ""), commands[choice]["type"].split(".")[1])] += 1
            try:
                page.wait_for_function("v => { const m = document.querySelector('main section.info p')?.textContent.match(/Version (\\d+)\\./);"
                                       " return m && Number(m[1]) > v; }", arg=state["version"], polling="raf", timeout=60_000)
            except PlaywrightTimeout:  # say what the page and the game were at, not only that the wait ran out
                game = api.get(f"/v1/games/{game_id}").json()
                raise AssertionError(f"{kind}: no new version on the page 60 s after own command {n} "
                                     f"({commands[choice]} by {path}) at version {state['version']}: the page shows "
                                     f"version {version(page)}, status bar {page.inner_text('#status')!r}; the game is "
                                     f"{game['status']} at version {game['version']}, to act {game['to_act']}") from None
            if n % 3 == 0:  # the keyboard player's focus stays on the page across the re-draw
                assert page.evaluate("document.querySelector('main').contains(document.activeElement)"), "focus lost"
        raise AssertionError("the game did not end")
