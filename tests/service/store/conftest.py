"""Fixtures of the store tests: a database of a test's own, for what must not meet the session's shared one."""

from __future__ import annotations

import pytest


@pytest.fixture
def own_dsn():
    """A fresh database for this test alone (its DSN), dropped after it."""
    from tests.conftest import fresh_database

    with fresh_database("stela_own") as dsn:
        yield dsn
