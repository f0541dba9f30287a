"""The SDK's models match the OpenAPI document, and the package typechecks under `mypy --strict`.

For every model, each field must be a property of the document's schema of the same name (`Game` is
`GameOut`), required there when the model has no default, and of a compatible JSON type; so a change
of the contract that the SDK does not follow fails here, not in a client's hands.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
import typing
from pathlib import Path

import msgspec
import pytest

from stela_client import models as m

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = Path(__file__).resolve().parents[1]
DOC = json.loads((ROOT / "openapi" / "openapi.json").read_text())
SCHEMAS = DOC["components"]["schemas"]
NAMES = {m.Game: "GameOut", m.Seat: "SeatOut", m.Outcome: "OutcomeOut", m.Legal: "LegalOut", m.Ticket: "TicketOut",
         m.Player: "PlayerCreated", m.Me: "Me", m.GameItem: "GameItem", m.GamePage: "GameList",
         m.PlayerGame: "PlayerGame", m.PlayerGamePage: "PlayerGamePage", m.EventPage: "EventPage",
         m.CommandResult: "CommandResult", m.Problem: "ProblemDetail", m.PlayerInfo: "PlayerOut",
         m.TokenInfo: "TokenOut", m.TokenCreated: "TokenCreated", m.Session: "SessionOut", m.Login: "LoginOut",
         m.App: "AppOut", m.AuthorizedApp: "AuthorizedApp", m.Consent: "Consent", m.Redirect: "Redirect",
         m.OAuthTokens: "TokenResponse", m.Health: "Health",
         # the stream frames (the `type` tag is each struct's tag, not a field)
         m.Snapshot: "SnapshotFrame", m.EventFrame: "EventFrame", m.Turn: "TurnFrame", m.Ready: "ReadyFrame",
         m.End: "EndFrame", m.GameState: "GameStateFrame", m.GameStarted: "GameStartedFrame",
         m.YourTurn: "GameYourTurnFrame", m.GameEnded: "GameEndedFrame"}
JSON_TYPES = {str: {"string"}, int: {"integer"}, bool: {"boolean"}, float: {"number", "integer"},
              list: {"array"}, dict: {"object"}, type(None): {"null"}}


def json_types(annotation: object) -> set[str]:
    """The JSON types a Python annotation of a model admits."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return set().union(*(json_types(a) for a in typing.get_args(annotation)))
    if origin is typing.Literal:
        return {"string"}
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return {"object"}
    return set(JSON_TYPES.get(origin or annotation, {"?"}))  # type: ignore[call-overload]


def schema_types(schema: dict) -> set[str]:
    if "$ref" in schema:
        target = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]
        return {"object"} if "type" not in target or target["type"] == "object" else schema_types(target)
    if "oneOf" in schema or "anyOf" in schema:
        return set().union(*(schema_types(s) for s in schema.get("oneOf", schema.get("anyOf", []))))
    kind = schema.get("type")
    if kind is None:
        return {"object"} if "discriminator" in schema else {"?"}
    return set(kind) if isinstance(kind, list) else {kind}


@pytest.mark.parametrize("model", list(NAMES), ids=lambda model: model.__name__)
def test_every_model_field_is_in_the_document_with_its_type_and_requiredness(model):
    schema = SCHEMAS[NAMES[model]]
    hints = typing.get_type_hints(model)
    for field in msgspec.structs.fields(model):
        assert field.encode_name in schema["properties"], f"{model.__name__}.{field.name} is not in {NAMES[model]}"
        if field.required:
            assert field.encode_name in schema.get("required", []), f"{model.__name__}.{field.name} may be absent"
        theirs = schema_types(schema["properties"][field.encode_name])
        assert "?" in theirs or theirs <= json_types(hints[field.name]), (model.__name__, field.name, theirs)


def test_every_required_member_of_the_document_is_in_the_model():
    for model, name in NAMES.items():
        ours = {f.encode_name for f in msgspec.structs.fields(model)}
        missing = set(SCHEMAS[name].get("required", [])) - ours - ({"type"} if issubclass(model, m.Frame) else set())
        assert not missing, f"{model.__name__} lacks {missing} of {name}"


def test_the_package_typechecks_with_mypy_strict():
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "stela_client"],
                          cwd=PACKAGE, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_frame_tag_is_the_documents_discriminator_value():
    mapping = SCHEMAS["StreamFrame"]["discriminator"]["mapping"]
    for model, name in NAMES.items():
        if issubclass(model, m.Frame):
            assert mapping[model.__struct_config__.tag].endswith("/" + name), model.__name__
