"""The Litestar application: routes, errors, OpenAPI, middleware and dependencies, wired in one place.

The app factory is the one module of the edge that knows the composition root (`service.container`): its
lifespan opens the root's `Services`, and `desks` builds from them the collaborators each route names
(`service.edge.desks.Desks`), which the app's dependencies provide (`service.edge.dependencies.provided`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Litestar
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig

from service.edge import contract, docs
from litestar.openapi.spec import Components, SecurityScheme, Server, Tag
from litestar.types import ASGIApp, Receive, Scope, Send

from domain.catalog import GAMES
from domain.kernel import Game
from service.container import Services, open_services
from service.edge.dependencies import authenticator, provided, scoped_security
from service.edge.desks import Credentials, Desks, Live, Lobby, Play, Probes
from service.edge.middleware import MAX_BODY_BYTES, bounded, cross_origin, json_only, parse_networks
from service.edge.errors import exception_handlers, shutting_down
from service.edge.lifespan import lifespan
from service.edge.favicon import favicon
from service.ops.logging import request_logging
from service.ops.metrics import Metrics
from service.edge.ratelimit import Counters, rate_limit
from service.edge.routes.accounts import AccountController
from service.edge.routes.bots import BotController
from service.edge.routes.oauth import OAUTH_HANDLERS, OAUTH_SCHEME, TOKEN_FORM_BYTES, form_route
from service.edge.routes.games import GameController
from service.edge.routes.kinds import KindController
from service.edge.routes.ops import healthz, readyz
from service.edge.routes.play import PlayController, command_route, legal_route
from service.edge.routes.players import PlayerController
from service.edge.routes.readmodels import ReadModelController
from service.edge.routes.transparency import LogController
from service.edge.routes.streams import StreamController
from service.edge.routes.tournaments import ArenaController, TournamentController
from service.ops.settings import Settings

API_VERSION = "1.0.0"
DESCRIPTION = """Stela hosts board games behind one API: create a game, take seats, read the legal
commands of your seat, post them back, and follow the game live over Server-Sent Events.
Every game is an append-only event log; views never show a seat what it may not see; after
the end the whole log (with the revealed seed and a hash chain) is public and verifiable.
Errors are RFC 9457 problem details with a stable `code`."""


def openapi_config(games: dict[str, Game]) -> OpenAPIConfig:
    """The document's metadata, served typed (`service.edge.contract`) as JSON and in Swagger UI at /schema."""
    return OpenAPIConfig(
        title="Stela", version=API_VERSION, description=DESCRIPTION, path="/schema",
        render_plugins=[docs.render_plugin(games), contract.TypedJson(games)], servers=[Server(url="/")],
        components=Components(security_schemes={
            "bearer": SecurityScheme(type="http", scheme="bearer", description=(
                "a token from POST /v1/players (every scope), POST /v1/sessions (every scope) or POST "
                "/v1/players/me/tokens (its scopes); the scope an operation needs is in its requirement")),
            "oauth": OAUTH_SCHEME}),
        tags=[Tag(name="players"), Tag(name="accounts"), Tag(name="oauth"), Tag(name="bots"), Tag(name="kinds"),
              Tag(name="games"), Tag(name="play"), Tag(name="tournaments"), Tag(name="arenas"),
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


EXPOSED = ["Location", "X-Request-ID", "Retry-After", "Idempotent-Replayed", "RateLimit-Limit", "RateLimit",
           "RateLimit-Policy"]


def cors_config(settings: Settings) -> CORSConfig:
    """Any configured origin may call the API; bearer tokens are not ambient, so no credentials."""
    origins = [o.strip() for o in settings.cors_origins.split(",") if o.strip()] or ["*"]
    return CORSConfig(allow_origins=origins, allow_credentials=False,
                      allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
                      allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID",
                                     "X-Request-ID"],
                      expose_headers=EXPOSED, max_age=86400)


def edge(app: Litestar, settings: Settings) -> ASGIApp:
    """What wraps the framework (its router inside its exception handling) for every request, matched
    or not, outermost first: the request id, log line and metrics; CORS (so refusals below carry it
    too); budgets; JSON-only bodies; every method of the route in an OPTIONS answer's Allow."""
    state = app.state
    # OAuth's token endpoint reads forms, bounded as every body is
    routed = allow_fix(app.asgi_handler)
    inner: ASGIApp = form_route(json_only(routed), bounded(routed, max_body_bytes=TOKEN_FORM_BYTES))
    if settings.rate_limit > 0 or settings.stream_rate_limit > 0 or settings.max_streams_per_client > 0:
        counters = Counters(window=settings.rate_limit_window_seconds)
        if settings.redis_url:
            import redis.asyncio as aioredis

            redis = aioredis.from_url(settings.redis_url, socket_connect_timeout=0.25, socket_timeout=0.25)
            counters = Counters(redis, state.get("rate_limit_prefix", "stela:"),  # tests keep their keys apart
                                settings.rate_limit_window_seconds)

            async def close_counters(_app: Any) -> None:
                await counters.close()  # the stream slots still held, then the connection
                await redis.aclose()

            app.state.on_stop.append(close_counters)

        def known_player(authorization: str | None) -> str | None:
            desks = state.get("desks")
            return desks.players.known(authorization) if desks is not None else None

        inner = rate_limit(settings.rate_limit, settings.stream_rate_limit, settings.max_streams_per_client,
                           parse_networks(settings.trusted_proxies), counters, known_player)(inner)
    return request_logging(settings.log_level, state.metrics, shutting_down)(
        cross_origin(inner, cors_config(settings)))


SDK_CHECKOUT = Path(__file__).resolve().parents[2] / "clients" / "typescript" / "dist"


def sdk_routes() -> list:
    """`clients/typescript/dist/` (the SDK's browser ES modules, its one copy) served at `/sdk/` from a checkout.

    The Docker image has no checkout: its build copies `dist/` into the client's `static/sdk/`, which the
    client's own router serves at the same address, so nothing more is mounted there.
    """
    from litestar.static_files import create_static_files_router
    from service.web import STATIC_DIR

    if (STATIC_DIR / "sdk").is_dir() or not SDK_CHECKOUT.is_dir():
        return []
    return [create_static_files_router(path="/sdk", directories=[SDK_CHECKOUT], include_in_schema=False, name="sdk")]


def desks(services: Services) -> Desks:
    """What the routes name, built once from the composition root's object."""
    settings = services.settings
    live = Live(broker=services.broker, store=services.store, repository=services.repository, seals=services.seals,
                tickets=services.tickets, players=services.players, revocations=services.revocations,
                personal=services.personal, tournaments=services.tournaments, arenas=services.arenas,
                closing=services.closing, heartbeat_seconds=settings.heartbeat_seconds,
                stream_max_games=settings.stream_max_games)
    credentials = Credentials(players=services.players, accounts=services.accounts, oauth=services.oauth,
                              revocations=services.revocations, issuer=settings.issuer,
                              trusted_proxies=parse_networks(settings.trusted_proxies))
    return Desks(queries=services.queries, lobby=Lobby(pipeline=services.pipeline, bots=services.bots),
                 listings=services.listings, players=services.players, credentials=credentials,
                 tournaments=services.tournaments, arenas=services.arenas, bots=services.bots,
                 repository=services.repository, transparency=services.transparency, live=live,
                 probes=Probes(store=services.store, broker=services.broker, projector=services.projector,
                               metrics=services.metrics, redis_url=settings.redis_url),
                 play=Play(players=services.players, pipeline=services.pipeline, queries=services.queries,
                           metrics=services.metrics))


def create_app(settings: Settings | None = None, games: dict[str, Game] | None = None, store: Any = None,
               extra: dict[str, Any] | None = None) -> Litestar:
    """The app; `games` defaults to the catalogue, `store` to PostgreSQL (embedded without DATABASE_URL).

    The collaborators themselves are built at start-up by `service.container.open_services` and handed to
    the routes as `desks` names them.
    """
    from service.web import routes as web_routes
    from service.ops import logging as stela_logging

    settings = settings or Settings.from_env()
    stela_logging.configure(settings.log_level)
    state = State({"settings": settings, "games": dict(GAMES if games is None else games), "store": store,
                   "metrics": Metrics(), "on_stop": [], **(extra or {})})
    handlers: list[Any] = [PlayerController, AccountController, *OAUTH_HANDLERS, BotController, KindController,
                           GameController, PlayController, StreamController, TournamentController, ArenaController,
                           healthz, readyz, ReadModelController, LogController,
                           command_route(lambda: state.desks.play),  # `desks` are built by the lifespan
                           legal_route(lambda: state.desks.play)]
    handlers.append(docs.assets_router())
    handlers.append(favicon)
    handlers += sdk_routes()  # the TypeScript SDK the reference client imports, at /sdk/
    handlers += web_routes()  # the reference client at / (last resort: /v1 routes come first)
    app = Litestar(route_handlers=handlers, lifespan=[lifespan(open_services, desks)], state=state,
                   openapi_config=openapi_config(state.games), exception_handlers=exception_handlers,
                   # the caller, routed and before the body (`authenticator`: neither a guard nor a route middleware)
                   before_request=authenticator(lambda: state.desks.players),
                   dependencies=provided(lambda: state.desks),
                   request_max_body_size=MAX_BODY_BYTES, debug=False,  # no `cors_config`: CORS wraps the edge (`edge`), outside budgets and refusals
                   logging_config=None)  # our JSON lines (service.ops.logging), not Litestar's text format
    scoped_security(app)  # each operation's scope into its security requirement (docs/accounts.md)
    app.asgi_handler = edge(app, settings)  # around the handler Litestar built: router and exception handling
    allow: dict[str, set[str]] = {}
    for route in app.routes:
        allow.setdefault(route.path, set()).update(getattr(route, "methods", ()))
    state.allow = {path: ", ".join(sorted(methods)) for path, methods in allow.items()}
    return app
