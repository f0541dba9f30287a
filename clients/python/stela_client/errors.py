"""Typed errors: every refusal of the API raises one exception class per family of problem `code`.

Stela answers every error with an RFC 9457 problem document (`application/problem+json`) carrying a
stable `code`. `error_for` picks the class: first by `code` (`CODES`), then a dotted code
(`tikal.no_path`, `table.not_open`: a rule of the game) is a `RuleViolation`, then by HTTP status.
Each exception keeps the `status`, the `code` and the whole `problem` (extra members such as
`current_version` or `errors` included), and the `Retry-After` seconds when the server sent some.

The OAuth token and revocation endpoints answer RFC 6749 5.2 JSON instead (`{"error": "invalid_grant"}`):
its `error` is the exception's `code`. Transport failures (connection refused or reset, timeouts) are
`TransportError`, not a problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class StelaError(Exception):
    """A refusal from the API: `status`, the stable `code` and the problem document (`problem`)."""

    def __init__(self, status: int, problem: Mapping[str, Any], retry_after: float | None = None) -> None:
        self.status = status
        self.problem: dict[str, Any] = dict(problem)
        self.code = _code(problem)
        self.detail = str(problem.get("detail") or problem.get("title") or problem.get("error_description") or "")
        self.retry_after = retry_after
        super().__init__(f"{status} {self.code}: {self.detail}")


class InvalidRequest(StelaError):
    """400, 413, 415, 422, 431: the request itself is wrong (a field, the options, a cursor, a reused key)."""


class Unauthorized(StelaError):
    """401: no token, a bad one, or a revoked or rotated one (or a ticket made with it)."""


class Forbidden(StelaError):
    """403: authenticated but not allowed (`not_seated`, `game_running`, `deal_sealed`, `forbidden`)."""


class NotFound(StelaError):
    """404: the game, player, kind, version or seat does not exist."""


class Conflict(StelaError):
    """409 outside the rules: `conflict` (seat taken, already started), `too_much_contention`."""


class VersionConflict(Conflict):
    """409 `version_conflict` (or 412): the game moved on since `expected_version`; re-read and decide again.

    Never retried by the client: deciding again is the caller's job. `current_version` is the game's version.
    """

    @property
    def current_version(self) -> int | None:
        value = self.problem.get("current_version")
        return value if isinstance(value, int) else None


class RuleViolation(Conflict):
    """409 with the game's own code (`<kind>.<rule>`, e.g. `tikal.no_path`): the rules refuse the command."""


class RateLimited(StelaError):
    """429: the budget is spent (`retry_after` says for how long); raised only once retries are used up."""


class Unavailable(StelaError):
    """503: the database or a dependency is down, or the server is shutting down; retried first."""


class ServerError(StelaError):
    """Any other 5xx: a bug on the server (logged there); the problem leaks nothing."""


class TransportError(Exception):
    """The request never got an answer: connection refused or reset, a timeout, a truncated body."""


CODES: dict[str, type[StelaError]] = {
    "unauthorized": Unauthorized,
    "forbidden": Forbidden, "not_seated": Forbidden, "game_running": Forbidden, "deal_sealed": Forbidden,
    "version_conflict": VersionConflict, "precondition_failed": VersionConflict,
    "conflict": Conflict, "too_much_contention": Conflict,
    "rate_limited": RateLimited,
    "unavailable": Unavailable, "database_unavailable": Unavailable, "read_models_unavailable": Unavailable,
    "shutting_down": Unavailable,
}
STATUSES: dict[int, type[StelaError]] = {
    400: InvalidRequest, 413: InvalidRequest, 415: InvalidRequest, 422: InvalidRequest, 431: InvalidRequest,
    401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict, 412: VersionConflict, 429: RateLimited,
    503: Unavailable,
}


def _code(problem: Mapping[str, Any]) -> str:
    """The problem's `code`, or the `error` of an OAuth endpoint's RFC 6749 5.2 answer (`invalid_grant`...)."""
    return str(problem.get("code") or problem.get("error") or "")


def error_for(status: int, problem: Mapping[str, Any], retry_after: float | None = None) -> StelaError:
    """The exception for a problem answer: by `code`, then a dotted code as a rule, then by status."""
    code = _code(problem)
    cls = CODES.get(code)
    if cls is None and status == 409 and "." in code:
        cls = RuleViolation
    if cls is None:
        cls = STATUSES.get(status) or (ServerError if status >= 500 else StelaError)
    return cls(status, problem, retry_after)
