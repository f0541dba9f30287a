"""The typed contract: every kind's commands, events and view as named OpenAPI schemas.

The routes carry commands, events and views as open JSON (the kind decides their shape), so
the document the framework generates types them as `unknown`. `enrich` adds each kind's
msgspec types as components named by their wire tags (`tikal.PlaceTile`, `table.GameCreated`;
nested structs `tikal.Space`), the unions `Command` and `Event` discriminated by `type` and
`View` discriminated by `kind`, and points the schemas of getGame, getLegalCommands,
sendCommand, getEvents and the SSE streams at them, so a generated client types them; then
`service.edge.contract_typing` makes the document right for generators with default settings. The app
serves the enriched document through its render plugins (`Typed`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.openapi.plugins import JsonRenderPlugin

from domain.kernel import Game
from domain.table import Resign, TableEvent
from domain.tournament.competition import Event as CompetitionEvent
from service.edge.contract_typing import type_document
from service.edge.errors import ERRORS, TITLES, TYPE_BASE, UnsupportedMediaType
from service.edge.middleware import MAX_BODY_BYTES, NOT_JSON, too_large

REF = "#/components/schemas/"
# bounds of request-body fields that the framework leaves out of the document (it skips a bound of 0
# on an optional field), so a generator or fuzzer would send values the server refuses
DROPPED_BOUNDS = {("TournamentCreate", "bye_points"): {"minimum": 0, "multipleOf": 0.5},
                  ("ArenaCreate", "berserk_moves"): {"minimum": 0}}
# and the bounds of a list's items (`list[Annotated[int, Meta(...)]]`), which it leaves out too
DROPPED_ITEM_BOUNDS = {("AdjudicateRequest", "ranks"): {"minimum": 1, "maximum": 6},
                       ("ForbidRequest", "players"): {"maxLength": 64},
                       ("TournamentCreate", "points_per_place"): {"minimum": 0, "maximum": 1000},
                       ("PairingsRequest", "byes"): {"maxLength": 64},
                       ("PairingsRequest", "tables"): {"minItems": 1, "maxItems": 6,
                                                       "items": {"type": "string", "maxLength": 64}}}


def _named(types: list[Any], owner: str) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """msgspec's schemas for `types`, components renamed to wire tags or `<owner>.<Struct>`."""
    refs, components = msgspec.json.schema_components(types, ref_template=REF + "{name}")
    rename: dict[str, str] = {}
    for t in _structs(types):
        old = _component_name(t, components)
        tag = t.__struct_config__.tag
        rename[old] = tag if isinstance(tag, str) and "." in tag else f"{owner}.{t.__name__}"
    text = msgspec.json.encode([refs, components]).decode()
    for old, new in sorted(rename.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(f'"{REF}{old}"', f'"{REF}{new}"')
    refs, components = msgspec.json.decode(text)
    return refs, {rename.get(name, name): schema for name, schema in components.items()}


def _component_name(t: type, components: dict[str, Any]) -> str:
    qualified = f"{t.__module__}.{t.__qualname__}"
    return qualified if qualified in components else t.__name__


def _structs(types: list[Any]) -> list[type]:
    """Every msgspec Struct type reachable from `types`."""
    seen: dict[type, None] = {}

    def walk(info: Any) -> None:
        if isinstance(info, msgspec.inspect.StructType):
            if info.cls in seen:
                return
            seen[info.cls] = None
            for field in info.fields:
                walk(field.type)
        elif isinstance(info, msgspec.inspect.UnionType):
            for member in info.types:
                walk(member)
        elif isinstance(info, (msgspec.inspect.ListType, msgspec.inspect.VarTupleType, msgspec.inspect.SetType,
                               msgspec.inspect.FrozenSetType)):
            walk(info.item_type)
        elif isinstance(info, msgspec.inspect.TupleType):
            for item in info.item_types:
                walk(item)
        elif isinstance(info, msgspec.inspect.DictType):
            walk(info.value_type)

    for t in types:
        walk(msgspec.inspect.type_info(t))
    return list(seen)


def _union_members(union: Any) -> list[type]:
    info = msgspec.inspect.type_info(union)
    members = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
    return [m.cls for m in members if isinstance(m, msgspec.inspect.StructType)]


def _envelope(tag: str, data_ref: str) -> dict[str, Any]:
    return {"type": "object", "title": tag,
            "properties": {"version": {"type": "integer", "minimum": 1, "description": "the stream version"},
                           "type": {"type": "string", "const": tag, "enum": [tag]},
                           "data": {"$ref": data_ref},
                           "at": {"type": "string", "format": "date-time"}},
            "required": ["version", "type", "data", "at"]}


def _untagged(schema: dict[str, Any]) -> dict[str, Any]:
    """An event struct's schema as its `data` appears on the wire (without its `type` tag)."""
    out = copy.deepcopy(schema)
    out.get("properties", {}).pop("type", None)
    if "required" in out:
        out["required"] = [r for r in out["required"] if r != "type"]
    return out


def typed_components(games: Mapping[str, Game]) -> dict[str, dict[str, Any]]:
    """The named schemas of every kind's commands, events and views, and the unions over them."""
    schemas: dict[str, dict[str, Any]] = {}
    commands: dict[str, str] = {}
    events: dict[str, str] = {}
    views: dict[str, str] = {}
    platform = [Resign, TableEvent]
    groups = [("table", platform, [Resign], _union_members(TableEvent), None)]
    for kind, game in sorted(games.items()):
        groups.append((kind, [game.command_type, game.event_type, game.view_type],
                       _union_members(game.command_type), _union_members(game.event_type), game.view_type))
    for owner, types, command_types, event_types, view_type in groups:
        _, components = _named(types, owner)
        _events(event_types, components, schemas, events)
        for cls in command_types:
            commands[cls.__struct_config__.tag] = cls.__struct_config__.tag
        if view_type is not None:
            views[view_type.__struct_config__.tag] = f"{owner}.{view_type.__name__}"
        for name, schema in components.items():
            schemas.setdefault(name, schema)
    schemas["Command"] = _one_of("type", commands, "a command: {\"type\": \"<kind>.<Name>\", ...fields}")
    schemas["Event"] = _one_of("type", events, "an event as a reader receives it: {version, type, data, at}")
    schemas["View"] = _one_of("kind", views, "the caller's view of a game, one envelope for every kind")
    return schemas


def _events(event_types: list[type], components: dict[str, Any], schemas: dict[str, Any],
            events: dict[str, str]) -> None:
    """Each event struct as an envelope `Event.<tag>` with its `data` (`<tag>.data`); `events` maps tag -> name."""
    for cls in event_types:
        tag = cls.__struct_config__.tag
        components[f"{tag}.data"] = _untagged(components.pop(tag))
        events[tag] = f"Event.{tag}"
        schemas[f"Event.{tag}"] = _envelope(tag, f"{REF}{tag}.data")


def tournament_components() -> dict[str, dict[str, Any]]:
    """A competition's events as readers receive them (`TournamentEvent`, discriminated by `type`; secrets are
    null until the end): the one union of every format's events (`domain.tournament.competition.Event`), so the
    arena's `/events` answers to the same schema as a Swiss tournament's."""
    schemas: dict[str, dict[str, Any]] = {}
    events: dict[str, str] = {}
    _, components = _named([CompetitionEvent], "tournament")
    _events(_union_members(CompetitionEvent), components, schemas, events)
    for name, schema in components.items():
        schemas.setdefault(name, schema)
    schemas["TournamentEvent"] = _one_of("type", events, "a competition's event (any format, the arena's too) as "
                                                        "a reader receives it: {version, type, data, at, stream_id}, "
                                                        "and once it has ended its prev_hash and hash")
    return schemas


def _chained(schemas: dict[str, Any]) -> None:
    """Each envelope of `TournamentEvent` with the fields `TournamentEventOut` (the competition schemas) adds to a
    game's event: the stream and, once ended, the chain hashes."""
    out = schemas.get("TournamentEventOut", {})
    extra = {k: v for k, v in out.get("properties", {}).items() if k not in ("version", "type", "data", "at")}
    for ref in schemas["TournamentEvent"]["discriminator"]["mapping"].values():
        envelope = schemas[ref[len(REF):]]
        envelope["properties"].update(extra)
        envelope["required"] += [name for name in out.get("required", []) if name in extra]


def _one_of(field: str, mapping: dict[str, str], description: str) -> dict[str, Any]:
    refs = {tag: REF + name for tag, name in sorted(mapping.items())}
    return {"description": description, "oneOf": [{"$ref": ref} for ref in refs.values()],
            "discriminator": {"propertyName": field, "mapping": refs}}


def enrich(document: dict[str, Any], games: Mapping[str, Game]) -> dict[str, Any]:
    """`document` (an OpenAPI dict) with the typed contract added and referenced."""
    doc = copy.deepcopy(document)
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(typed_components(games))
    schemas.update(tournament_components())
    _chained(schemas)
    command, event, view = ({"$ref": REF + n} for n in ("Command", "Event", "View"))

    def prop(component: str, name: str, schema: dict[str, Any]) -> None:
        target = schemas.get(component, {}).get("properties", {})
        if name in target:
            description = target[name].get("description")
            target[name] = {**schema, **({"description": description} if description else {})}

    prop("GameOut", "view", {"oneOf": [view, {"type": "null"}]})
    prop("CommandRequest", "command", command)
    prop("LegalOut", "commands", {"type": "array", "items": command})
    prop("CommandResult", "events", {"type": "array", "items": event})
    prop("CommandResult", "view", {"oneOf": [view, {"type": "null"}]})
    prop("CommandResult", "legal", {"oneOf": [{"type": "array", "items": command}, {"type": "null"}]})
    prop("EventPage", "events", {"type": "array", "items": event})
    prop("TournamentEvents", "events", {"type": "array", "items": {"$ref": REF + "TournamentEvent"}})
    schemas.pop("WireEvent", None)
    text = msgspec.json.encode(doc).decode().replace(f'"{REF}WireEvent"', f'"{REF}Event"')
    doc = msgspec.json.decode(text)
    closed = doc["components"]["schemas"]
    for path in doc.get("paths", {}).values():
        for operation in path.values():
            body = operation.get("requestBody", {}) if isinstance(operation, dict) else {}
            ref = body.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
            if ref.startswith(REF):
                _close(closed, ref[len(REF):])
            if body:
                _refusals_of_a_body(operation)
    for (component, name), bounds in DROPPED_BOUNDS.items():
        field = closed.get(component, {}).get("properties", {}).get(name, {})
        for branch in [field, *field.get("oneOf", []), *field.get("anyOf", [])]:
            if branch.get("type") in ("number", "integer"):
                branch.update(bounds)
    for (component, name), bounds in DROPPED_ITEM_BOUNDS.items():
        field = closed.get(component, {}).get("properties", {}).get(name, {})
        for branch in [field, *field.get("oneOf", []), *field.get("anyOf", [])]:
            if branch.get("type") == "array" and "items" in branch:
                branch["items"].update(bounds)
    type_document(doc, games)
    return doc


def _refusals_of_a_body(operation: dict[str, Any]) -> None:
    """Document on an operation that takes a body the front door's refusals of any body
    (`service.edge.middleware`), met before the route reads it: 413 past the size limit, and for a JSON body
    415 when it is sent as anything else."""
    json_body = "application/json" in operation["requestBody"].get("content", {})
    refusals = [(RequestEntityTooLarge, too_large(MAX_BODY_BYTES, MAX_BODY_BYTES).detail if json_body
                 else "the form is over its limit")]
    if json_body:
        refusals.append((UnsupportedMediaType, NOT_JSON))
    for refused, detail in refusals:
        status, code = ERRORS[refused].status, ERRORS[refused].code
        title = TITLES[status]
        example = {"type": TYPE_BASE + code, "title": title, "status": status, "detail": detail, "code": code}
        operation.setdefault("responses", {}).setdefault(str(status), {
            "description": title,
            "content": {"application/problem+json": {"schema": {"$ref": REF + "ProblemDetail"},
                                                     "examples": {code: {"summary": code, "value": example}}}}})


def _close(schemas: dict[str, Any], name: str) -> None:
    """Mark the request body component `name` and every component it refers to as refusing unknown
    fields (400), as the structs they are decoded into do (`forbid_unknown_fields`)."""
    schema = schemas.get(name)
    if schema is None or schema.get("additionalProperties") is False or schema.get("type") != "object":
        return
    schema["additionalProperties"] = False
    text = msgspec.json.encode(schema.get("properties", {})).decode()
    for target in re.findall(r'"\$ref":"' + re.escape(REF) + r'([^"]+)"', text):
        _close(schemas, target)


class Typed:
    """For an OpenAPI render plugin (mixed in before it): it renders the document with the typed
    contract added (`enrich`), made once per document the framework hands it."""

    def __init__(self, games: Mapping[str, Game], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.games = games
        self.typed: tuple[dict[str, Any], dict[str, Any]] | None = None  # (the document given, enriched)

    def render(self, request: Any, openapi_schema: dict[str, Any]) -> bytes:
        if self.typed is None or self.typed[0] is not openapi_schema:
            self.typed = (openapi_schema, enrich(openapi_schema, self.games))
        return super().render(request, self.typed[1])  # type: ignore[misc]


class TypedJson(Typed, JsonRenderPlugin):
    """The document at /schema/openapi.json, typed."""
