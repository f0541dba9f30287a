"""The collaborators the routes name (`service.edge.dependencies.COLLABORATORS`), and the small bundles of
several for the routes that use several, each named for what it serves.

`Desks` holds every one; the app factory builds it once from the composition root's object when the lifespan
has opened it (`service.edge.app`), and the routes receive its fields by dependency injection: none of them
sees the root's object. The command and legal routes take no dependencies and read `Desks.play` directly.

The bundles (`Bundle`) are plain classes with slots, not dataclasses: Litestar checks each argument of a handler with
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


class Bundle:
    """Collaborators given once by keyword, each kept under its name: a subclass names them in `__slots__` and
    types them by annotation."""

    __slots__ = ()

    def __init__(self, **collaborators: Any) -> None:
        names = {name for cls in type(self).__mro__ for name in getattr(cls, "__slots__", ())}
        if set(collaborators) != names:
            raise TypeError(f"{type(self).__name__} takes {sorted(names)}, given {sorted(collaborators)}")
        for name, value in collaborators.items():
            setattr(self, name, value)


class Lobby(Bundle):
    """Where games are created (with bots in their seats), joined, left and started."""

    __slots__ = ("pipeline", "bots")
    pipeline: CommandPipeline
    bots: Bots


class Play(Bundle):
    """The step of a client: the caller (players), its commands (pipeline), its legal list (queries) and the
    commands counted (metrics)."""

    __slots__ = ("players", "pipeline", "queries", "metrics")
    players: Players
    pipeline: CommandPipeline
    queries: GameQueries
    metrics: Metrics


class Credentials(Bundle):
    """Who may act and how a token proves it: the players and their first tokens, accounts (passwords,
    sessions, personal tokens), the OAuth server (apps' tokens), the revocations that end a changed token's
    streams on every replica, the proxies whose X-Forwarded-For is trusted and the OAuth issuer."""

    __slots__ = ("players", "accounts", "oauth", "revocations", "trusted_proxies", "issuer")
    players: Players
    accounts: Accounts
    oauth: OAuthServer
    revocations: Revocations
    trusted_proxies: tuple[Network, ...]
    issuer: str


class Live(Bundle):
    """What the streams read and who may open them (`service.live.sse.Sources` and more): the fan-out, the
    store, the game repository, the sealed deals, the stream tickets, the players, the revocations, the
    personal streams, the competitions followed, the moment the process begins to close, the heartbeat and
    the most games one multiplexed stream follows."""

    __slots__ = ("broker", "store", "repository", "seals", "tickets", "players", "revocations", "personal",
                 "tournaments", "arenas", "closing", "heartbeat_seconds", "stream_max_games")
    broker: Broker
    store: EventStore
    repository: GameRepository
    seals: DealSeals
    tickets: CredentialTickets
    players: Players
    revocations: Revocations
    personal: PersonalHub
    tournaments: Tournaments
    arenas: Arenas
    closing: asyncio.Event
    heartbeat_seconds: float
    stream_max_games: int


class Probes(Bundle):
    """What readiness and the metrics read: the store, the fan-out, the projector (None where none runs
    here), the metrics and whether Redis is configured."""

    __slots__ = ("store", "broker", "projector", "metrics", "redis_url")
    store: EventStore
    broker: Broker
    projector: Any
    metrics: Metrics
    redis_url: str | None


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
