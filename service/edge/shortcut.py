"""The two requests of every client's step, answered without the framework's router: `POST
/v1/games/{id}/commands` and `GET /v1/games/{id}/legal`.

Litestar spends ~40 µs a request on routing, parameter parsing, the body's DTO, its exception layer and
the response object (bench.entrance; the anchor of `bench.http` pays it too), more than the rules of
most commands. These two routes are most of the API's traffic and take nothing from the framework
(no dependencies, the body decoded by one prebuilt decoder, the answer encoded once), so a request
that has their plain shape is answered here by the same functions the routes call (`command_body`,
`legal_body`), inside the same edge (request id, log line, metrics, CORS, budgets, JSON only) and with
the scope keys the framework would have set (`route_handler`, `path_template`, `path_params`) so the
log line, the metrics and the token's scope check read it the same.

Everything else goes to the framework untouched, and so does anything unusual about these two: another
method or a trailing slash, a query parameter that is not one of theirs or not in its plain form, a body
that is not read ahead (`json_only`) or that their decoder refuses, a long game id, an idempotency key
over 128 characters, an invalid Host. A request whose work raised is handed to the framework too, with
the exception (`RAISED` in the scope): the route raises it first thing, so every error is answered by
the framework's exception handlers exactly as before, and nothing is done twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec
from litestar import Litestar
from litestar.types import ASGIApp, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState

from service.edge.schemas import plain_envelope

RAISED = "stela.raised"  # the scope key of an exception the shortcut met, for the route to raise
_GAMES, _COMMANDS, _LEGAL = "/v1/games/", "/commands", "/legal"
_INCLUDE = re.compile(rb"\A(view|legal)(,(view|legal))*\Z")
_HOST = re.compile(rb"\A[0-9A-Za-z!$&'()*+,;=\-._~:\[\]@%]*\Z")  # RFC 3986 authority characters
_JSON = (b"content-type", b"application/json")
_REPLAYED = (b"idempotent-replayed", b"true")
MAX_KEY = 128  # the route's `Idempotency-Key` limit
MAX_ID = 64  # the routes' game id limit


class Plain(msgspec.Struct, frozen=True):
    """A request of plain shape for one of the two routes: what the route would have been given."""

    game_id: str
    authorization: str | None
    key: str | None = None
    dry_run: bool = False
    include: str | None = None
    min_version: int | None = None


def _game_id(path: str, suffix: str) -> str | None:
    """The id in `/v1/games/{id}{suffix}`, when it is one the route takes as it is."""
    if not path.startswith(_GAMES) or not path.endswith(suffix):
        return None
    game_id = path[len(_GAMES):-len(suffix)]
    if not game_id or len(game_id) > MAX_ID or "/" in game_id or "\x00" in game_id:
        return None
    return game_id


def _query(raw: bytes, allowed: frozenset[bytes]) -> dict[bytes, bytes] | None:
    """`a=1&b=2` as a mapping, when every name is `allowed`, given once, with a plain value."""
    if not raw:
        return {}
    found: dict[bytes, bytes] = {}
    for part in raw.split(b"&"):
        name, equals, value = part.partition(b"=")
        if not equals or name not in allowed or name in found or not value or b"%" in value or b"+" in value:
            return None
        found[name] = value
    return found


_COMMAND_QUERY = frozenset({b"dry_run", b"include"})
_LEGAL_QUERY = frozenset({b"min_version"})


def _headers(scope: Scope) -> tuple[str | None, str | None] | None:
    """(Authorization, Idempotency-Key) from the raw headers, or None when a header needs the framework."""
    authorization = key = None
    for name, value in scope["headers"]:
        if name == b"authorization":
            if authorization is None:
                authorization = value.decode("latin-1")
        elif name == b"idempotency-key":
            if key is not None or len(value) > MAX_KEY:
                return None
            key = value.decode("latin-1")
        elif name == b"host" and _HOST.match(value) is None:
            return None
    return authorization, key


def plain_command(scope: Scope) -> tuple[Plain, Any] | None:
    """A command request of plain shape with its decoded body (`CommandEnvelope`), else None."""
    if scope["method"] != "POST" or scope.get("root_path"):
        return None
    game_id = _game_id(scope["path"], _COMMANDS)
    body = ScopeState.from_scope(scope).body
    if game_id is None or not isinstance(body, bytes):
        return None
    query = _query(scope["query_string"], _COMMAND_QUERY)
    headers = _headers(scope)
    if query is None or headers is None:
        return None
    dry_run = query.get(b"dry_run", b"false")
    include = query.get(b"include")
    if dry_run not in (b"true", b"false") or (include is not None and _INCLUDE.match(include) is None):
        return None
    envelope = plain_envelope(body)
    if envelope is None:
        return None
    return Plain(game_id, headers[0], headers[1], dry_run == b"true",
                 include.decode() if include is not None else None), envelope


def plain_legal(scope: Scope) -> Plain | None:
    """A legal-commands request of plain shape, else None."""
    if scope["method"] != "GET" or scope.get("root_path"):
        return None
    game_id = _game_id(scope["path"], _LEGAL)
    query = _query(scope["query_string"], _LEGAL_QUERY) if game_id is not None else None
    headers = _headers(scope) if query is not None else None
    if game_id is None or query is None or headers is None or headers[1] is not None:
        return None
    min_version = None
    if b"min_version" in query:
        digits = query[b"min_version"]
        if not digits.isdigit() or len(digits) > 8 or not 1 <= int(digits) <= 10_000_000:
            return None
        min_version = int(digits)
    return Plain(game_id, headers[0], min_version=min_version)


def _handler(app: Litestar, operation_id: str) -> tuple[Any, str]:
    """The route handler with `operation_id` and its path template, as the router would put in the scope."""
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if getattr(handler, "operation_id", None) == operation_id:
                return handler, route.path_format
    raise LookupError(operation_id)


def shortcut(inner: ASGIApp, app: Litestar, services: Callable[[], Any], command_body: Callable[..., Any],
             legal_body: Callable[..., Any]) -> ASGIApp:
    """`inner` (the framework), with the two routes' plain requests answered here (see the module) by
    the routes' own `command_body` and `legal_body` (service.edge.routes.play)."""
    command, command_template = _handler(app, "sendCommand")
    legal, legal_template = _handler(app, "getLegalCommands")

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await inner(scope, receive, send)
            return
        method = scope["method"]
        found = plain_command(scope) if method == "POST" else plain_legal(scope) if method == "GET" else None
        if found is None:
            await inner(scope, receive, send)
            return
        if isinstance(found, tuple):
            plain, envelope = found
            scope["route_handler"], scope["path_template"] = command, command_template
        else:
            plain, envelope = found, None
            scope["route_handler"], scope["path_template"] = legal, legal_template
        scope["path_params"] = {"game_id": plain.game_id}
        try:
            if envelope is not None:
                body, replayed = await command_body(services(), scope, plain.authorization, plain.game_id, envelope,
                                                    plain.key, plain.dry_run, plain.include)
            else:
                body = await legal_body(services(), scope, plain.authorization, plain.game_id, plain.min_version)
                replayed = False
        except Exception as exc:  # answered by the framework's own handlers, as the route would be
            scope[RAISED] = exc  # type: ignore[literal-required]
            await inner(scope, receive, send)
            return
        headers = [_JSON, (b"content-length", str(len(body)).encode())]
        if replayed:
            headers.append(_REPLAYED)
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return middleware


def raise_stashed(scope: Scope) -> None:
    """Raise the exception the shortcut met for this request, if it met one (first thing in the route)."""
    raised = scope.pop(RAISED, None)  # type: ignore[misc]
    if raised is not None:
        raise raised
