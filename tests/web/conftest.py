"""Web client fixtures: the service (which serves the client at /) in-process; Debian's Chromium from tests/browser.

The sites and the browser are built once per test session (once per xdist worker) and shared by every module:
each test registers players of its own and reads only the games, competitions and apps it made, so no test
needs a database to itself. A missing browser is a failure, never a skip.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.browser.conftest import browser, chromium_path, database, screenshot_path  # noqa: F401  (Debian's Chromium)
from testkit.live import free_port, serving

# each site lives the whole session (per xdist worker) beside the tests' own apps: a small pool keeps every
# worker's PostgreSQL connections bounded (3 workers under the server's 100; the default of 20 each was not)
POOL = 5


@pytest.fixture(scope="session")
def site() -> Iterator[str]:
    """The API and the web client on one origin, over a fresh database, with no rate limit; it hosts the catalogue
    and the test game Tally (which has no board drawer: test_generic_board.py)."""
    from domain.catalog import GAMES
    from service.edge.app import create_app
    from service.ops.settings import Settings
    from testkit.tally import TALLY

    with database("stela_web") as dsn:
        port = free_port()  # known before the app, whose OAuth metadata names its public URL
        settings = Settings(database_url=dsn, redis_url=None, rate_limit=0, heartbeat_seconds=1, db_pool_max=POOL,
                            snapshot_every=20, log_level="warning", projector="embedded",
                            public_url=f"http://127.0.0.1:{port}")
        app = create_app(settings, games={**GAMES, "tally": TALLY})  # serves the client at / itself
        with serving(app, port) as url:
            yield url


ADMIN = "web-bot-worker-secret"


@pytest.fixture(scope="session")
def bot_site() -> Iterator[str]:
    """The site at the default rate limits with an admin token, and a bot worker (over HTTP, in a thread)
    playing the bots its players ask for: a new bot game is leased within a second."""
    from service.bots.runner import BotWorker
    from service.edge.app import create_app
    from service.ops.settings import Settings

    with database("stela_web_bots") as dsn:
        port = free_port()
        settings = Settings(database_url=dsn, redis_url=None, heartbeat_seconds=1, snapshot_every=20, db_pool_max=POOL,
                            log_level="warning", projector="embedded", admin_token=ADMIN, env="development",
                            public_url=f"http://127.0.0.1:{port}")
        with serving(create_app(settings), port) as url:
            loop = asyncio.new_event_loop()
            stop = asyncio.Event()

            async def work() -> None:
                async with httpx.AsyncClient(base_url=url, timeout=30) as http:
                    await BotWorker(http, ADMIN, "web", lease_seconds=6, poll=0.5).run(stop)

            thread = threading.Thread(target=loop.run_until_complete, args=(work(),), daemon=True)
            thread.start()
            try:
                yield url
            finally:
                loop.call_soon_threadsafe(stop.set)
                thread.join(30)


def screenshot(page, name: str) -> Path:
    """A full-page screenshot in build/screenshots/."""
    path = screenshot_path(name)
    page.screenshot(path=str(path), full_page=True)
    return path
