"""The interactive API documentation at /schema, served without the internet.

Swagger UI (5.x, OpenAPI 3.1) comes from a Python package that ships its built files
(`drf-spectacular-sidecar`; only its static folder is read, its Django app is never imported),
served by the app under /schema/assets, so /schema works on a machine with no network.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.static_files import create_static_files_router

from domain.kernel import Game
from service.edge.contract import Typed

ASSETS = "/schema/assets"


def swagger_dir() -> Path:
    """Where the shipped Swagger UI files are (found without importing the package)."""
    spec = importlib.util.find_spec("drf_spectacular_sidecar")
    assert spec is not None and spec.origin is not None, "drf-spectacular-sidecar is a dependency"
    return Path(spec.origin).parent / "static" / "drf_spectacular_sidecar" / "swagger-ui-dist"


class TypedSwagger(Typed, SwaggerRenderPlugin):
    """Swagger UI showing the typed document."""


def render_plugin(games: Mapping[str, Game]) -> SwaggerRenderPlugin:
    """Swagger UI at /schema (and /schema/swagger), loading only this server's assets."""
    return TypedSwagger(games, js_url=f"{ASSETS}/swagger-ui-bundle.js", css_url=f"{ASSETS}/swagger-ui.css",
                               standalone_preset_js_url=f"{ASSETS}/swagger-ui-standalone-preset.js",
                               path=["/", "/swagger"])


def assets_router() -> Any:
    """The static route that serves the Swagger UI files, cached by browsers for a day."""
    return create_static_files_router(path=ASSETS, directories=[swagger_dir()], include_in_schema=False,
                                      cache_control=None, name="schema-assets")
