"""The Litestar application: routes, errors, OpenAPI, middleware and dependencies, wired in one place."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig

from service import docs
from litestar.openapi.spec import Components, SecurityScheme, Server, Tag
from litestar.types import ASGIApp, Receive, Scope, Send

from domain.catalog import GAMES
from domain.kernel import Game
from service.dependencies import DEPENDENCIES
from service.errors import exception_handlers
from service.lifespan import lifespan
from service.logging import request_logging
from service.metrics import Metrics
from service.ratelimit import rate_limit
from service.routes.games import GameController
from service.routes.kinds import KindController
from service.routes.ops import healthz, metrics, readyz
from service.routes.play import PlayController
from service.routes.players import PlayerController
from service.routes.streams import StreamController
from service.routes.tournaments import TournamentController
from service.settings import Settings

API_VERSION = "1.0.0"
DESCRIPTION = """Stela hosts board games behind one API: create a game, take seats, read the legal
commands of your seat, post them back, and follow the game live over Server-Sent Events.
Every game is an append-only event log; views never show a seat what it may not see; after
the end the whole log (with the revealed seed and a hash chain) is public and verifiable.
Errors are RFC 9457 problem details with a stable `code`."""


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Stela", version=API_VERSION, description=DESCRIPTION, path="/schema",
        render_plugins=[docs.render_plugin()], servers=[Server(url="/")],
        components=Components(security_schemes={
            "bearer": SecurityScheme(type="http", scheme="bearer", description="token from POST /v1/players")}),
        tags=[Tag(name="players"), Tag(name="kinds"), Tag(name="games"), Tag(name="play"), Tag(name="tournaments"),
              Tag(name="leaderboards"),
              Tag(name="stats"), Tag(name="ops")],
        use_handler_docstrings=False, create_examples=False)


def allow_fix(app: ASGIApp) -> ASGIApp:
    """Answer OPTIONS with every method of the route (Litestar lists only one handler group's)."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "OPTIONS":
            await app(scope, receive, send)
            return

        async def send_wrapper(message: Any) -> None:
            allow = scope["app"].state.allow.get(scope.get("path_template", ""))
            if message["type"] == "http.response.start" and allow:
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"allow"]
                message["headers"] = [*headers, (b"allow", allow.encode())]
            await send(message)

        await app(scope, receive, send_wrapper)

    return middleware


def create_app(settings: Settings | None = None, games: dict[str, Game] | None = None, store: Any = None,
               extra: dict[str, Any] | None = None) -> Litestar:
    """The app; `games` defaults to the catalogue, `store` to PostgreSQL (embedded without DATABASE_URL).

    The collaborators themselves are built at start-up by `service.container.open_services`.
    """
    from service import contract, timeouts, tournaments
    from service.web import routes as web_routes
    from service import logging as stela_logging
    from service.readmodels import install

    settings = settings or Settings.from_env()
    stela_logging.configure(settings.log_level)
    state = State({"settings": settings, "games": dict(GAMES if games is None else games), "store": store,
                   "metrics": Metrics(), "on_start": [], "on_stop": [], **(extra or {})})
    handlers: list[Any] = [PlayerController, KindController, GameController, PlayController, StreamController,
                           TournamentController, healthz, readyz, metrics]
    handlers += install(state, settings)
    tournaments.install(state)
    timeouts.install(state)
    handlers.append(docs.assets_router())
    handlers += web_routes()  # the reference client at / (last resort: /v1 routes come first)
    middleware: list[Any] = [request_logging(settings.log_level), allow_fix]
    if settings.rate_limit > 0:
        middleware.append(rate_limit(settings.rate_limit))
    app = Litestar(route_handlers=handlers, lifespan=[lifespan], state=state, openapi_config=openapi_config(),
                   exception_handlers=exception_handlers, middleware=middleware, dependencies=DEPENDENCIES,
                   debug=False)
    allow: dict[str, set[str]] = {}
    for route in app.routes:
        allow.setdefault(route.path, set()).update(getattr(route, "methods", ()))
    state.allow = {path: ", ".join(sorted(methods)) for path, methods in allow.items()}
    contract.install(app)
    return app
