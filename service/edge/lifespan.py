"""Start-up and shut-down: open the services, drain on SIGTERM.

Pools, clients and workers open here, never at import: through the composition root's `open_services`,
which the app factory hands in with the builder of what the routes take (`lifespan(opened, desks)`); the
routes' collaborators (`service.edge.desks.Desks`) are kept in the app's state beside the root's object.
Under `stela serve` (state `metrics_port` set) the metrics port opens here too. On shutdown SSE streams
are told to close (with a retry hint so clients reconnect elsewhere), the edge's own stop hooks run (each
bounded and logged, `service.ops.stopping.stop_bounded`), then the root stops the workers and closes the
store.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import structlog
from litestar import Litestar

from service.edge.desks import Desks, Probes
from service.ops.logging import flush_access_lines
from service.ops.stopping import stop_bounded

log = structlog.get_logger("stela.lifespan")


def begin_shutdown(app: Litestar) -> None:
    """Tell SSE streams to close now (with a retry hint) so clients reconnect to another replica."""
    desks = app.state.get("desks")
    if desks is not None and not desks.live.closing.is_set():
        desks.live.closing.set()
        desks.live.broker.wake_all()


async def _metrics_port(state: Any, probes: Probes) -> asyncio.Server | None:
    from service.edge.routes.ops import exposition
    from service.ops.metrics import serve_metrics

    port = state.get("metrics_port")
    if port is None:
        return None
    server = await serve_metrics(state.settings.host, port, lambda: exposition(probes))
    state.metrics_bound_port = server.sockets[0].getsockname()[1]
    return server


Opened = Callable[..., AbstractAsyncContextManager[Any]]  # open_services(settings, games, store, metrics)


def lifespan(opened: Opened, desks: Callable[[Any], Desks]) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """The app's lifespan: the composition root's object `opened` (given the app's settings, games, store and
    metrics), the routes' collaborators built from it by `desks`, then on leaving the drain and the stop hooks."""

    @contextlib.asynccontextmanager
    async def run(app: Litestar) -> AsyncIterator[None]:
        state = app.state
        async with opened(state.settings, state.games, state.get("store"), state.metrics) as services:
            state.services = services
            state.desks = desks(services)
            scrape = await _metrics_port(state, state.desks.probes)
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

    return run
