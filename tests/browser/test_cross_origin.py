"""A static page on another origin plays a whole game through the API in headless Chromium.

It registers two players, creates, joins and starts a game, plays it to the end from `/legal`
with `fetch`, and follows both seats with native `EventSource` and stream tickets (one
`onmessage` handler, frames carrying their type) while the server is restarted mid-game. Each
seat must receive exactly its own view of every event, once, in order, across the restart. The
kind is Cóatl, whose hands are private: each seat's frames must hold its own hand and not the other's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.browser.conftest import database, screenshot_path
from testkit.live import free_port

KIND, SEATS = "coatl", 2  # private hands: a seat's stream must differ from the other's


class Server:
    """`stela serve` on a fixed port, so it can be restarted where the browser expects it."""

    def __init__(self, dsn: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "DATABASE_URL": dsn, "STELA_PORT": str(self.port), "STELA_LOG_LEVEL": "warning",
                    "STELA_METRICS_PORT": str(free_port()),
                    "STELA_HEARTBEAT_SECONDS": "1",
                    "STELA_RATE_LIMIT": "0"}  # a script plays far faster than any person clicks
        self.env.pop("REDIS_URL", None)
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        stela = Path(sys.executable).with_name("stela")
        self.proc = subprocess.Popen([str(stela), "serve"], env=self.env, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("stela serve did not start")

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.terminate()
        self.proc.wait(30)


@pytest.fixture
def server():
    with database("stela_browser") as dsn:
        s = Server(dsn)
        s.start()
        try:
            yield s
        finally:
            if s.proc and s.proc.poll() is None:
                s.stop()


def events_as_seat(api: str, game_id: str, after: int, seat: int) -> list[dict]:
    """Every event after `after` as `seat` received it, page by page."""
    events: list[dict] = []
    while True:
        page = httpx.get(f"{api}/v1/games/{game_id}/events", params={"after": after, "as_seat": seat}).json()
        if after >= page["version"]:
            return events
        events += page["events"]
        after = min(after + 1000, page["version"])  # a page covers (after, after + limit] versions


def wait_for(page, script: str, deadline_s: float = 120) -> None:
    deadline = time.monotonic() + deadline_s
    while not page.evaluate(script):
        assert time.monotonic() < deadline, f"timed out waiting for {script}"
        page.wait_for_timeout(100)


def test_a_page_on_another_origin_plays_a_game_and_follows_each_seat_across_a_restart(browser, static_origin, server):
    page = browser.new_page()
    page.goto(static_origin + "/index.html")
    game = page.evaluate("([api, kind, seats]) => window.stela.setup(api, kind, seats)", [server.url, KIND, SEATS])
    assert page.evaluate("window.stela.play(15)") == "active"

    server.stop()  # mid-game: every EventSource drops and reconnects with Last-Event-ID
    server.start()
    status = "active"
    while status == "active":
        status = page.evaluate("window.stela.play(100)")
    assert status == "finished"

    final = httpx.get(f"{server.url}/v1/games/{game['gameId']}").json()["version"]
    wait_for(page, f"Object.values(window.stela.report().followers).every(f => f.lastVersion >= {final})")
    report = page.evaluate("window.stela.report()")
    assert report["errors"] == []
    page.screenshot(path=str(screenshot_path("cross-origin-client.png")), full_page=True)

    for seat in range(SEATS):
        follower = report["followers"][f"seat {seat}"]
        assert follower["opens"] >= 2, "the stream reconnected after the restart"
        frames = [f for f in follower["frames"] if f["type"] != "snapshot"]
        versions = [int(f["id"]) for f in frames]
        first_snapshot = next(f for f in follower["frames"] if f["type"] == "snapshot")
        assert first_snapshot["frame"]["game"]["view"]["seat"] == seat
        for snapshot in (f["frame"]["game"]["view"] for f in follower["frames"] if f["type"] == "snapshot"):
            mine, other = (next(p for p in snapshot["players"] if p["seat"] == s) for s in (seat, 1 - seat))
            assert mine["hand"] is not None or mine["dealt"] is not None, "a seat sees its own cards"
            assert other["hand"] is None and other["dealt"] is None and other["temples"] is None, \
                "no other seat's secrets"
        start = int(first_snapshot["id"])
        assert versions == list(range(start + 1, final + 1)), "every event exactly once, in order"
        # after the end the log is public: the events as this seat received them, from the server
        expected = events_as_seat(server.url, game["gameId"], start, seat)
        assert [f["frame"] for f in frames] == expected, "each seat saw exactly its own view of every event"
        theirs = events_as_seat(server.url, game["gameId"], start, 1 - seat)
        assert len(theirs) == len(expected) and any(a != b for a, b in zip(expected, theirs)), \
            "the two seats' frames differ where a hand is private (a seat-blind stream would not)"
    spectator = [f for f in report["followers"]["spectator"]["frames"] if f["type"] != "snapshot"]
    assert spectator and all(f["frame"]["type"] for f in spectator)
