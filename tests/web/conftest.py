"""Web client fixtures: the service with the client's routes served in-process, and Debian's Chromium.

A missing browser is a failure, never a skip.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import fresh_database
from tests.support.live import serving

SHOTS = Path(__file__).parents[2] / "build" / "screenshots"


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "Debian's chromium is not installed (apt-get install chromium)"
    return path


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The API and the web client on one origin, over a fresh database."""
    from service.app import create_app
    from service.settings import Settings
    from service.web import routes

    with fresh_database("stela_web") as dsn:
        settings = Settings(database_url=dsn, redis_url=None, rate_limit=0, heartbeat_seconds=1,
                            snapshot_every=20, log_level="warning", projector="embedded")
        app = create_app(settings)
        for router in routes():
            app.register(router)
        with serving(app) as url:
            yield url


@pytest.fixture(scope="module")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def screenshot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / name
    page.screenshot(path=str(path), full_page=True)
    return path
