"""Two players play a whole game of every kind in the web client, a spectator follows, then the replay.

Most commands are sent by clicks on the board (a piece then its target, one spot, or an action-bar
button; some by keyboard), every fourth from the legal list. Each seat's page must never hold the other
seat's secrets (taken from the server's own view for that seat); the spectator's page follows to the end;
the replay slider reaches every version as either seat; the browser's verification of the hash chain and
seed commitment passes. Screenshots of every board go to build/screenshots/web-<kind>.png (the end),
web-<kind>-clicks.png (mid-game, clickable parts highlighted) and web-<kind>-replay.png.
"""

from __future__ import annotations

import re

import httpx
import pytest

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


# The commands every game of a kind sends, each clicked on the board at least once (the list is the fallback).
CLICKED = {"goldmine": {"EndTurn", "PlaceTile"}, "coatl": {"TakePieces", "EndTurn", "KeepProphecies"},
           "tikal": {"PlaceTile", "EndTurn"}, "tobago": {"Drive", "EndTurn"}}


@pytest.mark.parametrize("kind", ["goldmine", "coatl", "tikal", "tobago"])
def test_two_players_play_a_whole_game_a_spectator_follows_and_the_replay_verifies(kind, site, browser):
    contexts = [browser.new_context(viewport={"width": 1100, "height": 900}) for _ in range(3)]
    ann, bob, watcher = (c.new_page() for c in contexts)
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
        sent = play_through([ann, bob], site, game_id, kind,
                            check=lambda: assert_no_foreign_secrets(site, kind, game_id, [ann, bob], tokens),
                            snap=f"web-{kind}-clicks.png")
        print(kind, sorted(sent.items()))
        ways = {w.split("/")[0] for w, _ in sent}
        assert {"list", "bar", "spot", "piece"} <= ways, f"{kind}: not every way to send a command was used: {ways}"
        assert {"piece/keyboard", "spot/keyboard"} & {w for w, _ in sent}, f"{kind}: the board was not used by keyboard"
        clicked = {t for w, t in sent if w != "list"}
        assert clicked >= CLICKED[kind], f"{kind}: {CLICKED[kind] - clicked} never sent by clicks: {sent}"
        final = httpx.get(f"{site}/v1/games/{game_id}").json()
        assert final["status"] == "finished"
        for page in (ann, bob, watcher):
            wait_until(page, lambda: status_of(page) == "finished" and version(page) == final["version"],
                       "every page at the final version")
        assert watcher.locator("ol.commands button").count() == 0
        screenshot(ann, f"web-{kind}.png")

        watcher.goto(f"{site}/#/replay/{game_id}")
        wait_until(watcher, lambda: watcher.locator("#verdict").count(), "the verification result")
        assert watcher.inner_text("#verdict") == "Verified", watcher.inner_text("#verification")
        for seat in (0, 1):
            watcher.select_option("#replay-seat", str(seat))
            for n in range(1, final["version"] + 1, 1 if seat == 0 else 50):
                watcher.locator("#replay-version").fill(str(n))
                watcher.wait_for_function("n => document.querySelector('main').dataset.shown === String(n)", arg=n,
                                          polling="raf", timeout=30_000)
        screenshot(watcher, f"web-{kind}-replay.png")
    finally:
        for c in contexts:
            c.close()
