"""Every page besides the boards is drawn in the boards' language, readable on a desk and on a phone.

At 1280x900 and 390x844: the welcome (register and sign in), the lobby with its account, the tournaments and one
tournament with the organiser's tools, the arenas and one arena. On each: no text under 12 px, nothing wider than
the screen, and no bare default form control (every visible input, select and button framed by the shared style:
a border of the boards' colours and rounded corners). Each is screenshotted into docs/screenshots/.
"""

from __future__ import annotations

import httpx
import pytest

from tests.web.conftest import browser, site  # noqa: F401  (the service in-process; Chromium)
from tests.web.support import SIZES_JS, register, shoot, wait_until

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


def check(page, name: str) -> None:
    """Readable, no wider than the screen, no bare control; then its screenshot."""
    width = page.viewport_size["width"]
    assert not page.evaluate(SIZES_JS), f"{name} at {width}: {page.evaluate(SIZES_JS)[:5]}"
    assert page.evaluate(OVERFLOW_JS) <= 1, f"{name} at {width}: wider than the screen"
    assert not page.evaluate(CONTROLS_JS), f"{name} at {width}: bare controls {page.evaluate(CONTROLS_JS)[:8]}"
    shoot(page, f"page-{name}-{width}.png")


@pytest.mark.parametrize("size", [(1280, 900), (390, 844)])
def test_every_page_is_drawn_like_the_boards_at_both_sizes(size, site, browser):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 600, has_touch=width < 600)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(site + "/")
        page.wait_for_selector("#signin")
        check(page, "welcome")
        me = register(page, site, f"Org {width}")
        wait_until(page, lambda: page.locator("#my-games li").count() and page.locator("#open-games li").count(), "the lobby's lists")

        check(page, "lobby")
        auth = {"Authorization": f"Bearer {me['token']}"}
        tournament = httpx.post(f"{site}/v1/tournaments", headers=auth, json={
            "kind": "tikal", "name": "Autumn cup", "seats": 2, "format": "swiss", "rounds": 3}).json()
        arena = httpx.post(f"{site}/v1/arenas", headers=auth, json={
            "kind": "goldmine", "name": "Night arena", "seats": 2, "minutes": 30}).json()
        for route, ready, name in (("#/tournaments", "#tournaments li[data-tournament]", "tournaments"),
                                   (f"#/tournament/{tournament['tournament_id']}", "#t-bots", "tournament"),
                                   ("#/arenas", "#arenas li[data-arena]", "arenas"),
                                   (f"#/arena/{arena['arena_id']}", "#a-standings", "arena")):
            page.goto(f"{site}/{route}")
            page.wait_for_selector(ready)
            check(page, name)
        assert not errors, errors
    finally:
        context.close()
