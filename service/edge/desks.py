"""The collaborators the routes name (`service.edge.dependencies.COLLABORATORS`), and the small frozen structs
that bundle several for the routes that use several, each named for what it serves.

`Desks` holds every one; the app factory builds it once from the composition root's object when the lifespan
has opened it (`service.edge.app`), and the routes receive its fields by dependency injection: none of them
sees the root's object. The command and legal routes take no dependencies and read `Desks.play` directly.

The bundles are plain classes with slots, not dataclasses: Litestar checks each argument of a handler with
msgspec, which looks into a dataclass's field types (and refuses some, such as a union of two classes) but
takes any other class by `isinstance` alone.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from service.commands.accounts import Accounts
from service.commands.accounts_bots import Bots
from service.commands.arenas import Arenas
from service.commands.game_queries import GameQueries
from service.commands.listings import Listings
from service.commands.oauth import OAuthServer
from service.commands.pipeline import CommandPipeline
from service.commands.players import Players
from service.commands.repository import GameRepository
from service.commands.sealing import DealSeals
from service.commands.tournaments import Tournaments
from service.commands.transparency import Transparency
from service.edge.middleware import Network
from service.live.fanout import Broker
from service.live.personal import PersonalHub
from service.live.revocation import CredentialTickets, Revocations
from service.ops.metrics import Metrics
from service.store.protocol import EventStore


class Lobby:
    """Where games are created (with bots in their seats), joined, left and started."""

    __slots__ = ("pipeline", "bots")

    def __init__(self, *, pipeline: CommandPipeline, bots: Bots) -> None:
        self.pipeline = pipeline
        self.bots = bots


class Play:
    """The step of a client: the caller (players), its commands (pipeline), its legal list (queries) and the
    commands counted (metrics)."""

    __slots__ = ("players", "pipeline", "queries", "metrics")

    def __init__(self, *,
                 players: Players, pipeline: CommandPipeline, queries: GameQueries, metrics: Metrics) -> None:
        self.players = players
        self.pipeline = pipeline
        self.queries = queries
        self.metrics = metrics


class Credentials:
    """Who may act and how a token proves it: the players and their first tokens, accounts (passwords,
    sessions, personal tokens), the OAuth server (apps' tokens), the revocations that end a changed token's
    streams on every replica, the proxies whose X-Forwarded-For is trusted and the OAuth issuer."""

    __slots__ = ("players", "accounts", "oauth", "revocations", "trusted_proxies", "issuer")

    def __init__(self, *,
                 players: Players, accounts: Accounts, oauth: OAuthServer, revocations: Revocations,
                 trusted_proxies: tuple[Network, ...], issuer: str) -> None:
        self.players = players
        self.accounts = accounts
        self.oauth = oauth
        self.revocations = revocations
        self.trusted_proxies = trusted_proxies
        self.issuer = issuer


class Live:
    """What the streams read and who may open them (`service.live.sse.Sources` and more): the fan-out, the
    store, the game repository, the sealed deals, the stream tickets, the players, the revocations, the
    personal streams, the competitions followed, the moment the process begins to close, the heartbeat and
    the most games one multiplexed stream follows."""

    __slots__ = ("broker", "store", "repository", "seals", "tickets", "players", "revocations", "personal",
                 "tournaments", "arenas", "closing", "heartbeat_seconds", "stream_max_games")

    def __init__(self, *,
                 broker: Broker, store: EventStore, repository: GameRepository, seals: DealSeals,
                 tickets: CredentialTickets, players: Players, revocations: Revocations, personal: PersonalHub,
                 tournaments: Tournaments, arenas: Arenas, closing: asyncio.Event, heartbeat_seconds: float,
                 stream_max_games: int) -> None:
        self.broker = broker
        self.store = store
        self.repository = repository
        self.seals = seals
        self.tickets = tickets
        self.players = players
        self.revocations = revocations
        self.personal = personal
        self.tournaments = tournaments
        self.arenas = arenas
        self.closing = closing
        self.heartbeat_seconds = heartbeat_seconds
        self.stream_max_games = stream_max_games


class Probes:
    """What readiness and the metrics read: the store, the fan-out, the projector (None where none runs
    here), the metrics and whether Redis is configured."""

    __slots__ = ("store", "broker", "projector", "metrics", "redis_url")

    def __init__(self, *,
                 store: EventStore, broker: Broker, projector: Any, metrics: Metrics, redis_url: str | None) -> None:
        self.store = store
        self.broker = broker
        self.projector = projector
        self.metrics = metrics
        self.redis_url = redis_url


@dataclass(frozen=True, slots=True)
class Desks:
    """Every collaborator a route names, built once from the composition root's object."""

    queries: GameQueries
    lobby: Lobby
    listings: Listings
    players: Players
    credentials: Credentials
    tournaments: Tournaments
    arenas: Arenas
    bots: Bots
    repository: GameRepository
    transparency: Transparency
    live: Live
    probes: Probes
    play: Play
