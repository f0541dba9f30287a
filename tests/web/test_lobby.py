"""The lobby in a phone-sized browser: register by keyboard, a create form generated from every kind's
option schema, a game listed for others to join, nothing wider than the screen (a game against a bot: test_lobby_bots.py)."""

from __future__ import annotations

import httpx

from tests.web.conftest import screenshot
from tests.web.support import register, wait_until


def test_the_lobby_works_by_keyboard_at_phone_width_and_builds_each_kind_s_form_from_its_schema(site, browser):
    context = browser.new_context(viewport={"width": 375, "height": 740})
    page = context.new_page()
    try:
        page.goto(site + "/")
        page.wait_for_selector("#name")
        for _ in range(5):  # the name field is a few Tab presses away
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.id") == "name":
                break
        assert page.evaluate("document.activeElement.id") == "name"
        page.keyboard.type("Kim")
        page.keyboard.press("Enter")
        page.wait_for_selector("#create")
        kinds = httpx.get(site + "/v1/kinds").json()
        for kind in kinds:
            page.select_option("#kind", kind["kind"])
            schema = kind["options_schema"]
            props = schema["$defs"][schema["$ref"].split("/")[-1]]["properties"] if "$ref" in schema else schema["properties"]
            simple = [n for n, p in props.items() if "enum" in p or p.get("type") in ("boolean", "integer")]
            for name in simple:
                assert page.locator(f"#opt-{name}").count() == 1, f"{kind['kind']} option {name} has no field"
            assert page.evaluate("document.documentElement.scrollWidth") <= 375
        page.select_option("#kind", "coatl")
        page.click("#create button[type=submit]")
        wait_until(page, lambda: "#/game/" in page.url, "the new game's page")
        game_id = page.url.rsplit("/", 1)[1]
        other = context.browser.new_context(viewport={"width": 375, "height": 740}).new_page()
        register(other, site, "Lou")
        wait_until(other, lambda: other.locator(f'#open-games li[data-game="{game_id}"] button.join').count()
                   or other.reload() and False, "the game in Lou's open list")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        screenshot(other, "web-lobby-phone.png")
        other.context.close()
    finally:
        context.close()

