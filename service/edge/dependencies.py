"""What routes receive by dependency injection: the process's `Services` and the caller.

Every route takes the composition root's typed `Services` (built once at start-up by
`service.container.open_services`) and, where it matters, the `viewer`, resolved from the
`Authorization` header by the players' service. Routes never reach into application state.
Litestar resolves dependencies of the same depth concurrently in an anyio task group, a task
each per request; one dependency per depth (`services`, then `viewer`) keeps that off the
request path.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide

from service.container import Services
from service.commands.players import Viewer


def provide_services(state: State) -> Services:
    return state.services


async def caller(services: Services, authorization: str | None, scope: Any) -> Viewer:
    """The caller from `Authorization: Bearer <token>`; anonymous without the header, 401 if it is wrong.

    Its player id goes into the scope's state for the request's log line.
    """
    viewer = await services.players.viewer(authorization)
    if viewer.player is not None:
        scope.setdefault("state", {})["player_id"] = viewer.player.id
    return viewer


def authorization(scope: Any) -> str | None:
    """The request's first `Authorization` header, read from the raw scope (no header mapping built)."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            return value.decode("latin-1")
    return None


async def provide_viewer(request: Request, services: NamedDependency[Services]) -> Viewer:
    return await caller(services, authorization(request.scope), request.scope)


DEPENDENCIES: dict[str, Provide] = {
    "services": Provide(provide_services, sync_to_thread=False),
    "viewer": Provide(provide_viewer),
}
