"""The tile in hand: drawn beside the board, turned by its button, the R key and the mouse wheel, with a ghost on
exactly the spaces where it fits at that rotation (the legal list's PlaceTile commands), placed by a click on
one; a piece is moved by clicking it and then a highlighted destination."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.web.support import part_for, version, wait_until

GHOSTS_JS = """() => [...document.querySelectorAll('.table [data-key^="place:"].target')].map((e) => e.dataset.key).sort()"""


def seated_page(site: str, browser, kind: str):
    players = [httpx.post(f"{site}/v1/players", json={"name": name}).json() for name in ("Ann", "Bob")]
    auth = [{"Authorization": f"Bearer {p['token']}"} for p in players]
    game = httpx.post(f"{site}/v1/games", json={"kind": kind, "seats": 2}, headers=auth[0]).json()
    httpx.post(f"{site}/v1/games/{game['id']}/join", json={}, headers=auth[1]).raise_for_status()
    httpx.post(f"{site}/v1/games/{game['id']}/start", json={}, headers=auth[0]).raise_for_status()
    seat = httpx.get(f"{site}/v1/games/{game['id']}").json()["to_act"][0]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{site}/")
    page.evaluate("p => localStorage.setItem('stela.player', JSON.stringify(p))", {k: players[seat][k] for k in ("id", "name", "token")})
    page.goto(f"{site}/#/game/{game['id']}")
    return context, page, game["id"], auth[seat], auth[1 - seat]


def legal_places(site: str, game_id: str, auth: dict, rotation: int) -> list[str]:
    commands = httpx.get(f"{site}/v1/games/{game_id}/legal", headers=auth).json()["commands"]
    return sorted(f"place:{c.get('q', c.get('x'))},{c.get('r', c.get('y'))},{rotation}" for c in commands
                  if c["type"].endswith("PlaceTile") and c["rotation"] == rotation)


@pytest.mark.parametrize("kind, turns", [("tikal", 6), ("goldmine", 4)])
def test_the_tile_in_hand_turns_by_button_key_and_wheel_and_goes_where_its_ghost_stands(kind, turns, site, browser):
    context, page, game_id, auth, _ = seated_page(site, browser, kind)
    try:
        wait_until(page, lambda: page.locator(".hand .hand-tile").count(), "the tile in hand")
        box = page.locator(".hand .hand-tile").bounding_box()
        assert box["width"] >= 60, box  # a tile you can see
        said = lambda: page.inner_text(".hand-rotation")  # noqa: E731
        seen = []
        for turn in ("button", "key", "wheel"):
            before = said()
            rotation = int(before.split("°")[0].split()[-1]) * turns // 360
            assert page.evaluate(GHOSTS_JS) == legal_places(site, game_id, auth, rotation), f"{kind}: ghosts at {rotation}"
            if turn == "button":
                page.click(".hand button.rotate")
            elif turn == "key":
                page.keyboard.press("r")
            else:
                page.locator(".viewport").hover()
                page.mouse.wheel(0, 120)
            wait_until(page, lambda: said() != before, f"the tile turned by the {turn}")
            seen.append(said())
        assert len(set(seen)) == 3, seen
        ghosts = page.evaluate(GHOSTS_JS)
        while not ghosts:  # a rotation that fits nowhere: turn on
            page.keyboard.press("r")
            page.wait_for_timeout(50)
            ghosts = page.evaluate(GHOSTS_JS)
        version = httpx.get(f"{site}/v1/games/{game_id}").json()["version"]
        page.locator(f'.table [data-key="{ghosts[0]}"]').click()
        wait_until(page, lambda: httpx.get(f"{site}/v1/games/{game_id}").json()["version"] > version, "the tile placed")
        placed = httpx.get(f"{site}/v1/games/{game_id}/events?after={version}").json()["events"][0]
        x, y, rot = (int(v) for v in ghosts[0].split(":")[1].split(","))
        assert placed["type"] == f"{kind}.TilePlaced"
        assert (placed["data"].get("q", placed["data"].get("x")), placed["data"].get("r", placed["data"].get("y")),
                placed["data"]["rotation"]) == (x, y, rot)
        wait_until(page, lambda: "placed" in page.inner_text(".last-move"), "the last move said")
        assert page.locator("svg.board .last-ring").count() == 1, "the last move ringed on the board"
    finally:
        context.close()


def test_a_piece_moves_by_clicking_it_then_a_highlighted_destination(site, browser):
    context, page, game_id, auth, _ = seated_page(site, browser, "tikal")
    try:
        wait_until(page, lambda: page.evaluate(GHOSTS_JS), "the ghosts")
        page.locator(f'.table [data-key="{page.evaluate(GHOSTS_JS)[0]}"]').click()
        wait_until(page, lambda: page.locator('.table [data-key="supply:explorer"].target').count(), "the supply offered")
        page.click('.table [data-key="supply:explorer"]')
        targets = page.evaluate("""() => [...document.querySelectorAll('svg.board [data-key].target')].map((e) => e.dataset.key)""")
        assert targets == ["0,0"], targets  # an explorer enters at the base camp only
        version = httpx.get(f"{site}/v1/games/{game_id}").json()["version"]
        page.click('svg.board [data-key="0,0"]')
        wait_until(page, lambda: httpx.get(f"{site}/v1/games/{game_id}").json()["version"] > version, "the piece entered")
        wait_until(page, lambda: page.locator('svg.board [data-key="0,0"].target').count(), "the piece offered to move")
        page.click('svg.board [data-key="0,0"]')
        dests = page.evaluate("""() => [...document.querySelectorAll('svg.board [data-key].target')].map((e) => e.dataset.key)""")
        commands = httpx.get(f"{site}/v1/games/{game_id}/legal", headers=auth).json()["commands"]
        moves = {f"{c['to_q']},{c['to_r']}" for c in commands if c["type"] == "tikal.MovePiece" and (c["from_q"], c["from_r"]) == (0, 0)
                 and not c["leader"]}
        assert set(dests) == moves and moves, (dests, moves)
        version = httpx.get(f"{site}/v1/games/{game_id}").json()["version"]
        page.click(f'svg.board [data-key="{dests[0]}"]')
        if page.locator(".choice button").count():  # several explorers there: which one, in words
            page.locator(".choice button").first.click()
        wait_until(page, lambda: httpx.get(f"{site}/v1/games/{game_id}").json()["version"] > version, "the piece moved")
        moved = httpx.get(f"{site}/v1/games/{game_id}/events?after={version}").json()["events"][0]
        assert moved["type"] == "tikal.PieceMoved" and f"{moved['data']['to_q']},{moved['data']['to_r']}" == dests[0], json.dumps(moved)
    finally:
        context.close()


def test_a_half_made_choice_survives_another_seats_move_while_it_still_leads_somewhere(site, browser):
    """Cóatl's opening: both seats keep prophecies at once. Ann picks one card; Bob keeps his meanwhile, so Ann's
    page is redrawn at the next version; her pick is still chosen (still the start of a legal keep) and she
    finishes the keep from there; once it is sent, nothing is shown as chosen."""
    context, page, game_id, auth, bob = seated_page(site, browser, "coatl")
    try:
        game = httpx.get(f"{site}/v1/games/{game_id}").json()
        assert len(game["to_act"]) == 2  # the opening is simultaneous
        mine = httpx.get(f"{site}/v1/games/{game_id}/legal", headers=auth).json()
        keep = max((c for c in mine["commands"] if c["type"] == "coatl.KeepProphecies"), key=lambda c: len(c["cards"]))
        assert len(keep["cards"]) >= 2
        first = f'.table [data-key="hand:{keep["cards"][0]}"]'
        page.wait_for_selector(first + ".target")
        part_for(page, f'hand:{keep["cards"][0]}').click()
        assert "selected" in page.get_attribute(first, "class")
        theirs = httpx.get(f"{site}/v1/games/{game_id}/legal", headers=bob).json()
        sent = httpx.post(f"{site}/v1/games/{game_id}/commands", headers=bob, json={
            "command": theirs["commands"][0], "expected_version": theirs["version"]})
        assert sent.status_code == 200, sent.text
        wait_until(page, lambda: version(page) == sent.json()["version"], "Ann's page at Bob's keep")
        assert "selected" in page.get_attribute(first, "class"), "the pick was dropped by the redraw"
        for key in [*(f"hand:{card}" for card in keep["cards"][1:]), "keep"]:
            part_for(page, key).click()

        def kept() -> list[dict]:
            events = httpx.get(f"{site}/v1/games/{game_id}/events", headers=auth).json()["events"]
            return [e["data"] for e in events if e["type"] == "coatl.OpeningHandKept" and e["data"]["seat"] == mine["seat"]]

        ann = wait_until(page, kept, "Ann's keep recorded")
        assert sorted(ann[0]["kept"]) == sorted(keep["cards"]), ann
        wait_until(page, lambda: page.locator(".table .selected").count() == 0, "the sent choice no longer shown as chosen")
    finally:
        context.close()
