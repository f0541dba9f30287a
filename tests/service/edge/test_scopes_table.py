"""Every operation that reads the caller names the scope it needs (`SCOPES`); one left out would need
every scope, so an app's token with `read` could not even read a tournament."""

from __future__ import annotations

import inspect

from litestar.handlers import HTTPRouteHandler

from service.edge.app import create_app
from service.edge.dependencies import SCOPES
from service.ops.settings import Settings
from service.store.memory import MemoryStore


def _handlers():
    app = create_app(Settings(redis_url=None, projector="off"), store=MemoryStore())
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if isinstance(handler, HTTPRouteHandler) and isinstance(handler.operation_id, str):
                yield handler


def test_every_operation_with_a_caller_is_in_the_scopes_table():
    missing = [h.operation_id for h in _handlers()
               if "viewer" in inspect.signature(h.fn).parameters and h.operation_id not in SCOPES]
    assert missing == []


def test_the_table_names_only_operations_that_exist():
    assert set(SCOPES) - {h.operation_id for h in _handlers()} == set()
