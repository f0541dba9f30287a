"""Read-model wiring: the query side on `Services.read_models` and, when embedded, the projector.

`install` registers lifespan hooks: at start-up the read-model tables are ensured and, with
`STELA_PROJECTOR=embedded`, a `Projector` runs in the process (`Services.projector`, whose
`lag()` feeds /readyz and /metrics), woken by the appends this process hears of: at most once
per `WAKE_EVERY` seconds, so that under load it projects batches of events rather than one
transaction per projection per command.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from litestar import Litestar
from litestar.datastructures import State

from projections.queries import ReadModels
from projections.runner import Projector
from service.commands.exceptions import ReadModelsUnavailable
from service.ops.settings import Settings


WAKE_EVERY = 0.2


def coalesced(wake: Callable[[], None], delay: float = WAKE_EVERY) -> Callable[..., None]:
    """A hook that calls `wake` once, `delay` seconds after the first of any number of calls."""
    pending = False

    def fire() -> None:
        nonlocal pending
        pending = False
        wake()

    def hook(*_: Any) -> None:
        nonlocal pending
        if not pending:
            pending = True
            asyncio.get_running_loop().call_later(delay, fire)

    return hook


class NoReadModels:
    """Stands in when the store is not PostgreSQL (the in-memory store keeps no read models)."""

    def __getattr__(self, name: str) -> Any:
        async def unavailable(*_: Any, **__: Any) -> Any:
            raise ReadModelsUnavailable("read models need the PostgreSQL store")
        return unavailable


def install(state: State, settings: Settings) -> list[Any]:
    """Register start/stop hooks for the projector and return the read-model route handlers."""
    from service.edge.routes.readmodels import ReadModelController

    async def start(app: Litestar) -> None:
        services = app.state.services
        pool = getattr(services.store, "pool", None)
        if pool is None:
            services.read_models = NoReadModels()
            return
        models = ReadModels(pool)
        await models.start()
        services.read_models = models
        if settings.projector == "embedded":
            projector = Projector(pool)
            await projector.start()
            services.broker.on_append.append(coalesced(projector.wake))
            services.projector = app.state.projector = projector

    async def stop(app: Litestar) -> None:
        projector = app.state.get("projector")
        if projector is not None:
            await projector.stop()

    state["on_start"].append(start)
    state["on_stop"].append(stop)
    return [ReadModelController]
