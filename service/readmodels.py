"""Read-model wiring: the projector and the query side (filled in by the projections package)."""

from __future__ import annotations

from typing import Any

from litestar.datastructures import State

from service.settings import Settings


def install(state: State, settings: Settings) -> list[Any]:
    """Register start/stop hooks for the projector and return the read-model route handlers."""
    return []
