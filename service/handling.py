"""The names SSE and older callers know, kept importable over the new modules.

`GameService` is a thin view of one process's `Services` (see `service.container`) for code
that still takes "the service": the game stream (`service.sse`) reads `.store`, `.broker`,
`.load`, `.seat_for`, `.is_public`, `.wire` and `decode` through it. New code takes the
collaborator it needs: `Players`, `GameRepository`, `CommandPipeline`, `service.visibility`.
"""

from __future__ import annotations

from typing import Any

from domain.kernel import Game
from domain.table import Table, TableState
from service.fanout import Broker
from service.pipeline import CommandPipeline, Outcome
from service.players import Players, Viewer
from service.repository import GameRepository, Loaded, decode
from service.store.protocol import EventStore
from service.visibility import WireEvent, is_public, require_public, seat_of, visible, wire

__all__ = ["GameService", "Loaded", "Viewer", "WireEvent", "require_admin_or_over"]


class GameService:
    """One process's players, repository and pipeline behind the old single-object interface."""

    def __init__(self, store: EventStore, broker: Broker, games: dict[str, Game] | None = None,
                 snapshot_every: int = 50, *, repository: GameRepository | None = None,
                 players: Players | None = None, pipeline: CommandPipeline | None = None) -> None:
        self.store = store
        self.broker = broker
        self.repository = repository or GameRepository(store, games or {}, snapshot_every)
        self.players = players or Players(store)
        self.pipeline = pipeline or CommandPipeline(self.repository, store, broker)

    @classmethod
    def of(cls, services: Any) -> "GameService":
        """The view of a `service.container.Services`."""
        return cls(services.store, services.broker, repository=services.repository, players=services.players,
                   pipeline=services.pipeline)

    @property
    def tables(self) -> dict[str, Table]:
        return self.repository.tables

    # reading (what service.sse uses)
    async def load(self, game_id: str) -> Loaded:
        return await self.repository.load(game_id)

    seat_for = staticmethod(seat_of)
    is_public = staticmethod(is_public)
    wire = staticmethod(wire)
    decode = staticmethod(decode)
    visible = staticmethod(visible)

    def table(self, kind: str) -> Table:
        return self.repository.table(kind)

    def kind_of(self, game_id: str) -> str:
        return self.repository.kind_of(game_id)

    # players and commands, delegated
    async def register(self, name: str) -> Any:
        return await self.players.register(name)

    async def authenticate(self, token: str) -> Any:
        return await self.players.authenticate(token)

    async def create(self, viewer: Viewer, kind: str, options: dict[str, Any] | None, seats: int,
                     join: bool = True) -> Outcome:
        return await self.pipeline.create(viewer, kind, options, seats, join)

    async def join(self, viewer: Viewer, game_id: str, seat: int | None) -> Outcome:
        return await self.pipeline.join(viewer, game_id, seat)

    async def start(self, viewer: Viewer, game_id: str) -> Outcome:
        return await self.pipeline.start(viewer, game_id)

    async def command(self, viewer: Viewer, game_id: str, raw: Any, expected_version: int | None,
                      idempotency_key: str | None, dry_run: bool = False) -> Outcome:
        return await self.pipeline.command(viewer, game_id, raw, expected_version, idempotency_key, dry_run)


def require_admin_or_over(state: TableState, viewer: Viewer) -> None:
    require_public(state, viewer)
