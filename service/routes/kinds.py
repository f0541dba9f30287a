"""Game kinds: names, player ranges, option/command/event schemas and rule-violation codes."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar.di import NamedDependency
from litestar import Controller, get
from litestar.params import PathParameter

from domain.kernel import Game
from service.container import Services
from service.errors import responses
from service.schemas import KindOut


def kind_out(game: Game) -> KindOut:
    return KindOut(kind=game.kind, title=game.title, min_players=game.min_players, max_players=game.max_players,
                   options_schema=msgspec.json.schema(game.options_type),
                   command_schema=msgspec.json.schema(game.command_type),
                   event_schema=msgspec.json.schema(game.event_type), codes=dict(game.codes))


class KindController(Controller):
    path = "/v1/kinds"
    tags = ["kinds"]

    @get("/", operation_id="listKinds", summary="Every hosted game kind with its schemas", responses=responses())
    async def list_kinds(self, services: NamedDependency[Services]) -> list[KindOut]:
        return [kind_out(table.game) for table in services.repository.tables.values()]

    @get("/{kind:str}", operation_id="getKind", summary="One game kind", responses=responses(400, 404))
    async def get_kind(self, services: NamedDependency[Services], kind: Annotated[str, PathParameter(max_length=32)]) -> KindOut:
        return kind_out(services.repository.table(kind).game)
