"""Render the OpenAPI document from the app (for `stela openapi` and the drift test)."""

from __future__ import annotations

import json

import msgspec

from service.ops.settings import Settings


def render() -> str:
    from service.edge.app import create_app

    app = create_app(Settings(database_url="postgresql://schema-only", rate_limit=1))
    from litestar._openapi.plugin import OpenAPIPlugin

    schema = app.plugins.get(OpenAPIPlugin).provide_openapi_schema()  # with the typed contract
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False, default=msgspec.to_builtins) + "\n"
