"""Game kinds: names, player ranges, option/command/event/view schemas, codes and components."""

from __future__ import annotations

import functools
from typing import Annotated, Any

import msgspec
from litestar.di import NamedDependency
from litestar import Controller, get
from litestar.datastructures import CacheControlHeader
from litestar.params import PathParameter

from domain.clock import TimeControl
from domain.table import TABLE_CODES, Table
from service.commands.repository import GameRepository
from service.edge.errors import responses
from service.edge.schemas import KindOut, NO_NUL


@functools.lru_cache(maxsize=64)
def kind_out(table: Table) -> KindOut:
    """What a client needs to know of a kind (computed once per kind: schemas never change in a process)."""
    game = table.game
    return KindOut(kind=game.kind, title=game.title, min_players=game.min_players, max_players=game.max_players,
                   options_schema=msgspec.json.schema(game.options_type),
                   command_schema=msgspec.json.schema(table.command_union),
                   event_schema=msgspec.json.schema(table.event_union),
                   view_schema=msgspec.json.schema(game.view_type),
                   time_control_schema=msgspec.json.schema(TimeControl),
                   codes={**TABLE_CODES, **game.codes})


@functools.lru_cache(maxsize=64)
def components_of(table: Table) -> dict[str, Any]:
    """The kind's whole printed catalogue as JSON data."""
    return msgspec.to_builtins(table.game.components)


class KindController(Controller):
    path = "/v1/kinds"
    tags = ["kinds"]

    @get("/", operation_id="listKinds", summary="Every hosted game kind with its schemas", responses=responses())
    async def list_kinds(self, repository: NamedDependency[GameRepository]) -> list[KindOut]:
        return [kind_out(table) for table in repository.tables.values()]

    @get("/{kind:str}", operation_id="getKind", summary="One game kind", responses=responses(400, 404))
    async def get_kind(self, repository: NamedDependency[GameRepository],
                       kind: Annotated[str, PathParameter(max_length=32, pattern=NO_NUL)]) -> KindOut:
        return kind_out(repository.table(kind))

    @get("/{kind:str}/components", operation_id="getKindComponents", responses=responses(400, 404),
         summary="The kind's whole catalogue of printed components",
         description="Every component of the kind with its printed data (tiles, cards, tokens), the same objects "
                     "that views show inline for face-up components; static, cacheable.",
         cache_control=CacheControlHeader(public=True, max_age=3600))
    async def get_components(self, repository: NamedDependency[GameRepository],
                             kind: Annotated[str, PathParameter(max_length=32, pattern=NO_NUL)]) -> dict[str, Any]:
        return components_of(repository.table(kind))
