"""Every error leaves as an RFC 9457 problem detail with a stable `code`, mapped here only.

The service raises plain exceptions (`service.commands.exceptions`, the domain's `RuleViolation`, the
store's errors); `ERRORS` is the one table that gives each class its status, stable code and
title. A class not in the table is looked up by its bases; anything unexpected is logged and
answered with a generic 500 that leaks nothing. Litestar's own validation and HTTP exceptions
(malformed parameters, 404 routes, 405, 413...) are rows of the same table, and so are the
refusals of the edge's middleware (rate limit, JSON-only bodies, CORS preflights, shutting
down): middleware answers before the framework's exception handling, so it hands one of the
exceptions below to `send_problem`, which looks it up here like every other. No problem code
is written anywhere else (tests/service/edge/test_error_table.py).
"""

from __future__ import annotations

import time
from typing import Any

import msgspec
import structlog
from litestar import Request, Response
from litestar.exceptions import (
    ClientException, HTTPException, MethodNotAllowedException, NotAuthorizedException, NotFoundException,
    PermissionDeniedException, TooManyRequestsException, ValidationException,
)
from litestar.exceptions.http_exceptions import RequestEntityTooLarge

from service.commands import accounts as acc
from service.commands import accounts_bots as bots
from service.commands import exceptions as x
from service.commands import oauth
from service.commands.players import InsufficientScope, InvalidName
from service.commands.transparency import BadCosignature
from service.store import errors as db

log = structlog.get_logger("stela.errors")
PROBLEM = "application/problem+json"
TYPE_BASE = "https://stela.dev/problems/"


class UnsupportedMediaType(x.ServiceError):
    """A request body in a format other than JSON."""


class HeadersTooLarge(x.ServiceError):
    """The request's header fields are larger in all than the edge reads."""


class RateLimited(x.ServiceError):
    """A bucket's budget is spent; `headers` say when to retry and what the budget is."""

    def __init__(self, detail: str, retry_after: int, limit: int) -> None:
        super().__init__(detail)
        self.headers = {"Retry-After": str(retry_after), "RateLimit-Limit": str(limit)}


class PreflightRefused(x.ServiceError):
    """A CORS preflight asks for an origin, method or header the API does not allow."""


class ShuttingDown(x.ServiceError):
    """The server's drain window ended before the request's response began."""

    headers = {"Retry-After": "1"}


class ClientDisconnected(x.ServiceError):
    """The client left before sending the whole body (Litestar's 500 for it is no error of ours)."""


class Rule(msgspec.Struct, frozen=True):
    """How one exception class leaves: status, stable code (None: the exception's own), title, detail."""

    status: int
    code: str | None
    title: str
    detail: str | None = None  # fixed text instead of the exception's (for errors from libraries)


_DB_DOWN = Rule(503, "database_unavailable", "Service unavailable", "the database is unavailable, retry later")

ERRORS: dict[type[BaseException], Rule] = {
    x.InvalidRequest: Rule(400, "invalid_request", "Bad request"),
    x.BadLastEventId: Rule(400, "bad_last_event_id", "Bad request"),
    db.REFUSED_INPUT: Rule(  # PostgreSQL refuses some input outright; nothing was written
        400, "invalid_request", "Bad request", "the request contains characters that cannot be stored (such as NUL)"),
    # msgspec's own refusals of a body no Struct could describe: too deep, or not UTF-8
    RecursionError: Rule(400, "invalid_request", "Bad request", "the JSON body is nested too deeply"),
    UnicodeDecodeError: Rule(400, "invalid_request", "Bad request", "the body is not valid UTF-8"),
    x.Unauthorized: Rule(401, "unauthorized", "Unauthorized"),
    x.Forbidden: Rule(403, "forbidden", "Forbidden"),
    x.NotSeated: Rule(403, "not_seated", "Forbidden"),
    x.GameRunning: Rule(403, "game_running", "Forbidden"),
    x.DealSealed: Rule(403, "deal_sealed", "Forbidden"),
    x.NotFound: Rule(404, "not_found", "Not found"),
    x.GameNotFound: Rule(404, "game_not_found", "Not found"),
    x.PlayerNotFound: Rule(404, "player_not_found", "Not found"),
    x.KindNotFound: Rule(404, "unknown_kind", "Not found"),
    x.VersionNotFound: Rule(404, "version_not_found", "Not found"),
    x.SeatNotFound: Rule(404, "no_such_seat", "Not found"),
    x.NoPicture: Rule(404, "no_picture", "Not found"),
    x.RuleViolation: Rule(409, None, "Rule violation"),
    x.VersionConflict: Rule(409, "version_conflict", "Version conflict"),
    x.Conflict: Rule(409, "conflict", "Conflict"),
    x.TooMuchContention: Rule(409, "too_much_contention", "Conflict"),
    x.InvalidCommand: Rule(422, "invalid_command", "Unprocessable content"),
    x.IdempotencyKeyReused: Rule(422, "idempotency_key_reused", "Unprocessable content"),
    x.InvalidOptions: Rule(422, None, "Invalid game options"),
    x.BadCursor: Rule(422, "bad_cursor", "Unprocessable content", "the cursor is not one this list issued"),
    x.Unavailable: Rule(503, "unavailable", "Service unavailable"),
    # accounts and tokens (docs/accounts.md)
    InsufficientScope: Rule(403, "insufficient_scope", "Forbidden"),
    acc.SignInFailed: Rule(401, "sign_in_failed", "Unauthorized"),
    acc.SignInThrottled: Rule(429, "sign_in_throttled", "Too many requests"),
    acc.LoginTaken: Rule(409, "login_taken", "Conflict"),
    acc.ReauthenticationRequired: Rule(403, "reauthentication_required", "Forbidden"),
    InvalidName: Rule(422, "invalid_name", "Unprocessable content"),
    acc.LoginRequired: Rule(422, "login_required", "Unprocessable content"),
    acc.WeakPassword: Rule(400, "weak_password", "Bad request"),
    acc.UnknownScope: Rule(400, "unknown_scope", "Bad request"),
    acc.TokenNotFound: Rule(404, "token_not_found", "Not found"),
    oauth.OAuthRefused: Rule(422, None, "OAuth request refused"),  # its code: oauth.<RFC 6749 error>
    oauth.BadRedirectUri: Rule(422, "invalid_redirect_uri", "Unprocessable content"),
    oauth.AppNotFound: Rule(404, "app_not_found", "Not found"),
    bots.BadBot: Rule(422, "invalid_bot", "Unprocessable content"),
    BadCosignature: Rule(422, "invalid_cosignature", "Unprocessable content"),
    bots.BotNotFound: Rule(404, "bot_not_found", "Not found"),
    x.ReadModelsUnavailable: Rule(503, "read_models_unavailable", "Service unavailable"),
    x.StoreUnavailable: _DB_DOWN,
    x.StreamLocked: Rule(503, "stream_locked", "Service unavailable",
                         "another transaction is writing this game's next events; nothing was written, retry shortly"),
    **{cls: _DB_DOWN for cls in db.UNAVAILABLE},  # down, out of connection slots, or it ended ours
    TimeoutError: Rule(503, "database_unavailable", "Service unavailable",
                       "the database did not answer in time (a lock, or overload); retry later"),
    ConnectionError: _DB_DOWN,
    # the edge's own refusals (middleware) and the framework's
    UnsupportedMediaType: Rule(415, "unsupported_media_type", "Unsupported media type"),
    HeadersTooLarge: Rule(431, "headers_too_large", "Request header fields too large"),
    RateLimited: Rule(429, "rate_limited", "Too many requests"),
    PreflightRefused: Rule(400, "cors_preflight_refused", "Bad request"),
    ShuttingDown: Rule(503, "shutting_down", "Service unavailable"),
    ClientDisconnected: Rule(400, "client_disconnected", "Bad request", "the client left before sending the body"),
    ValidationException: Rule(400, "invalid_request", "Bad request"),
    NotAuthorizedException: Rule(401, "unauthorized", "Unauthorized"),
    PermissionDeniedException: Rule(403, "forbidden", "Forbidden"),
    NotFoundException: Rule(404, "not_found", "Not found"),
    MethodNotAllowedException: Rule(405, "method_not_allowed", "Method not allowed"),
    RequestEntityTooLarge: Rule(413, "payload_too_large", "Payload too large"),
    TooManyRequestsException: Rule(429, "rate_limited", "Too many requests"),
    ClientException: Rule(400, "invalid_request", "Bad request"),
    # a framework exception with a status its class's row does not have: that status, with this code
    HTTPException: Rule(500, "http_error", "Error"),
    Exception: Rule(500, "internal_error", "Internal error", "an unexpected error occurred; it has been logged"),
}

class Outage:
    """How long the database has been failing, as this process saw it: the `Retry-After` of a
    `database_unavailable` 503. The first failures say 1 s (a dropped connection is replaced at
    once); while failures keep coming the advice grows with the outage (a quarter of its length so
    far, at most `MOST`), so a 10 s outage never sends clients away for a minute; `QUIET` seconds
    without a failure end the outage."""

    QUIET = 10.0
    MOST = 30

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self.began: float | None = None
        self.last = 0.0

    def retry_after(self) -> int:
        """Note a failure now; the seconds a client should wait before retrying."""
        now = self.clock()
        if self.began is None or now - self.last > self.QUIET:
            self.began = now
        self.last = now
        return max(1, min(self.MOST, int((now - self.began) / 4)))


OUTAGE = Outage()  # this process's view of the database

TITLES = {400: "Bad request", 401: "Unauthorized", 403: "Forbidden", 404: "Not found", 405: "Method not allowed",
           409: "Conflict", 413: "Payload too large", 415: "Unsupported media type", 422: "Unprocessable content",
           431: "Request header fields too large",
           429: "Too many requests", 500: "Internal error", 503: "Service unavailable"}  # the generic title of a status


class ProblemDetail(msgspec.Struct, kw_only=True, omit_defaults=True):
    """An RFC 9457 problem detail; `code` is stable and machine-readable."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    instance: str | None = None
    errors: list[dict[str, Any]] | None = None
    current_version: int | None = None


def rule_for(exc: BaseException) -> Rule:
    """The table's rule for `exc`: its own class's, else its nearest base's (`Exception`'s at the last)."""
    for cls in type(exc).__mro__:
        rule = ERRORS.get(cls)
        if rule is not None:
            return rule
    return ERRORS[Exception]


def problem(exc: BaseException, instance: str | None, status: int | None = None, detail: str | None = None,
            **extra: Any) -> tuple[int, bytes, dict[str, str]]:
    """`exc` as the table says: the status, the problem detail's JSON and the response's headers.

    `status` is a framework exception's own when it differs from its class's row (its code is then
    the row's generic one); `detail` replaces the exception's text; `extra` adds members.
    """
    rule = rule_for(exc)
    if status is not None and status != rule.status:
        rule = Rule(status, ERRORS[HTTPException].code, TITLES.get(status, "Error"))
    status = rule.status
    code = rule.code or getattr(exc, "code", "error")
    detail = detail or rule.detail or getattr(exc, "detail", None) or getattr(exc, "message", None) or str(exc)
    body = ProblemDetail(type=TYPE_BASE + code.replace(".", "/"), title=rule.title, status=status, detail=detail,
                         code=code, instance=instance, **extra)
    headers = dict(getattr(exc, "headers", None) or {})
    if code == "database_unavailable":
        headers.setdefault("Retry-After", str(OUTAGE.retry_after()))
    elif code == "stream_locked":  # one game's lock, held for a moment: no outage of the database
        headers.setdefault("Retry-After", "1")
    if status in (429, 503):
        headers.setdefault("Retry-After", "60")
    if getattr(exc, "replayed", False):  # a refusal given again for a resent Idempotency-Key
        headers["Idempotent-Replayed"] = "true"
    return status, msgspec.json.encode(body), headers


def example(exc: BaseException) -> dict[str, Any]:
    """The problem detail `exc` leaves as, for the API documentation's examples."""
    return msgspec.json.decode(problem(exc, None)[1])


def _response(request: Request, exc: BaseException, **overrides: Any) -> Response:
    status, body, headers = problem(exc, request.url.path, **overrides)
    return Response(content=body, status_code=status, media_type=PROBLEM, headers=headers)


async def send_problem(scope: Any, send: Any, exc: BaseException) -> None:
    """Answer a raw ASGI request with `exc` as a problem detail (for middleware that refuses before the
    framework's exception handling would see an exception)."""
    status, body, headers = problem(exc, scope.get("path"))
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode()),
                            *((k.lower().encode(), v.encode()) for k, v in headers.items())]})
    await send({"type": "http.response.body", "body": body})


def _mapped(request: Request, exc: Exception) -> Response:
    rule = rule_for(exc)
    if rule.status >= 500 and rule is ERRORS[Exception]:
        return _internal(request, exc)
    if rule.status == 503:
        log.warning("dependency_unavailable", error_type=type(exc).__name__)
    extra = {"current_version": exc.actual} if isinstance(exc, x.VersionConflict) else {}
    return _response(request, exc, **extra)


def _validation(request: Request, exc: ValidationException) -> Response:
    extra = exc.extra if isinstance(exc.extra, list) else None
    errors = [e if isinstance(e, dict) else {"message": str(e)} for e in extra] if extra else None
    detail = exc.detail or "the request is malformed"
    if errors and errors[0].get("message"):  # say what is wrong (an unknown field is named here)
        detail = f"{detail}: {errors[0]['message']}"
    return _response(request, exc, detail=detail, errors=errors)


DISCONNECTED = "client disconnected prematurely"  # Litestar's detail when the body never arrived


def _http(request: Request, exc: HTTPException) -> Response:
    status = exc.status_code
    if status >= 500 and exc.detail == DISCONNECTED:  # nobody is listening; not an error of ours
        log.info("client_disconnected", path=request.url.path)
        return _response(request, ClientDisconnected(DISCONNECTED))
    if status >= 500:
        return _internal(request, exc)
    return _response(request, exc, status=status, detail=exc.detail or TITLES.get(status, "Error"))


def _internal(request: Request, exc: Exception) -> Response:
    log.exception("unhandled_error", path=request.url.path, error_type=type(exc).__name__)
    return _response(request, Exception())


exception_handlers: dict[Any, Any] = {
    **{cls: _mapped for cls in ERRORS if not issubclass(cls, HTTPException)},
    ValidationException: _validation,
    HTTPException: _http,
}


def responses(*statuses: int) -> dict[int, Any]:
    """OpenAPI response docs for `statuses` plus 429 and 503 (possible everywhere), as problem details."""
    from litestar.openapi.datastructures import ResponseSpec
    from litestar.openapi.spec import Example

    examples = {422: ("invalid_command", "not a tally command: Object missing required field `amount`"),
                400: ("invalid_request", "Expected `int`, got `str` - at `$.seats`"),
                401: ("unauthorized", "a bearer token is required"),
                403: ("forbidden", "you may not command this seat"),
                404: ("not_found", "no game with this id"),
                409: ("tikal.not_enough_action_points", "moving there costs 3 action points, you have 2"),
                429: ("rate_limited", "too many requests"),
                503: ("database_unavailable", "the database is unavailable, retry later")}
    out = {}
    for status in sorted({*statuses, 429, 503}):
        code, detail = examples[status]
        example = ProblemDetail(type=TYPE_BASE + code.replace(".", "/"), title=TITLES[status], status=status,
                                detail=detail, code=code)
        out[status] = ResponseSpec(generate_examples=False, data_container=ProblemDetail, media_type=PROBLEM,
                                   description=TITLES[status],
                                   examples=[Example(summary=code, value=msgspec.to_builtins(example))])
    return out


async def shutting_down(scope: Any, send: Any) -> None:
    """The answer to a request the server's drain window ended before it began its response."""
    await send_problem(scope, send, ShuttingDown("the server is restarting; retry"))
