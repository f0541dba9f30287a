"""Web client fixtures: the service (which serves the client at /) in-process; Debian's Chromium from tests/browser.

A missing browser is a failure, never a skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import browser, chromium_path, screenshot_path  # noqa: F401  (Debian's Chromium)
from tests.conftest import fresh_database
from testkit.live import free_port, serving

@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The API and the web client on one origin, over a fresh database."""
    from service.edge.app import create_app
    from service.ops.settings import Settings

    with fresh_database("stela_web") as dsn:
        port = free_port()  # known before the app, whose OAuth metadata names its public URL
        settings = Settings(database_url=dsn, redis_url=None, rate_limit=0, heartbeat_seconds=1,
                            snapshot_every=20, log_level="warning", projector="embedded",
                            public_url=f"http://127.0.0.1:{port}")
        app = create_app(settings)  # serves the client at / itself
        with serving(app, port) as url:
            yield url


def screenshot(page, name: str) -> Path:
    """A full-page screenshot in build/screenshots/."""
    path = screenshot_path(name)
    page.screenshot(path=str(path), full_page=True)
    return path
