"""The web client follows live through the TypeScript SDK's multiplexed stream: a page holds ONE connection.

The lobby (its personal notices) and a game page each open exactly one EventSource, to `/v1/stream`, never a
game's own stream or the personal stream; and when `stela serve` is restarted under an open game page, that
connection resumes (the browser's `Last-Event-ID` or the SDK's `after=`) and the page shows the moves made
after the restart without a reload (a game page does not poll: only its stream makes it read again).
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.browser.test_cross_origin import server  # noqa: F401  (`stela serve`, restartable on its port)
from tests.web.conftest import browser, screenshot  # noqa: F401  (Debian's Chromium)
from tests.web.support import version, wait_until

# Every EventSource the page constructs (the SDK makes a new one when the browser's own reconnect gives up), whether
# it was closed, and the frames it received (Playwright does not show the Last-Event-ID header a reconnect sends).
COUNT_SOURCES = """(() => {
  const Native = window.EventSource;
  window.__sources = [];
  window.EventSource = class extends Native {
    constructor(url, init) {
      super(url, init);
      window.__sources.push(this);
      this.frames = [];  // the type of every frame received, in order
      this.addEventListener("message", (msg) => { try { this.frames.push(JSON.parse(msg.data).type); } catch { /* */ } });
    }
  };
})()"""
SOURCES_JS = "() => window.__sources.map((s) => ({ url: s.url, state: s.readyState }))"


def move(api: str, game_id: str, tokens: list[str]) -> int:
    """Whoever may act plays their first legal command; the game's new version."""
    for token in tokens:
        auth = {"Authorization": f"Bearer {token}"}
        legal = httpx.get(f"{api}/v1/games/{game_id}/legal", headers=auth).json()
        if legal["commands"]:
            done = httpx.post(f"{api}/v1/games/{game_id}/commands", headers=auth,
                              json={"command": legal["commands"][0], "expected_version": legal["version"]})
            assert done.status_code in (200, 201), done.text
            return done.json()["version"]
    raise AssertionError("nobody may act")


def test_a_game_page_holds_one_multiplexed_stream_and_resumes_it_after_a_restart(server, browser):
    api = server.url
    ann, bob = (httpx.post(f"{api}/v1/players", json={"name": n}).json() for n in ("Ann", "Bob"))
    auth = {"Authorization": f"Bearer {ann['token']}"}
    game_id = httpx.post(f"{api}/v1/games", headers=auth, json={"kind": "coatl", "seats": 2}).json()["id"]
    httpx.post(f"{api}/v1/games/{game_id}/join", json={}, headers={"Authorization": f"Bearer {bob['token']}"}).raise_for_status()
    httpx.post(f"{api}/v1/games/{game_id}/start", json={}, headers=auth).raise_for_status()
    tokens = [ann["token"], bob["token"]]

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    requested: list[str] = []  # every stream connection, the browser's own reconnects included
    page.on("request", lambda r: requested.append(r.url) if r.resource_type == "eventsource" else None)
    page.add_init_script(COUNT_SOURCES)
    player = json.dumps({"id": ann["id"], "name": ann["name"], "token": ann["token"]})
    page.add_init_script(f"localStorage.setItem('stela.player', {json.dumps(player)})")
    try:
        # the lobby: the personal notices on one multiplexed connection
        page.goto(api + "/#/")
        wait_until(page, lambda: page.locator(f'#my-games li[data-game="{game_id}"]').count(), "the game in the lobby")
        sources = wait_until(page, lambda: page.evaluate(SOURCES_JS), "the lobby's stream")
        assert len(sources) == 1, sources
        lobby = urlsplit(sources[0]["url"])
        assert lobby.path == "/v1/stream" and parse_qs(lobby.query)["personal"] == ["true"]
        assert "token" not in lobby.query and parse_qs(lobby.query)["ticket"], "a stream ticket, never the token"

        # the game page (the same document: a hash route): the lobby's connection closed, one to /v1/stream for the game
        page.goto(f"{api}/#/game/{game_id}")
        page.wait_for_selector("ol.commands, section.info")
        wait_until(page, lambda: any(s["state"] == 1 for s in page.evaluate(SOURCES_JS)), "the game's stream open")
        sources = [s for s in page.evaluate(SOURCES_JS) if s["state"] != 2]  # (the lobby's, closed, left behind)
        assert len(sources) == 1, f"a game page holds one stream: {sources}"
        assert len(page.evaluate(SOURCES_JS)) == 2, "one for the lobby, then one for the game"
        url = urlsplit(sources[0]["url"])
        assert url.path == "/v1/stream" and parse_qs(url.query)["games"] == [game_id]
        assert page.get_attribute("#app", "data-live") == "stream"

        before = move(api, game_id, tokens)  # live: the page follows without a reload
        wait_until(page, lambda: version(page) == before, f"version {before} shown live")

        server.stop()  # every connection drops; the SDK (or the browser) reconnects to the same address
        server.start()
        after = before
        for _ in range(2):
            after = move(api, game_id, tokens)
        wait_until(page, lambda: version(page) == after, f"version {after} shown after the restart", 120)

        assert page.evaluate("window.__sources.filter((s) => s.readyState !== 2).length") == 1, \
            "still one connection after the restart"
        assert requested and all(urlsplit(u).path == "/v1/stream" for u in requested), "never a game's or the personal stream"
        game_streams = [u for u in requested if parse_qs(urlsplit(u).query).get("games") == [game_id]]
        assert len(game_streams) >= 2, f"the game's stream connected again after the restart: {game_streams}"
        frames = page.evaluate("window.__sources.slice(1).flatMap((s) => s.frames)")  # the game's, across reconnects
        assert frames.count("ready") >= 2, f"caught up again after the restart: {frames}"
        assert frames.count("snapshot") == 1, f"resumed from its position (the events missed, no new snapshot): {frames}"
        assert "event" in frames[frames.index("ready") + 1:], f"the moves came as events: {frames}"
        assert not errors, errors
        screenshot(page, "web-one-stream-after-restart.png")
    finally:
        context.close()
