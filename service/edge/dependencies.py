"""What routes receive by dependency injection: the collaborators each one uses, named for what they are,
and the caller.

A route names the one collaborator it uses (`queries`, `lobby`, `listings`, `players`, `credentials`,
`tournaments`, `arenas`, `bots`, `repository`, `transparency`, `live`, `probes`: `COLLABORATORS`), each
provided from the composition root's object by the app factory (`provided`, once the lifespan has built
it), and, where it matters, the `viewer`, resolved from the `Authorization` header by the players' service
in the app's before-request hook (`authenticator`), which runs once the router has chosen the handler and
before the handler decodes a body, so a caller without a valid token or scope is refused 401/403 before a bad
body could be answered 400 (authentication first, as the OAuth bearer-token rules expect). It is neither a
Litestar guard, because Litestar copies the route handler for every guard call on every request (8.6 µs of a
command's ~240 µs, py-spy, session 58), nor a route middleware, because with any route middleware Litestar
wraps every route in a second exception handler. Routes never see the composition root's object nor reach into
application state.

Litestar resolves dependencies of the same depth concurrently in an anyio task group, a task each per
request; one dependency a depth keeps that off the request path. A collaborator has no dependency of its
own (depth one), so a route that takes one and the `viewer` declares the viewer a depth below it
(`viewer_after(name)`, on its controller or handler); a route with several collaborators takes the one small
struct that bundles them (`service.edge.desks`, `GameQueries`, `Listings`).

Every operation that reads the caller needs one scope of the caller's token (`SCOPES`, documented in
each operation's OpenAPI security requirement by `scoped_security`); the caller is refused 403
`insufficient_scope` without it. An operation missing from the table needs every scope (fail closed).
"""

from __future__ import annotations

import dataclasses
import inspect
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Litestar, Request
from litestar.di import NamedDependency, Provide
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler

from service.commands.players import ACCOUNT, ORGANISE, PLAY, READ, Players, Viewer
from service.edge.desks import Desks

ANY_TOKEN = ""  # the operation takes any valid token, whatever its scopes (a token revoking itself)
SCOPES: dict[str, str] = {
    **dict.fromkeys(("getGame", "getBoardPicture", "getEvents", "exportGame", "getLegalCommands", "streamGame",
                     "createGameStreamTicket", "getGameAtVersion", "getMe", "streamMyGames",
                     "createPersonalStreamTicket", "createStreamTicket", "streamMany", "getTournament",
                     "getTournamentReport", "getTournamentReportCsv", "listArenas", "getArena", "getArenaEvents",
                     "streamArena"), READ),
    **dict.fromkeys(("createGame", "sendCommand", "joinGame", "leaveGame", "startGame", "registerForTournament",
                     "withdrawFromTournament", "pauseTournamentPlayer", "resumeTournamentPlayer",
                     "setTournamentWindows", "joinArena",
                     "pauseArena", "leaveArena", "berserkInArena"), PLAY),
    **dict.fromkeys(("createTournament", "startTournament", "addTournamentBots", "removeTournamentPlayer",
                     "forbidTournamentPairing", "setTournamentPairings", "annulTournamentGame",
                     "adjudicateTournamentGame", "createArena", "addArenaBots"),
                    ORGANISE),
    **dict.fromkeys(("rotateToken", "setPassword", "createAccessToken", "listAccessTokens", "revokeAccessToken",
                     "listAuthorizedApps", "revokeAuthorizedApp", "registerApp", "describeAuthorization",
                     "decideAuthorization", "leaseBots", "finishBot"), ACCOUNT),
    "revokeToken": ANY_TOKEN,
}


def required_scope(scope: Any) -> str:
    """The scope the request's operation needs (every scope, `account`, for one not in `SCOPES`)."""
    operation = getattr(scope.get("route_handler"), "operation_id", None)
    return SCOPES.get(operation, ACCOUNT) if isinstance(operation, str) else ACCOUNT


async def caller(players: Players, authorization: str | None, scope: Any) -> Viewer:
    """The caller from `Authorization: Bearer <token>`; anonymous without the header, 401 if it is wrong.

    Its player id goes into the scope's state for the request's log line.
    """
    viewer = await players.viewer(authorization)
    if viewer.player is not None:
        scope.setdefault("state", {})["player_id"] = viewer.player.id
        needed = required_scope(scope)
        if needed:
            viewer.require_scope(needed)
    return viewer


def authorization(scope: Any) -> str | None:
    """The request's first `Authorization` header, read from the raw scope (no header mapping built)."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            return value.decode("latin-1")
    return None


VIEWER = "viewer"  # the dependency's name, and the key `authenticator` leaves the caller under in the scope's state


def authenticator(players: Callable[[], Players]) -> Callable[[Request[Any, Any, Any]], Awaitable[None]]:
    """The app's before-request hook that resolves the caller, answered with the process's `players()` (bound by
    the app factory): for a route that reads the caller, resolve it (401 for a wrong token, 403 for a missing
    scope) once the request is routed and before the handler decodes the route's body. A route that takes no
    dependencies but reads the caller (the command route) says so with `opt={"viewer": True}` and reads
    `viewer_of(scope)`.

    A hook rather than a route middleware or a guard: with any route middleware Litestar wraps every route in
    one more exception handler, and it copies the route handler for every guard call."""

    async def authenticate(request: Request[Any, Any, Any]) -> None:
        scope = request.scope
        if reads_caller(scope["route_handler"]):
            scope.setdefault("state", {})[VIEWER] = await caller(players(), authorization(scope), scope)

    return authenticate


def reads_caller(handler: BaseRouteHandler) -> bool:
    """Does the route read the caller (it takes `viewer`, or says so in its `opt`)? Asked of each handler once."""
    known = READS_CALLER.get(handler)
    if known is None:
        known = bool(handler.opt.get(VIEWER)) or VIEWER in handler.parsed_fn_signature.parameters
        READS_CALLER[handler] = known
    return known


READS_CALLER: "weakref.WeakKeyDictionary[BaseRouteHandler, bool]" = weakref.WeakKeyDictionary()


def viewer_of(scope: Any) -> Viewer:
    """The caller `authenticator` resolved for this request."""
    return scope["state"][VIEWER]


def provide_viewer(request: Request[Any, Any, Any]) -> Viewer:
    """The caller `authenticator` resolved (for a route that takes no collaborator)."""
    return viewer_of(request.scope)


def viewer_after(name: str) -> dict[str, Provide]:
    """The `viewer` resolved a depth below the collaborator `name` (which its route takes too), so the two are
    not resolved side by side in a task group: the provider's signature names `name` as its dependency."""

    def provide(request: Request[Any, Any, Any], **_: Any) -> Viewer:
        return viewer_of(request.scope)

    provide.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter("request", inspect.Parameter.KEYWORD_ONLY, annotation=Request[Any, Any, Any]),
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=NamedDependency[Any])],
        return_annotation=Viewer)
    provide.__annotations__ = {"request": Request[Any, Any, Any], name: NamedDependency[Any], "return": Viewer}
    return {VIEWER: Provide(provide, sync_to_thread=False)}


# the collaborators a route may name: the fields of the app's collaborators (`service.edge.desks.Desks`) but `play`,
# which the command and legal routes read directly (they take no dependencies)
COLLABORATORS = tuple(field.name for field in dataclasses.fields(Desks) if field.name != "play")


def provided(collaborators: Callable[[], Any]) -> dict[str, Provide]:
    """The app's dependencies: each of `COLLABORATORS` read from `collaborators()` (the object the lifespan
    built), with no dependency of its own, and the `viewer` for a route that takes no collaborator."""

    def provider(name: str) -> Provide:
        def provide() -> Any:
            return getattr(collaborators(), name)

        return Provide(provide, sync_to_thread=False)

    return {**{name: provider(name) for name in COLLABORATORS}, VIEWER: Provide(provide_viewer, sync_to_thread=False)}


def scoped_security(app: Litestar) -> None:
    """Write each operation's scope into its OpenAPI security requirement (bearer token or OAuth), before the
    document is generated: required where the operation declared a bearer token, optional elsewhere."""
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if not isinstance(handler, HTTPRouteHandler) or not isinstance(handler.operation_id, str):
                continue
            needed = SCOPES.get(handler.operation_id)
            if needed is None:
                continue
            if needed == ANY_TOKEN:
                handler.security = [{"bearer": []}, {"oauth": []}]
                continue
            bearer = [{"bearer": [needed]}] + ([{"oauth": [needed]}] if needed != ACCOUNT else [])
            handler.security = bearer if handler.security else [{}, *bearer]
