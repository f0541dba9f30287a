"""The composition root: every collaborator of the service built, started and stopped in one place,
for the app and the CLI alike.

`open_store` opens the store (PostgreSQL, embedded when no DATABASE_URL is set); `open_services`
adds the fan-out and builds the players, the game repository, the command pipeline, the
personal streams, stream tickets, the tournaments, the arenas, the read models and the workers
(the timeout worker, the tournament result runner, the arena worker, the log's checkpoints and, on
PostgreSQL with `STELA_PROJECTOR=embedded`, the projector), the same on either store; it starts
the workers and stops them again, each within a bound, before the store closes. `open_projector`
is `stela projector`'s own process. The app factory alone in the edge imports this: its lifespan opens the
`Services` and the factory hands each route the collaborators it names (`service.edge.desks`); the CLI's
entry points import it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from urllib.parse import urlsplit
from typing import Any

import structlog

from domain.kernel import Game
from projections.base import Projection
from projections.runner import Projector
from service.commands.arenas import Arenas
from service.commands.game_queries import GameQueries
from service.commands.listings import Listings
from service.commands.pipeline import CommandPipeline
from service.commands.accounts import Accounts, Passwords
from service.commands.accounts_bots import Bots
from service.commands.oauth import OAuthServer
from service.commands.players import Players
from service.commands.readmodels import NoReadModels, ReadModelQueries
from service.commands.repository import Currency, GameRepository
from service.commands.views import PerVersion
from service.commands.sealing import DealSeals
from service.commands.tournaments import Tournaments
from service.commands.transparency import Transparency, log_signer
from service.live.fanout import Broker, RedisBroker
from service.live.personal import PersonalHub
from service.live.revocation import CredentialTickets, Revocations
from service.ops.background import Periodic
from service.ops.metrics import Metrics
from service.ops.settings import Settings
from service.ops.stopping import stop_bounded
from service.store.embedded import EmbeddedPostgres
from service.store.postgres import PostgresStore
from service.store.protocol import ReadSideStore
from service.store.reaching import left, reach
from service.workers.arenas import ArenaWorker
from service.workers.projector import wake_on_appends
from service.workers.results import WAKE_DELAY, ResultRunner
from service.workers.checkpoints import CheckpointWorker
from service.workers.timeouts import TimeoutWorker

log = structlog.get_logger("stela.container")

# a replica or projector starting while its database restarts waits this long for it rather than exit
# (one-off commands such as `stela verify` do not wait: they say at once that the database is down)
START_WAIT = 300.0


class Services:
    """Every collaborator of one process, built by `open_services`, the same on either store.

    Tournaments, arenas, the sealed deals and the workers run on the in-memory store as on PostgreSQL
    (its read side, `service.store.readside_memory`); only the read-model tables and their projector are
    PostgreSQL's (`NoReadModels` refuses every query on the in-memory store, a test store only).
    """

    def __init__(self, settings: Settings, store: ReadSideStore, broker: Broker, games: dict[str, Game],
                 metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.store = store
        self.broker = broker
        # whether a cached game is current without a query: told of other processes' appends by the fan-out
        currency = Currency(lambda: broker.live)
        broker.on_remote.append(currency.remote)
        broker.on_nudge.append(currency.reset)
        self.repository = GameRepository(store, games, settings.snapshot_every, currency=currency)
        self.answers = PerVersion()  # legal lists and views, encoded once per game version and seat
        self.players = Players(store, settings.admin_token)
        self.personal = PersonalHub(self.repository, store, broker)  # personal streams of this process
        passwords = Passwords.costing(settings.argon2_time_cost, settings.argon2_memory_kib,
                                      settings.argon2_parallelism)
        self.accounts = Accounts(store, self.players, passwords, max_failures=settings.sign_in_failures,
                                 window_seconds=settings.sign_in_window_seconds)  # passwords, sign-in, tokens
        self.oauth = OAuthServer(store, self.players)  # apps acting for players (Authlib)
        self.tickets = CredentialTickets(store)  # stream tickets (keyed on first use), good while their token is
        self.closing = asyncio.Event()  # set when the process begins to shut down
        # streams end with their token; each check that finds a token working refreshes its cached identity
        self.revocations = Revocations(store, broker, self.closing, confirmed=self.players.confirm)
        pg = store if isinstance(store, PostgresStore) else None
        # the read-model tables and their projector are PostgreSQL's; the in-memory store keeps none
        self.read_models: ReadModelQueries = pg.read_models() if pg is not None else NoReadModels()
        self.tournaments = Tournaments(store, self.repository, broker, settings.snapshot_every)
        # which games a sealed duplicate deal hides (the visibility rule asks)
        self.seals = DealSeals(store, self.repository, self.tournaments)
        self.pipeline = CommandPipeline(self.repository, store, broker, self.seals)
        # a game's reads and the read models' lists, as the routes answer them (their query functions take these)
        self.queries = GameQueries(repository=self.repository, seals=self.seals, store=store, answers=self.answers)
        self.listings = Listings(read_models=self.read_models, seals=self.seals, players=self.players,
                                 repository=self.repository)
        # the result runner, a process manager: the read side's log follower feeding the tournaments' loop
        self.tournament_results = ResultRunner(store, self.tournaments, seals=self.seals)
        self.timeouts = TimeoutWorker(store, self.pipeline)
        # arenas (docs/arena.md): their own aggregate, and the process manager that pairs, records and closes
        self.arenas = Arenas(store, self.repository, broker, settings.snapshot_every)
        self.arena_worker = ArenaWorker(store, self.arenas)
        self.bots = Bots(store, self.accounts, self.pipeline, self.tournaments, self.arenas)  # played by bot workers
        self.projector: Projector | None = (
            pg.projector() if pg is not None and settings.projector == "embedded" else None)
        # the transparency log (docs/audit.md): proofs and checkpoints, signed every few seconds by a worker
        signer = log_signer(settings.log_key, settings.data_dir if pg is not None and not settings.database_url else None,
                            f"{urlsplit(settings.issuer).netloc}/stela", ephemeral=pg is None)
        self.transparency = Transparency(store.ledger(), signer,
                                         signer.name if signer else f"{urlsplit(settings.issuer).netloc}/stela", self.seals)
        self.checkpoints = CheckpointWorker(self.transparency, settings.log_checkpoint_seconds)

    @property
    def tables(self) -> dict[str, Any]:
        return self.repository.tables

    async def start_workers(self) -> None:
        """Ensure the read-model tables (on PostgreSQL), then start the projector (there), the result runner,
        the timeouts, the arena worker and the log's checkpoints, on either store, and wake them on appends.
        Safe to run again after it failed (the database lost meanwhile, `service.store.reaching`): the
        workers it had started stop again first, so a retry starts each once."""
        try:
            await self._start_each()
        except BaseException:
            await self.stop_workers()
            raise
        # once every start has succeeded, so that a retried start registers each wake once
        if self.projector is not None:
            wake_on_appends(self.projector.wake, self.broker)
        # a step per burst of appends, not per append: each step is a transaction, a lock and a checkpoint
        wake_on_appends(self.tournament_results.wake, self.broker, WAKE_DELAY)
        wake_on_appends(self.arena_worker.wake, self.broker, WAKE_DELAY)

    async def _start_each(self) -> None:
        if not isinstance(self.read_models, NoReadModels):
            await self.read_models.start()
        if self.projector is not None:
            await self.projector.start()
        await self.tournament_results.start()
        await self.timeouts.start()
        await self.arena_worker.start()
        await self.checkpoints.start()

    async def stop_workers(self) -> None:
        """Stop the workers in the reverse order, each within a bound (one stuck is logged and left)."""
        workers: list[Periodic | Projector | None] = [self.checkpoints, self.arena_worker, self.timeouts, self.tournament_results, self.projector]
        for worker in workers:
            if worker is not None:
                await stop_bounded(f"{type(worker).__qualname__}.stop", worker.stop)


@contextlib.asynccontextmanager
async def open_store(settings: Settings, pool_max: int | None = None, wait: float = 0.0) -> AsyncIterator[PostgresStore]:
    """The PostgreSQL store of `settings` (starting an embedded cluster without DATABASE_URL); an
    unreachable database is waited for up to `wait` seconds (`service.store.reaching`)."""
    embedded = None
    dsn = settings.database_url
    if not dsn:
        embedded = EmbeddedPostgres(settings.data_dir)
        dsn = await asyncio.to_thread(embedded.start)
    try:
        store = await reach(lambda: PostgresStore.connect(dsn, pool_max or settings.db_pool_max, settings.pg_notify,
                                                          settings.db_command_timeout, settings.pg_append_slots,
                                                          settings.pg_lock_timeout_ms / 1000), wait)
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
async def open_services(settings: Settings, games: dict[str, Game], store: ReadSideStore | None = None,
                        metrics: Metrics | None = None) -> AsyncIterator[Services]:
    """Every collaborator, opened and its workers started; `store` (a test's) is used as given and
    not closed here. On leaving, the workers stop before the personal streams, the fan-out and the store."""
    deadline = time.monotonic() + START_WAIT  # for the whole start-up: the opening, then the workers' start
    async with contextlib.AsyncExitStack() as stack:
        if store is None:
            store = await stack.enter_async_context(open_store(settings, wait=left(deadline)))
        broker = make_broker(settings)
        await broker.start()
        stack.push_async_callback(broker.stop)
        services = Services(settings, store, broker, games, metrics)
        stack.push_async_callback(services.personal.close)
        stack.push_async_callback(services.revocations.stop)
        stack.push_async_callback(services.stop_workers)
        await reach(services.start_workers, left(deadline), step="workers")
        log.info("started", database="external" if settings.database_url else "embedded",
                 fanout="redis" if settings.redis_url else "in-process")
        yield services


@contextlib.asynccontextmanager
async def open_projector(settings: Settings, projections: list[Projection], batch_size: int,
                         max_batch: int) -> AsyncIterator[Projector]:
    """`stela projector`: a projector of `projections` on a small pool, started; with REDIS_URL the
    appends announced on Redis wake it too (STELA_PG_NOTIFY is off by default)."""
    deadline = time.monotonic() + START_WAIT  # for the whole start-up: the opening, then the projector's tables
    async with open_store(settings, pool_max=4, wait=left(deadline)) as store, contextlib.AsyncExitStack() as stack:
        projector = store.projector(projections, batch_size=batch_size, max_batch=max_batch)
        await reach(projector.start, left(deadline), step="projector")
        stack.push_async_callback(projector.stop)
        if settings.redis_url:
            broker = make_broker(settings)
            wake_on_appends(projector.wake, broker)
            await broker.start()
            stack.push_async_callback(broker.stop)
        yield projector
