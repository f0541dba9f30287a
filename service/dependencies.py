"""What routes receive by dependency injection: the collaborators of `service.container.Services`.

Each provider reads the one `Services` built at start-up (`app.state.services`); routes name
the collaborator they need (`pipeline`, `repository`, `players`, `viewer`...) and never reach
into application state themselves.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.datastructures import State
from litestar.di import Provide

from service.container import Services
from service.handling import GameService
from service.metrics import Metrics
from service.pipeline import CommandPipeline
from service.players import Players, Viewer
from service.repository import GameRepository
from service.settings import Settings
from service.store.protocol import EventStore


def _services(state: State) -> Services:
    return state.services


def _players(state: State) -> Players:
    return state.services.players


def _repository(state: State) -> GameRepository:
    return state.services.repository


def _pipeline(state: State) -> CommandPipeline:
    return state.services.pipeline


def _store(state: State) -> EventStore:
    return state.services.store


def _read_models(state: State) -> Any:
    return state.services.read_models


def _metrics(state: State) -> Metrics:
    return state.metrics


def _settings(state: State) -> Settings:
    return state.settings


def _game_service(state: State) -> GameService:
    return state.game_service


async def provide_viewer(request: Request, players: Players) -> Viewer:
    """The caller from `Authorization: Bearer <token>`; anonymous without the header, 401 if it is wrong."""
    viewer = await players.viewer(request.headers.get("authorization"))
    if viewer.player is not None:
        request.scope.setdefault("state", {})["player_id"] = viewer.player.id
    return viewer


def _sync(fn: Any) -> Provide:
    return Provide(fn, sync_to_thread=False)


DEPENDENCIES: dict[str, Provide] = {
    "services": _sync(_services), "players": _sync(_players), "repository": _sync(_repository),
    "pipeline": _sync(_pipeline), "store": _sync(_store), "read_models": _sync(_read_models),
    "metrics": _sync(_metrics), "settings": _sync(_settings), "game_service": _sync(_game_service),
    "viewer": Provide(provide_viewer),
}
