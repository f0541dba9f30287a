"""Every error leaves as an RFC 9457 problem detail with a stable `code`, mapped here only.

Handlers raise `Problem` (or let RuleViolation / ConcurrencyError / validation
errors bubble); `exception_handlers` turns each into `application/problem+json`.
Anything unexpected is logged and answered with a generic 500 that leaks nothing.
"""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec
import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, NotAuthorizedException, ValidationException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from domain.kernel import RuleViolation
from service.store.protocol import ConcurrencyError, StoreUnavailable

log = structlog.get_logger("stela.errors")
PROBLEM = "application/problem+json"
TYPE_BASE = "https://stela.dev/problems/"


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


class Problem(Exception):
    """An error a client caused or must handle, with its HTTP status and stable code."""

    def __init__(self, status: int, code: str, detail: str, title: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title or _TITLES.get(status, "Error")
        self.extra = extra


_TITLES = {400: "Bad request", 401: "Unauthorized", 403: "Forbidden", 404: "Not found", 405: "Method not allowed",
           409: "Conflict", 413: "Payload too large", 415: "Unsupported media type", 422: "Unprocessable content",
           429: "Too many requests", 500: "Internal error", 503: "Service unavailable"}
_HTTP_CODES = {400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 406: "not_acceptable", 409: "conflict", 413: "payload_too_large",
               415: "unsupported_media_type", 429: "rate_limited", 503: "unavailable"}


def problem_response(request: Request, status: int, code: str, detail: str, title: str | None = None,
                     headers: dict[str, str] | None = None, **extra: Any) -> Response:
    body = ProblemDetail(type=TYPE_BASE + code.replace(".", "/"), title=title or _TITLES.get(status, "Error"),
                         status=status, detail=detail, code=code, instance=request.url.path, **extra)
    headers = dict(headers or {})
    if status in (429, 503):
        headers.setdefault("Retry-After", "60")
    return Response(content=msgspec.json.encode(body), status_code=status, media_type=PROBLEM, headers=headers)


def _problem(request: Request, exc: Problem) -> Response:
    return problem_response(request, exc.status, exc.code, exc.detail, exc.title, **exc.extra)


def _rule(request: Request, exc: RuleViolation) -> Response:
    return problem_response(request, 409, exc.code, exc.message, "Rule violation")


def _conflict(request: Request, exc: ConcurrencyError) -> Response:
    return problem_response(request, 409, "version_conflict", str(exc), "Version conflict",
                            current_version=exc.actual)


def _database_down(request: Request, exc: Exception) -> Response:
    log.warning("database_unreachable", error_type=type(exc).__name__)
    return problem_response(request, 503, "database_unavailable", "the database is unavailable, retry later")


def _unstorable(request: Request, exc: Exception) -> Response:
    # PostgreSQL refuses some input outright (a NUL character, for one); nothing was written
    return problem_response(request, 400, "invalid_request",
                            "the request contains characters that cannot be stored (such as NUL)")


def _validation(request: Request, exc: ValidationException) -> Response:
    extra = exc.extra if isinstance(exc.extra, list) else None
    errors = [e if isinstance(e, dict) else {"message": str(e)} for e in extra] if extra else None
    return problem_response(request, 400, "invalid_request", exc.detail or "the request is malformed",
                            errors=errors)


def _http(request: Request, exc: HTTPException) -> Response:
    status = exc.status_code
    if status >= 500:
        return _internal(request, exc)
    code = _HTTP_CODES.get(status, "http_error")
    if isinstance(exc, NotAuthorizedException):
        code = "unauthorized"
    return problem_response(request, status, code, exc.detail or _TITLES.get(status, "Error"),
                            headers=dict(exc.headers or {}))


def _internal(request: Request, exc: Exception) -> Response:
    log.exception("unhandled_error", path=request.url.path, error_type=type(exc).__name__)
    return problem_response(request, HTTP_500_INTERNAL_SERVER_ERROR, "internal_error",
                            "an unexpected error occurred; it has been logged")


exception_handlers: dict[Any, Any] = {
    Problem: _problem,
    RuleViolation: _rule,
    ConcurrencyError: _conflict,
    StoreUnavailable: _database_down,
    asyncpg.exceptions.DataError: _unstorable,
    asyncpg.exceptions.PostgresConnectionError: _database_down,
    asyncpg.exceptions.InterfaceError: _database_down,
    asyncpg.exceptions.CannotConnectNowError: _database_down,
    ConnectionError: _database_down,
    ValidationException: _validation,
    HTTPException: _http,
    Exception: _internal,
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
        example = ProblemDetail(type=TYPE_BASE + code.replace(".", "/"), title=_TITLES[status], status=status,
                                detail=detail, code=code)
        out[status] = ResponseSpec(generate_examples=False, data_container=ProblemDetail, media_type=PROBLEM, description=_TITLES[status],
                                   examples=[Example(summary=code, value=msgspec.to_builtins(example))])
    return out
