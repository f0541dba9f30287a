"""Start-up and shut-down: open the store and fan-out, run the projector, drain on SIGTERM.

Pools and clients open here, never at import. On shutdown SSE streams are told
to close (with a retry hint so clients reconnect elsewhere) before the store closes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import structlog
from litestar import Litestar

from service.embedded import EmbeddedPostgres
from service.fanout import Broker, RedisBroker
from service.handling import GameService
from service.store.postgres import PostgresStore

log = structlog.get_logger("stela.lifespan")


def begin_shutdown(app: Litestar) -> None:
    """Tell SSE streams to close now (with a retry hint) so clients reconnect to another replica."""
    closing = app.state.get("closing")
    if closing is not None and not closing.is_set():
        closing.set()
        app.state.service.broker.wake_all()


@contextlib.asynccontextmanager
async def lifespan(app: Litestar) -> AsyncIterator[None]:
    state = app.state
    settings = state.settings
    embedded = None
    store = state.get("store")
    if store is None:
        dsn = settings.database_url
        if not dsn:
            embedded = EmbeddedPostgres(settings.data_dir)
            dsn = await asyncio.to_thread(embedded.start)
        store = await PostgresStore.connect(dsn, settings.db_pool_max, settings.pg_notify)
    broker = RedisBroker(settings.redis_url) if settings.redis_url else Broker()
    await broker.start()
    state.service = GameService(store, broker, state.games, settings.snapshot_every)
    state.closing = asyncio.Event()
    hooks = state.get("on_start", [])
    for hook in hooks:
        await hook(app)
    log.info("started", database="embedded" if embedded else "external",
             fanout="redis" if settings.redis_url else "in-process")
    try:
        yield
    finally:
        begin_shutdown(app)
        for hook in reversed(state.get("on_stop", [])):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(hook(app), 15)
        await broker.stop()
        await store.close()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
        log.info("stopped")
