"""The read-model query side (`Services.read_models`): the PostgreSQL store's `ReadModels`, or
`NoReadModels` in front of a store that keeps none (the in-memory one), whose every query is refused
with `ReadModelsUnavailable`.
"""

from __future__ import annotations

from typing import Any

from projections.queries import ReadModels
from service.commands.exceptions import ReadModelsUnavailable


class NoReadModels:
    """Stands in when the store is not PostgreSQL (the in-memory store keeps no read models)."""

    def __getattr__(self, name: str) -> Any:
        async def unavailable(*_: Any, **__: Any) -> Any:
            raise ReadModelsUnavailable("read models need the PostgreSQL store")
        return unavailable


ReadModelQueries = ReadModels | NoReadModels
