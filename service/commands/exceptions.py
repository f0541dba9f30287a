"""What the service layer raises: plain exceptions, one class per condition a client can meet.

Nothing here knows HTTP. `service.edge.errors` holds the one table that gives each class its
status and stable `code`; `RuleViolation` (the domain's), `ConcurrencyError` and
`StoreUnavailable` and `StreamLocked` (the store's) pass through and are mapped there as well.
"""

from __future__ import annotations

import msgspec

from domain.kernel import RuleViolation
from projections.queries import BadCursor  # a list cursor this service did not issue
from service.store.protocol import ConcurrencyError, StoreUnavailable, StreamLocked

VersionConflict = ConcurrencyError  # the name the error table uses

__all__ = [
    "BadCursor", "BadLastEventId", "Conflict", "ConcurrencyError", "DealSealed", "Forbidden", "GameNotFound", "GameRunning",
    "IdempotencyKeyReused",
    "InvalidCommand", "InvalidOptions", "InvalidRequest", "KindNotFound", "NoPicture", "NotFound", "NotSeated",
    "PlayerNotFound", "ReadModelsUnavailable", "RuleViolation", "SeatNotFound", "ServiceError",
    "StoreUnavailable", "StreamLocked", "TooMuchContention", "Unauthorized", "Unavailable", "VersionConflict", "VersionNotFound",
    "unknown_field",
]


class ServiceError(Exception):
    """A condition a client caused or must handle; `detail` is safe to show."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class InvalidRequest(ServiceError):
    """The request is malformed (body, header or parameter)."""


def unknown_field(exc: BaseException) -> bool:
    """Whether `exc` (or the error it was raised from) refuses a field its struct does not have: an unknown
    field is a malformed request (400, naming the field) wherever in the body it is, a command or options
    included, so that a typo is never read as "the field was left out"."""
    cause = exc if isinstance(exc, msgspec.ValidationError) else exc.__cause__
    return isinstance(cause, msgspec.ValidationError) and str(cause).startswith("Object contains unknown field")


class BadLastEventId(InvalidRequest):
    """`Last-Event-ID` is not a version of the stream."""


class Unauthorized(ServiceError):
    """No valid bearer token where one is needed."""


class Forbidden(ServiceError):
    """The caller is known but may not do this."""


class NotSeated(Forbidden):
    """Only a seated player may send game commands."""


class GameRunning(Forbidden):
    """What was asked becomes public only after the game ends (or to an admin)."""


class DealSealed(Forbidden):
    """The game belongs to a duplicate deal still being played elsewhere: only its own seats may read it."""


class NotFound(ServiceError):
    """Nothing by that name."""


class GameNotFound(NotFound):
    pass


class PlayerNotFound(NotFound):
    pass


class KindNotFound(NotFound):
    pass


class VersionNotFound(NotFound):
    pass


class SeatNotFound(NotFound):
    pass


class NoPicture(NotFound):
    """The kind draws no board picture, or the game has not started."""


class Conflict(ServiceError):
    """The game changed under the caller."""


class TooMuchContention(Conflict):
    """Retries ran out while the game kept changing."""


class InvalidCommand(ServiceError):
    """The body is not a command of the game's kind."""


class IdempotencyKeyReused(ServiceError):
    """An Idempotency-Key sent again with a different request."""


class InvalidOptions(ServiceError):
    """Game options the rules refuse; `code` is the rules' own."""

    def __init__(self, violation: RuleViolation) -> None:
        super().__init__(violation.message)
        self.code = violation.code


class Unavailable(ServiceError):
    """A dependency is down or absent."""


class ReadModelsUnavailable(Unavailable):
    pass
