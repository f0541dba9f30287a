"""Start-up and shut-down: open the services, run the start hooks, drain on SIGTERM.

Pools and clients open here (through the composition root), never at import. On shutdown
SSE streams are told to close (with a retry hint so clients reconnect elsewhere) before the
store closes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import structlog
from litestar import Litestar

from service.container import open_services

log = structlog.get_logger("stela.lifespan")


def begin_shutdown(app: Litestar) -> None:
    """Tell SSE streams to close now (with a retry hint) so clients reconnect to another replica."""
    services = app.state.get("services")
    if services is not None and not services.closing.is_set():
        services.closing.set()
        services.broker.wake_all()


@contextlib.asynccontextmanager
async def lifespan(app: Litestar) -> AsyncIterator[None]:
    state = app.state
    async with open_services(state.settings, state.games, state.get("store"), state.metrics) as services:
        state.services = services
        state.closing = services.closing
        for hook in state.get("on_start", []):
            await hook(app)
        try:
            yield
        finally:
            begin_shutdown(app)
            for hook in reversed(state.get("on_stop", [])):
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(hook(app), 15)
    log.info("stopped")
