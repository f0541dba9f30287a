"""Browser fixtures: Debian's Chromium driven by Playwright, a static page on its own origin.

A missing browser is a failure, never a skip: `.ci/run` installs Debian's `chromium`.
"""

from __future__ import annotations

import concurrent.futures
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from testkit.live import static_files
from tests.conftest import fresh_database

PAGE = Path(__file__).parent / "page"
ARTIFACTS = Path(__file__).parents[2] / "build" / "screenshots"


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "Debian's chromium is not installed (apt-get install chromium; .ci/run does it)"
    return path


_CHROMIUM: dict = {}  # the one Playwright and Chromium of this process, and how many fixtures hold them


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """One Chromium per test module; each test opens contexts of its own and closes them. Not one per session:
    Playwright's sync API keeps an event loop running on the test thread while it is started, and every
    later test on that worker that runs a loop of its own (pytest-asyncio, `asyncio.run`) would fail with
    "cannot be called from a running event loop" (the sites are per session: they run in threads).

    tests/web's conftest imports this fixture, which makes it a second fixture there; both hand out the one
    Chromium (Playwright's sync API runs one instance per thread), closed when the last of them ends."""
    if not _CHROMIUM:
        from playwright.sync_api import sync_playwright

        playwright = sync_playwright().start()
        _CHROMIUM.update(playwright=playwright, users=0, browser=playwright.chromium.launch(
            executable_path=chromium_path(), args=["--no-sandbox"]))
    _CHROMIUM["users"] += 1
    try:
        yield _CHROMIUM["browser"]
    finally:
        _CHROMIUM["users"] -= 1
        if not _CHROMIUM["users"]:
            _CHROMIUM["browser"].close()
            _CHROMIUM.pop("playwright").stop()
            _CHROMIUM.clear()


def in_thread(call):
    """Run `call` on a fresh thread: Playwright's sync API keeps an event loop running on this one,
    and the database helpers use asyncio.run."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


@contextmanager
def database(prefix: str) -> Iterator[str]:
    """`fresh_database(prefix)`, made and dropped on a thread of its own (see `in_thread`): the DSN."""
    made = fresh_database(prefix)
    dsn = in_thread(made.__enter__)
    try:
        yield dsn
    finally:
        in_thread(lambda: made.__exit__(None, None, None))


@pytest.fixture(scope="module")
def static_origin() -> Iterator[str]:
    """The test page, served from an origin of its own (another port than the API's)."""
    with static_files(PAGE) as origin:
        yield origin


def screenshot_path(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name
