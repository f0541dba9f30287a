"""Routes name what they use: every handler's dependencies are the collaborators of
`service.edge.dependencies.COLLABORATORS` and the `viewer`, never the composition root's object, and no handler
resolves two dependencies at one depth (Litestar would resolve them side by side in a task group, a task each
per request)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from litestar.handlers import HTTPRouteHandler

from service.edge.app import create_app
from service.edge.dependencies import COLLABORATORS, VIEWER
from service.edge.desks import Desks
from service.ops.settings import Settings


def handlers() -> list[HTTPRouteHandler]:
    app = create_app(Settings(database_url="postgresql://schema-only", rate_limit=1))
    return [h for route in app.routes for h in getattr(route, "route_handlers", ())
            if isinstance(h, HTTPRouteHandler)]


def depths(handler: HTTPRouteHandler) -> dict[str, int]:
    """Each dependency the handler resolves (its own and theirs, recursively) and its depth: one more than the
    deepest of its own dependencies, as Litestar batches them."""
    provided = handler.resolve_dependencies()
    found: dict[str, int] = {}

    def depth(name: str) -> int:
        if name not in found:
            below = [p for p in inspect.signature(provided[name].dependency).parameters if p in provided]
            found[name] = 1 + max((depth(p) for p in below), default=0)
        return found[name]

    for name in handler.parsed_fn_signature.parameters:
        if name in provided:
            depth(name)
    return found


@pytest.fixture(scope="module")
def every_handler() -> list[HTTPRouteHandler]:
    return handlers()


def test_every_route_names_its_collaborators_and_never_the_root(every_handler):
    named = {name for handler in every_handler for name in depths(handler)}
    assert named <= {*COLLABORATORS, VIEWER}, named - {*COLLABORATORS, VIEWER}
    assert "services" not in named
    assert set(COLLABORATORS) <= {field for field in Desks.__dataclass_fields__}


def test_no_route_resolves_two_dependencies_at_one_depth(every_handler):
    crowded: dict[str, Any] = {}
    for handler in every_handler:
        levels: dict[int, list[str]] = {}
        for name, level in depths(handler).items():
            levels.setdefault(level, []).append(name)
        if any(len(names) > 1 for names in levels.values()):
            crowded[str(handler)] = levels
    assert crowded == {}


def test_a_route_taking_a_collaborator_and_the_viewer_resolves_the_viewer_below_it(every_handler):
    game = next(h for h in every_handler if h.operation_id == "getGame")
    assert depths(game) == {"queries": 1, VIEWER: 2}
