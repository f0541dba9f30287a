"""Request and response bodies of the public API (msgspec structs, snake_case)."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from litestar import Request
from litestar.dto import AbstractDTO
from litestar.exceptions import ValidationException
from litestar.typing import FieldDefinition
from msgspec import Meta

from domain.clock import TimeControl
from service.commands.accounts_bots import BotSpec
from service.commands.exceptions import InvalidRequest
from service.commands.pipeline import integral
from service.commands.views import GameOut, Status
from service.commands.visibility import WireEvent

T = TypeVar("T")


NO_NUL = r"^[^\x00]*$"  # PostgreSQL text cannot hold NUL: a path or query string that does is malformed (400)


def _refused(value: bytes, documented: type[T], connection: Any) -> T:
    """A body its type's decoder refused: taken if the strict rule takes it (an integral float such as `3.0`
    for an integer, JSON Schema's rule); else the refusal, worded as the framework words a body it cannot
    convert (`ValidationException`, naming the field), or as the strict rule does."""
    try:  # (a typed decoder may refuse `4` before it sees that the rest is not JSON at all)
        body = msgspec.json.decode(value)
    except msgspec.DecodeError as exc:
        raise InvalidRequest(f"Malformed JSON: {exc}") from exc
    try:
        msgspec.convert(body, documented, strict=False)
    except msgspec.ValidationError as exc:
        message, _, path = str(exc).partition(" - at `$.")
        url = connection.url
        raise ValidationException(
            detail=f"Validation failed for {connection.method} {url.path}{'?' if url.query else ''}{url.query}",
            extra=[{"message": message, "key": path.rstrip("`") or "data", "source": "body"}]) from exc
    try:
        return msgspec.convert(integral(body), documented, strict=True)
    except msgspec.ValidationError as exc:
        raise InvalidRequest(f"Validation failed: {exc}") from exc


@cache
def _decoder(type_: type[T]) -> msgspec.json.Decoder[T]:
    return msgspec.json.Decoder(type_)


def decode_strictly(value: bytes, type_: type[T], connection: Any) -> T:
    """The one way a JSON body becomes a struct: `type_`'s prebuilt decoder (strict, unknown fields
    refused), and only for a body it refuses a second look that says what is wrong (`_refused`)."""
    try:
        return _decoder(type_).decode(value)
    except msgspec.DecodeError:  # (a ValidationError is a DecodeError)
        return _refused(value, type_, connection)


async def strictly(request: Request, type_: type[T]) -> T:
    """The request's JSON body decoded strictly as `type_` (`decode_strictly`), for a route that reads its
    body itself rather than through `StrictBody`."""
    return decode_strictly(await request.body(), type_, request)


class NoFields(msgspec.Struct, forbid_unknown_fields=True):
    """The body of an endpoint that takes none: nothing, or `{}`."""


async def no_body(request: Request) -> None:
    """Refuse a body with fields where the endpoint takes none (400 naming the field, as in every body)."""
    if (await request.body()).strip():
        await strictly(request, NoFields)


class StrictBody(AbstractDTO[T]):
    """A route's JSON body, decoded once from the request's raw bytes by its type's prebuilt strict decoder
    (`decode_strictly`): `dto=StrictBody[PlayerCreate]` with `data: PlayerCreate`.

    Litestar hands a route's DTO the raw body (a plain `data` parameter would be decoded to builtins and
    converted leniently, so `0` passed for `false`, then had to be decoded again strictly), and asks it for
    the body's OpenAPI schema: the documented type's, made by the framework's schema creator as for a
    plain body, so the document does not change.
    """

    @classmethod
    def documented(cls) -> type[Any]:
        """The type the document shows and a refused body is checked against."""
        return cls.model_type

    @classmethod
    def create_for_field_definition(cls, field_definition: FieldDefinition, handler_id: str,
                                    backend_cls: Any = None) -> None:
        """Nothing to build: no transfer model, the body is decoded as it is."""

    @classmethod
    def create_openapi_schema(cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any) -> Any:
        return schema_creator.for_field_definition(FieldDefinition.from_kwarg(
            annotation=cls.documented(), name=field_definition.name, kwarg_definition=field_definition.kwarg_definition))

    @classmethod
    def generate_field_definitions(cls, model_type: type[Any]) -> Any:
        return iter(())

    @classmethod
    def detect_nested_field(cls, field_definition: FieldDefinition) -> bool:
        return False

    def decode_bytes(self, value: bytes) -> T:
        return decode_strictly(value, self.model_type, self.asgi_connection)


class CommandEnvelope(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """`CommandRequest` with the command left as raw JSON, for the kind's own decoder."""

    command: msgspec.Raw
    expected_version: int | None = None


class CommandBody(StrictBody[CommandEnvelope]):
    """The command route's body: the envelope, its command left raw for its kind's decoder
    (`CommandPipeline.command`), documented as `CommandRequest`."""

    @classmethod
    def documented(cls) -> type[Any]:
        return CommandRequest

    def decode_bytes(self, value: bytes) -> CommandEnvelope:
        try:
            envelope = _decoder(CommandEnvelope).decode(value)
        except msgspec.DecodeError:
            envelope = None
        if envelope is not None and bytes(memoryview(envelope.command)[:1]) == b"{":
            return envelope
        strict = _refused(value, CommandRequest, self.asgi_connection)  # (the command is not an object: says so)
        return CommandEnvelope(command=msgspec.Raw(msgspec.json.encode(strict.command)),
                               expected_version=strict.expected_version)


Name = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f]+$", description="display name",
                           examples=["Ada"])]


class PlayerCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Name


class PlayerCreated(msgspec.Struct, kw_only=True):
    id: str
    name: str
    token: Annotated[str, Meta(description="bearer token; shown once, stored hashed")]


class Me(msgspec.Struct, kw_only=True):
    id: str
    name: str


class PlayerOut(msgspec.Struct, kw_only=True):
    id: str
    name: str
    created_at: str


class KindOut(msgspec.Struct, kw_only=True):
    kind: str
    title: str
    min_players: int
    max_players: int
    options_schema: dict[str, Any]
    command_schema: Annotated[dict[str, Any], Meta(
        description="JSON schema of the kind's commands, the platform's table.* commands included")]
    event_schema: Annotated[dict[str, Any], Meta(
        description="JSON schema of the kind's events, the platform's table.* lifecycle events included")]
    view_schema: Annotated[dict[str, Any], Meta(
        description="JSON schema of the kind's view (the `view` of getGame): the common envelope "
                    "{kind, seat, phase, to_act, scores} and the kind's fields")]
    time_control_schema: Annotated[dict[str, Any], Meta(description="JSON schema of a game's `time_control`")]
    codes: Annotated[dict[str, str], Meta(description="every rule-violation code (the kind's and table.*) and its meaning")]


class GameCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    kind: Annotated[str, Meta(min_length=1, max_length=32, examples=["tikal"])]
    seats: Annotated[int, Meta(ge=1, le=16, description="number of seats", examples=[3])]
    options: Annotated[dict[str, Any], Meta(description="the kind's options (see its options_schema)",
                                            examples=[{"variant": "auction", "edition": "classic"}])] = {}
    join: Annotated[bool, Meta(description="seat the creator at the first free seat")] = True
    time_control: Annotated[TimeControl | None, Meta(
        description="put every seat on a clock: a deadline per command, or a total per seat with an increment; "
                    "a seat past its deadline is timed out by the platform (the kind's timeout rule plays for it)",
        examples=[{"per_move_seconds": 60}, {"total_seconds": 600, "increment_seconds": 5}])] = None
    bots: Annotated[list[BotSpec], Meta(max_length=15, description=(
        "fill seats with bots, one per entry, after the creator: `strategy` random or greedy (the kind's "
        "heuristic), `strength` 1 to 5 (how often the strategy's choice is played rather than a random legal "
        "one: n in 5). A bot worker plays them through the API like any client; the game starts once full."),
        examples=[[{"strategy": "greedy", "strength": 3}]])] = []


class JoinRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    seat: Annotated[int | None, Meta(description="the seat to take (0-based); default the first free one")] = None


class CommandRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    command: Annotated[dict[str, Any], Meta(description='a command of the game\'s kind: {"type": "<kind>.<Name>", ...}',
                                            examples=[{"type": "tikal.EndTurn"}])]
    expected_version: Annotated[int | None, Meta(description="the version the client decided on; a "
                                                         "different current version is a 409")] = None


class CommandResult(msgspec.Struct, kw_only=True):
    version: int
    events: list[WireEvent]
    status: Status
    to_act: Annotated[list[int], Meta(description="the seats that must act now")]
    dry_run: bool = False
    view: Annotated[Any, Meta(description="with include=view: the caller's view after the command")] = None
    legal: Annotated[list[Any] | None, Meta(
        description="with include=legal: the caller's legal commands after the command")] = None


class LegalOut(msgspec.Struct, kw_only=True):
    seat: int | None
    version: int
    commands: list[dict[str, Any]]


class Health(msgspec.Struct, kw_only=True):
    status: Literal["ok", "degraded", "unavailable"]
    checks: dict[str, str] = {}
    details: dict[str, Any] = {}
