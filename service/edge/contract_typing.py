"""What makes the document right for generators run with their default settings (see `contract.enrich`).

- **Fields with defaults are optional.** openapi-typescript (by default) and others read a property
  with a `default` as always present, so the README's create-game body and a `tikal.PlaceTile`
  without `rotation` would not type-check. Every schema a request body reaches (bodies, commands,
  options, time controls), and every stream frame (whose omitted fields are absent, not null), keeps
  its defaults in the description instead (`Default: ...`) and lists them as not required.
- **`kind` is an enum** (`Kind`: the catalogue's kinds) wherever a schema names a kind.
- **Game options are typed per kind**: `GameCreate` and `TournamentCreate` are unions discriminated by
  `kind` (`GameCreate.tikal`: `{kind: "tikal", options?: tikal.TikalOptions, ...}`).
- **Every stream has the real schema of its frames** (docs/streams.md): the game stream a snapshot
  (`GameOut`, or `SnapshotMessage` with `frames=message`) or an `Event`; the personal stream a
  `PersonalNotice`; the tournament stream its `TournamentView` or a `TournamentEvent`; the
  multiplexed stream a `StreamFrame`, discriminated by `type`.
- **Every response under /v1 names the RateLimit fields** (and a 429 `Retry-After`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from domain.kernel import Game
from service.live.multiplex_frames import EndFrame, EventFrame, PersonalFrame, ReadyFrame, SnapshotFrame, TurnFrame
from service.live.personal_frames import Notice
from service.live.sse import SnapshotMessage

REF = "#/components/schemas/"
STREAMS = {  # operation id -> the schema of the `data` of each of its frames
    "streamGame": {"oneOf": [{"$ref": REF + "GameOut"}, {"$ref": REF + "SnapshotMessage"}, {"$ref": REF + "Event"}],
                   "description": "the `data` of each frame: the snapshot (`GameOut`; `SnapshotMessage` with "
                                  "`frames=message`), then one `Event` per frame"},
    "streamMyGames": {"$ref": REF + "PersonalNotice", "description": "the `data` of each frame"},
    "streamTournament": {"oneOf": [{"$ref": REF + "TournamentView"}, {"$ref": REF + "TournamentEvent"}],
                         "description": "the `data` of each frame: the snapshot (`TournamentView`), then one "
                                        "event per frame"},
    "streamMany": {"$ref": REF + "StreamFrame", "description": "the `data` of each frame (docs/streams.md)"},
}
# one schema per `type` (a generator may not map several tags to one schema): the personal notices each get one
_NOTICES = {"game.state": "GameStateFrame", "game.started": "GameStartedFrame", "game.your_turn": "GameYourTurnFrame",
            "game.ended": "GameEndedFrame"}
_FRAMES = {"snapshot": "SnapshotFrame", "event": "EventFrame", "turn": "TurnFrame", "ready": "ReadyFrame",
           "end": "EndFrame", **_NOTICES}
_KIND_FIELDS = ("kind",)


def refs_in(schema: Any) -> set[str]:
    """The component names `schema` refers to directly."""
    return set(re.findall(r'"\$ref": ?"' + re.escape(REF) + r'([^"]+)"', json.dumps(schema)))


def reachable(schemas: dict[str, Any], roots: set[str]) -> set[str]:
    """`roots` and every component they reach."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        todo.extend(refs_in(schemas[name]))
    return seen


def defaults_described(schema: dict[str, Any]) -> None:
    """Move each property's `default` into its description (and out of `required`): see the docstring."""
    required = schema.get("required")
    for name, prop in schema.get("properties", {}).items():
        if not isinstance(prop, dict) or "default" not in prop:
            continue
        value = prop.pop("default")
        note = f"Default: `{json.dumps(value)}`."
        text = prop.get("description", "").rstrip()
        prop["description"] = f"{text}{'' if not text or text[-1] in '.)' else '.'} {note}".lstrip()
        if isinstance(required, list) and name in required:
            required.remove(name)


def kind_enum(schemas: dict[str, Any], games: Mapping[str, Game]) -> None:
    """The `Kind` enum, referred to by every `kind` property of the API's own schemas that is a plain
    string. A game's own components (named `<kind>.<Struct>`) are left alone: their `kind` fields are
    the game's own (a tile's kind in Gold Mine and Tikal), not a game kind."""
    schemas["Kind"] = {"type": "string", "enum": sorted(games), "description": "a game kind (see listKinds)"}
    for name, schema in schemas.items():
        if name.split(".", 1)[0] in games:
            continue
        for field in _KIND_FIELDS:
            prop = schema.get("properties", {}).get(field) if isinstance(schema, dict) else None
            if isinstance(prop, dict) and prop.get("type") == "string" and "enum" not in prop:
                kept = {k: prop[k] for k in ("description",) if k in prop}
                schema["properties"][field] = {"$ref": REF + "Kind", **kept}


def options_components(games: Mapping[str, Game]) -> dict[str, str]:
    """Kind -> the component name of its options (added by `option_schemas`)."""
    return {kind: f"{kind}.{game.options_type.__name__}" for kind, game in games.items()}


def option_schemas(games: Mapping[str, Game]) -> dict[str, Any]:
    """Each kind's options as a closed component named `<kind>.<Struct>`."""
    out: dict[str, Any] = {}
    names = options_components(games)
    for kind, game in sorted(games.items()):
        (ref,), components = msgspec.json.schema_components([game.options_type], ref_template=REF + "{name}")
        inner = ref["$ref"][len(REF):]
        text = json.dumps(components)
        for old in components:
            text = text.replace(f'"{REF}{old}"', f'"{REF}{kind}.{old}"')
        for old, schema in json.loads(text).items():
            out[names[kind] if old == inner else f"{kind}.{old}"] = schema
    return out


def by_kind(schemas: dict[str, Any], component: str, options: dict[str, str]) -> None:
    """`component` (a request body with `kind` and `options`) as a union of one variant per kind."""
    base = schemas.get(component)
    if base is None or "properties" not in base:
        return
    mapping = {}
    for kind, option_ref in sorted(options.items()):
        variant = copy.deepcopy(base)
        variant["title"] = f"{component}.{kind}"
        variant["properties"]["kind"] = {"type": "string", "enum": [kind]}
        described = base["properties"].get("options", {}).get("description")
        variant["properties"]["options"] = {"$ref": REF + option_ref,
                                            **({"description": described} if described else {})}
        schemas[f"{component}.{kind}"] = variant
        mapping[kind] = REF + f"{component}.{kind}"
    schemas[component] = {"title": component, "description": "one variant per kind, discriminated by `kind`",
                          "oneOf": [{"$ref": ref} for ref in mapping.values()],
                          "discriminator": {"propertyName": "kind", "mapping": mapping}}


def frame_schemas() -> dict[str, Any]:
    """The frames of the personal and multiplexed streams and the game stream's `message` snapshot."""
    types = [SnapshotFrame, EventFrame, TurnFrame, ReadyFrame, EndFrame, PersonalFrame, Notice, SnapshotMessage]
    _, components = msgspec.json.schema_components(types, ref_template=REF + "{name}")
    frames = {name: components[name] for name in ("SnapshotFrame", "EventFrame", "TurnFrame", "ReadyFrame",
                                                  "EndFrame", "PersonalFrame", "SnapshotMessage")}
    frames["PersonalNotice"] = {**components["Notice"], "title": "PersonalNotice"}
    command_list = {"type": "array", "items": {"$ref": REF + "Command"}}
    for name in ("TurnFrame", "PersonalFrame", "PersonalNotice"):
        frames[name]["properties"]["commands"] = {**command_list, "description": "the seat's legal commands at "
                                                  "`version` (with `legal=true`, when it is the seat's turn)"}
    frames["TurnFrame"]["properties"]["view"] = {"oneOf": [{"$ref": REF + "View"}, {"type": "null"}],
                                                 "description": "the viewer's view at `version` (with `legal=true`)"}
    for schema in frames.values():
        defaults_described(schema)
    text = json.dumps(frames).replace(f'"{REF}WireEvent"', f'"{REF}Event"')
    frames = json.loads(text)
    personal = frames["PersonalFrame"]
    for tag, name in _NOTICES.items():
        frames[name] = {**copy.deepcopy(personal), "title": name,
                        "properties": {**copy.deepcopy(personal["properties"]), "type": {"enum": [tag]}}}
    frames["PersonalFrame"] = _union("PersonalFrame", "a personal notice on the multiplexed stream", _NOTICES)
    frames["StreamFrame"] = _union("StreamFrame", "the `data` of a frame of the multiplexed stream (docs/streams.md)",
                                   _FRAMES)
    return frames


def _union(title: str, description: str, mapping: dict[str, str]) -> dict[str, Any]:
    return {"title": title, "description": description, "oneOf": [{"$ref": REF + n} for n in mapping.values()],
            "discriminator": {"propertyName": "type", "mapping": {t: REF + n for t, n in mapping.items()}}}


RATE_HEADERS = {
    "RateLimit-Policy": {"description": "the budget this request draws from (IETF draft-ietf-httpapi-ratelimit-headers): "
                                        "`\"api\";q=600;w=60`, `\"streams\";q=...` for stream openings, or `\"credentials\";q=...` "
                                        "when the address's budget of refused tokens refuses a token; absent when "
                                        "rate limiting is off", "schema": {"type": "string"}},
    "RateLimit": {"description": "what is left of that budget in this window and the seconds until it ends: "
                                 "`\"api\";r=597;t=42`", "schema": {"type": "string"}},
}


def rate_limit_headers(doc: dict[str, Any]) -> None:
    """Every response of a rate-limited path (all of /v1) names the RateLimit fields; a 429 also Retry-After."""
    headers = doc["components"].setdefault("headers", {})
    headers.update(copy.deepcopy(RATE_HEADERS))
    headers["Retry-After"] = {"description": "seconds until the window ends (at the open-stream cap: a few seconds)",
                              "schema": {"type": "integer", "minimum": 1}}
    for path, operations in doc.get("paths", {}).items():
        if not path.startswith("/v1/"):
            continue
        for operation in operations.values():
            for status, response in (operation.get("responses", {}) if isinstance(operation, dict) else {}).items():
                named = response.setdefault("headers", {})
                for name in (*RATE_HEADERS, *(("Retry-After",) if status == "429" else ())):
                    named.setdefault(name, {"$ref": f"#/components/headers/{name}"})


def type_document(doc: dict[str, Any], games: Mapping[str, Game]) -> None:
    """Apply everything in the module docstring to `doc` (an OpenAPI dict, changed in place)."""
    schemas = doc["components"]["schemas"]
    schemas.update(frame_schemas())
    for name, schema in option_schemas(games).items():
        if schema.get("type") == "object":
            schema["additionalProperties"] = False  # the options structs refuse unknown fields
        schemas[name] = schema
    bodies = {ref for path in doc.get("paths", {}).values() for op in path.values() if isinstance(op, dict)
              for ref in refs_in(op.get("requestBody", {}))}
    for name in reachable(schemas, bodies | {"Command"} | set(option_schemas(games))):
        defaults_described(schemas[name])
    tournament_clock = schemas.get("TournamentCreate", {}).get("properties", {}).get("time_control")
    if tournament_clock is not None:  # decoded as a game's time control (an empty object: no clock)
        tournament_clock.clear()
        tournament_clock.update({"description": "a game `time_control`, put on every game ({}: none)",
                                 "anyOf": [{"$ref": REF + "TimeControl"}, {"type": "object", "maxProperties": 0}]})
    for component in ("GameCreate", "TournamentCreate"):
        by_kind(schemas, component, options_components(games))
    kind_enum(schemas, games)
    rate_limit_headers(doc)
    for path in doc.get("paths", {}).values():
        for operation in path.values():
            frames = STREAMS.get(operation.get("operationId", "")) if isinstance(operation, dict) else None
            content = operation.get("responses", {}).get("200", {}).get("content", {}) if frames else {}
            if "text/event-stream" in content:
                content["text/event-stream"]["schema"] = copy.deepcopy(frames)
