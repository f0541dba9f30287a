"""Browser fixtures: Debian's Chromium driven by Playwright, a static page on its own origin.

A missing browser is a failure, never a skip: `.ci/run` installs Debian's `chromium`.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.live import static_files

PAGE = Path(__file__).parent / "page"
ARTIFACTS = Path(__file__).parents[2] / "build" / "screenshots"


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "Debian's chromium is not installed (apt-get install chromium; .ci/run does it)"
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def static_origin() -> Iterator[str]:
    """The test page, served from an origin of its own (another port than the API's)."""
    with static_files(PAGE) as origin:
        yield origin


def screenshot_path(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name
