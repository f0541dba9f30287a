"""Request and response bodies of the public API (msgspec structs, snake_case)."""

from __future__ import annotations

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


async def strictly(request: Request, type_: type[T]) -> T:
    """The JSON body decoded strictly as `type_` (Litestar converts leniently: `0` would pass for `false`)."""
    try:
        return msgspec.convert(integral(msgspec.json.decode(await request.body())), type_, strict=True)
    except msgspec.ValidationError as exc:
        raise InvalidRequest(f"Validation failed: {exc}") from exc
    except msgspec.DecodeError as exc:
        raise InvalidRequest(f"Malformed JSON: {exc}") from exc


class NoFields(msgspec.Struct, forbid_unknown_fields=True):
    """The body of an endpoint that takes none: nothing, or `{}`."""


async def no_body(request: Request) -> None:
    """Refuse a body with fields where the endpoint takes none (400 naming the field, as in every body)."""
    if (await request.body()).strip():
        await strictly(request, NoFields)


class CommandEnvelope(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """`CommandRequest` with the command left as raw JSON, for the kind's own decoder."""

    command: msgspec.Raw
    expected_version: int | None = None


_envelope = msgspec.json.Decoder(CommandEnvelope)


def plain_envelope(body: bytes) -> CommandEnvelope | None:
    """`body` as the command route takes it at once (its command an object), else None: the body's DTO
    (`CommandBody`) then says what is wrong, or takes it by the strict rule."""
    try:
        envelope = _envelope.decode(body)
    except (msgspec.DecodeError, RecursionError):  # (a ValidationError is a DecodeError; nesting too deep)
        return None
    return envelope if bytes(memoryview(envelope.command)[:1]) == b"{" else None


class CommandBody(AbstractDTO[CommandEnvelope]):
    """The command route's body, decoded once: from the request's raw bytes by a prebuilt decoder into
    the envelope, the command left raw for its kind's decoder (`CommandPipeline.command`).

    Litestar hands a route's DTO the raw body (a plain `data` parameter would be decoded to builtins
    and converted, then decoded again here), and asks it for the body's OpenAPI schema: that is
    `CommandRequest`'s, made by the framework's schema creator as for a plain body, so the document
    does not change. A refused body is looked at again only to say what is wrong, in the words the
    framework's own validation uses (`ValidationException`), or the strict decoder's.
    """

    @classmethod
    def create_for_field_definition(cls, field_definition: FieldDefinition, handler_id: str,
                                    backend_cls: Any = None) -> None:
        """Nothing to build: no transfer model, the envelope is decoded as it is."""

    @classmethod
    def create_openapi_schema(cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any) -> Any:
        return schema_creator.for_field_definition(FieldDefinition.from_kwarg(
            annotation=CommandRequest, name=field_definition.name, kwarg_definition=field_definition.kwarg_definition))

    @classmethod
    def generate_field_definitions(cls, model_type: type[Any]) -> Any:
        return iter(())

    @classmethod
    def detect_nested_field(cls, field_definition: FieldDefinition) -> bool:
        return False

    def decode_bytes(self, value: bytes) -> CommandEnvelope:
        envelope = plain_envelope(value)
        if envelope is not None:
            return envelope
        try:
            _envelope.decode(value)
        except msgspec.ValidationError:  # (a DecodeError too: first)
            return self._refused(value)
        except msgspec.DecodeError as exc:
            raise InvalidRequest(str(exc)) from exc
        return self._refused(value)  # the command is not an object: say so

    def _refused(self, value: bytes) -> CommandEnvelope:
        """The envelope of a body the decoder refused, if the strict rule takes it (an integral float such as
        `3.0` for an integer); else the refusal, as the framework words a malformed body, or the strict rule."""
        try:  # (a typed decoder may refuse `4` before it sees that the rest is not JSON at all)
            body = msgspec.json.decode(value)
        except msgspec.DecodeError as exc:
            raise InvalidRequest(str(exc)) from exc
        try:
            msgspec.convert(body, CommandRequest, strict=False)
        except msgspec.ValidationError as exc:
            message, _, path = str(exc).partition(" - at `$.")
            url = self.asgi_connection.url
            raise ValidationException(
                detail=f"Validation failed for {self.asgi_connection.method} {url.path}{'?' if url.query else ''}"
                       f"{url.query}",
                extra=[{"message": message, "key": path.rstrip("`") or "data", "source": "body"}]) from exc
        try:
            strict = msgspec.convert(integral(body), CommandRequest, strict=True)
        except msgspec.ValidationError as exc:
            raise InvalidRequest(f"Validation failed: {exc}") from exc
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


class EventPage(msgspec.Struct, kw_only=True):
    version: int
    events: list[WireEvent]


class Health(msgspec.Struct, kw_only=True):
    status: Literal["ok", "degraded", "unavailable"]
    checks: dict[str, str] = {}
    details: dict[str, Any] = {}
