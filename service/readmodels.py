"""Read-model wiring: the query side on `state.read_models` and, when embedded, the projector.

`install` registers lifespan hooks: at start-up the read-model tables are
ensured and, with `STELA_PROJECTOR=embedded`, a `Projector` runs in the
process (`state.projector`, whose `lag()` feeds /readyz and /metrics). The
`ReadSide` adapter turns the projections' bad cursors into 422 problems.
"""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.datastructures import State

from projections.queries import BadCursor, GameList, Leaderboard, PlatformStats, PlayerGamePage, ReadModels
from projections.runner import Projector
from service.errors import Problem
from service.settings import Settings


class ReadSide:
    """The read models as the routes use them."""

    def __init__(self, models: ReadModels) -> None:
        self.models = models

    async def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except BadCursor as exc:
            raise Problem(422, "bad_cursor", "the cursor is not one this list issued") from exc

    async def list_games(self, **filters: Any) -> GameList:
        return await self._call(self.models.list_games, **filters)

    async def player_games(self, player_id: str, cursor: str | None, limit: int) -> PlayerGamePage:
        return await self._call(self.models.player_games, player_id, cursor, limit)

    async def leaderboard(self, kind: str, cursor: str | None, limit: int) -> Leaderboard:
        return await self._call(self.models.leaderboard, kind, cursor, limit)

    async def stats(self, days: int) -> PlatformStats:
        return await self.models.stats(days)


class NoReadModels:
    """Stands in when the store is not PostgreSQL (the in-memory store keeps no read models)."""

    def __getattr__(self, name: str) -> Any:
        async def unavailable(*_: Any, **__: Any) -> Any:
            raise Problem(503, "read_models_unavailable", "read models need the PostgreSQL store")
        return unavailable


def install(state: State, settings: Settings) -> list[Any]:
    """Register start/stop hooks for the projector and return the read-model route handlers."""
    from service.routes.readmodels import ReadModelController

    async def start(app: Litestar) -> None:
        pool = getattr(app.state.service.store, "pool", None)
        if pool is None:
            app.state.read_models = NoReadModels()
            return
        models = ReadModels(pool)
        await models.start()
        app.state.read_models = ReadSide(models)
        if settings.projector == "embedded":
            projector = Projector(pool)
            await projector.start()
            app.state.service.broker.on_append.append(projector.wake)
            app.state.projector = projector

    async def stop(app: Litestar) -> None:
        projector = app.state.get("projector")
        if projector is not None:
            await projector.stop()

    state["on_start"].append(start)
    state["on_stop"].append(stop)
    return [ReadModelController]
