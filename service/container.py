"""The composition root: every collaborator of the service built in one place.

`open_store` gives the CLI and the app the same store (PostgreSQL, embedded when no
DATABASE_URL is set); `open_services` adds the fan-out and wires the players, the game
repository, the command pipeline and the read side around them. The app builds its `Services`
at start-up and hands them to routes by dependency injection; the CLI uses `open_store` (or
`open_services`) the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import structlog

from domain.kernel import Game
from service.store.embedded import EmbeddedPostgres
from service.live.fanout import Broker, RedisBroker
from service.ops.metrics import Metrics
from service.commands.pipeline import CommandPipeline
from service.live.personal import PersonalHub
from service.commands.players import Players
from service.commands.repository import GameRepository
from service.ops.settings import Settings
from service.store.postgres import PostgresStore
from service.store.protocol import EventStore
from service.live.tickets import TicketOffice

log = structlog.get_logger("stela.container")


class Services:
    """What the routes and hooks of one process use, built by `open_services`."""

    def __init__(self, settings: Settings, store: EventStore, broker: Broker, games: dict[str, Game],
                 metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.store = store
        self.broker = broker
        self.repository = GameRepository(store, games, settings.snapshot_every)
        self.players = Players(store, settings.admin_token)
        self.pipeline = CommandPipeline(self.repository, store, broker)
        self.personal = PersonalHub(self.repository, store, broker)  # personal streams of this process
        self.tickets = TicketOffice(store)  # stream tickets (keyed on first use)
        self.closing = asyncio.Event()  # set when the process begins to shut down
        self.read_models: Any = None  # set by service.commands.readmodels at start-up
        self.projector: Any = None  # the embedded projector, when it runs here

    @property
    def tables(self) -> dict[str, Any]:
        return self.repository.tables


@contextlib.asynccontextmanager
async def open_store(settings: Settings, pool_max: int | None = None) -> AsyncIterator[PostgresStore]:
    """The PostgreSQL store of `settings` (starting an embedded cluster without DATABASE_URL)."""
    embedded = None
    dsn = settings.database_url
    if not dsn:
        embedded = EmbeddedPostgres(settings.data_dir)
        dsn = await asyncio.to_thread(embedded.start)
    try:
        store = await PostgresStore.connect(dsn, pool_max or settings.db_pool_max, settings.pg_notify,
                                            settings.db_command_timeout)
        try:
            yield store
        finally:
            await store.close()
    finally:
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)


def make_broker(settings: Settings) -> Broker:
    return RedisBroker(settings.redis_url) if settings.redis_url else Broker()


@contextlib.asynccontextmanager
async def open_services(settings: Settings, games: dict[str, Game], store: EventStore | None = None,
                        metrics: Metrics | None = None) -> AsyncIterator[Services]:
    """Every collaborator, opened; `store` (a test's) is used as given and not closed here."""
    async with contextlib.AsyncExitStack() as stack:
        if store is None:
            store = await stack.enter_async_context(open_store(settings))
        broker = make_broker(settings)
        await broker.start()
        stack.push_async_callback(broker.stop)
        services = Services(settings, store, broker, games, metrics)
        stack.push_async_callback(services.personal.close)
        log.info("started", database="external" if settings.database_url else "embedded",
                 fanout="redis" if settings.redis_url else "in-process")
        yield services
