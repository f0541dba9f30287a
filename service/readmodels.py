"""Read-model wiring: the query side on `Services.read_models` and, when embedded, the projector.

`install` registers lifespan hooks: at start-up the read-model tables are ensured and, with
`STELA_PROJECTOR=embedded`, a `Projector` runs in the process (`Services.projector`, whose
`lag()` feeds /readyz and /metrics), woken by every append this process hears of.
"""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.datastructures import State

from projections.queries import ReadModels
from projections.runner import Projector
from service.exceptions import ReadModelsUnavailable
from service.settings import Settings


class NoReadModels:
    """Stands in when the store is not PostgreSQL (the in-memory store keeps no read models)."""

    def __getattr__(self, name: str) -> Any:
        async def unavailable(*_: Any, **__: Any) -> Any:
            raise ReadModelsUnavailable("read models need the PostgreSQL store")
        return unavailable


def install(state: State, settings: Settings) -> list[Any]:
    """Register start/stop hooks for the projector and return the read-model route handlers."""
    from service.routes.readmodels import ReadModelController

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
            services.broker.on_append.append(projector.wake)
            services.projector = app.state.projector = projector

    async def stop(app: Litestar) -> None:
        projector = app.state.get("projector")
        if projector is not None:
            await projector.stop()

    state["on_start"].append(start)
    state["on_stop"].append(stop)
    return [ReadModelController]
