"""Render the OpenAPI document from the app (for `stela openapi` and the drift test)."""

from __future__ import annotations

import json

import msgspec

from service.ops.settings import Settings


def render() -> str:
    from service.edge.app import create_app

    from domain.catalog import GAMES
    from service.edge.contract import enrich

    app = create_app(Settings(database_url="postgresql://schema-only", rate_limit=1), games=GAMES)
    schema = enrich(app.openapi_schema.to_schema(), GAMES)  # the document /schema/openapi.json serves
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False, default=msgspec.to_builtins) + "\n"
