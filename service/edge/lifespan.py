"""Start-up and shut-down: open the services, run the start hooks, drain on SIGTERM.

Pools and clients open here (through the composition root), never at import. Under `stela
serve` (state `metrics_port` set) the metrics port opens here too. On shutdown SSE streams are
told to close (with a retry hint so clients reconnect elsewhere) before the store closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import structlog
from litestar import Litestar

from service.container import open_services
from service.ops.logging import flush_access_lines

log = structlog.get_logger("stela.lifespan")
STOP_HOOK_SECONDS = 15.0  # a stop hook that takes longer is given up (the process still exits)
SLOW_STOP_HOOK = 1.0  # a stop hook that takes longer is logged (a stop is normally milliseconds)


def begin_shutdown(app: Litestar) -> None:
    """Tell SSE streams to close now (with a retry hint) so clients reconnect to another replica."""
    services = app.state.get("services")
    if services is not None and not services.closing.is_set():
        services.closing.set()
        services.broker.wake_all()


async def _stop_hook(hook: Any, app: Litestar) -> None:
    """Run one stop hook within `STOP_HOOK_SECONDS`; a failed, timed-out or slow one is logged, so a
    slow shutdown says which hook held it (a stop stuck for the whole bound left no trace before)."""
    began = time.monotonic()
    try:
        await asyncio.wait_for(hook(app), STOP_HOOK_SECONDS)
    except Exception as exc:  # noqa: BLE001 - the other hooks and the services' close still run
        log.warning("stop_hook_failed", hook=getattr(hook, "__qualname__", repr(hook)),
                    error_type=type(exc).__name__, seconds=round(time.monotonic() - began, 3))
        return
    if (seconds := time.monotonic() - began) > SLOW_STOP_HOOK:
        log.warning("stop_hook_slow", hook=getattr(hook, "__qualname__", repr(hook)), seconds=round(seconds, 3))


async def _metrics_port(state: Any, services: Any) -> asyncio.Server | None:
    from service.ops.metrics import serve_metrics
    from service.edge.routes.ops import exposition

    port = state.get("metrics_port")
    if port is None:
        return None
    server = await serve_metrics(state.settings.host, port, lambda: exposition(services))
    state.metrics_bound_port = server.sockets[0].getsockname()[1]
    return server


@contextlib.asynccontextmanager
async def lifespan(app: Litestar) -> AsyncIterator[None]:
    state = app.state
    async with open_services(state.settings, state.games, state.get("store"), state.metrics) as services:
        state.services = services
        state.closing = services.closing
        for hook in state.get("on_start", []):
            await hook(app)
        scrape = await _metrics_port(state, services)
        try:
            yield
        finally:
            if scrape is not None:
                scrape.close()
            begin_shutdown(app)
            for hook in reversed(state.get("on_stop", [])):
                await _stop_hook(hook, app)
            flush_access_lines()
    log.info("stopped")
