"""Start-up and shut-down: open the services, drain on SIGTERM.

Pools, clients and workers open here (through the composition root, `open_services`), never at
import. Under `stela serve` (state `metrics_port` set) the metrics port opens here too. On
shutdown SSE streams are told to close (with a retry hint so clients reconnect elsewhere), the
edge's own stop hooks run (each bounded and logged, `service.ops.stopping.stop_bounded`), then
the root stops the workers and closes the store.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import structlog
from litestar import Litestar

from service.container import Services, open_services
from service.ops.logging import flush_access_lines
from service.ops.stopping import stop_bounded

log = structlog.get_logger("stela.lifespan")


def begin_shutdown(app: Litestar) -> None:
    """Tell SSE streams to close now (with a retry hint) so clients reconnect to another replica."""
    services = app.state.get("services")
    if services is not None and not services.closing.is_set():
        services.closing.set()
        services.broker.wake_all()


async def _metrics_port(state: Any, services: Services) -> asyncio.Server | None:
    from service.edge.routes.ops import exposition
    from service.ops.metrics import serve_metrics

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
        scrape = await _metrics_port(state, services)
        try:
            yield
        finally:
            if scrape is not None:
                scrape.close()
            begin_shutdown(app)
            for hook in reversed(state.get("on_stop", [])):
                await stop_bounded(getattr(hook, "__qualname__", repr(hook)), lambda hook=hook: hook(app))
            flush_access_lines()
    log.info("stopped")
