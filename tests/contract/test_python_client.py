"""A second generator, for another language: datamodel-code-generator (pinned in pyproject's test extra), with
its default settings, turns openapi/openapi.json into pydantic models. The README's request bodies, a command
without its defaulted fields and the frames of the multiplexed stream must validate with them, and what the
server refuses (an unknown kind, options of the wrong type or of another kind) must not."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic  # datamodel-code-generator's models are pydantic's (both come with the test extra)
import pytest

from tests.contract.readme_bodies import readme_bodies

DOCUMENT = Path(__file__).parents[2] / "openapi" / "openapi.json"
REF = "#/components/schemas/"


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Any]:
    """Component name (without its dotted owner) -> the generated model class."""
    work = tmp_path_factory.mktemp("python-client")
    done = subprocess.run([str(Path(sys.executable).parent / "datamodel-codegen"), "--input", str(DOCUMENT),
                           "--input-file-type", "openapi", "--output", str(work / "stela_models"),
                           "--output-model-type", "pydantic_v2.BaseModel", "--formatters", "builtin"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    sys.path.insert(0, str(work))
    try:
        found: dict[str, Any] = {}
        for path in sorted((work / "stela_models").rglob("*.py")):
            name = ".".join(path.relative_to(work).with_suffix("").parts).removesuffix(".__init__")
            module: ModuleType = importlib.import_module(name)
            for attr, value in vars(module).items():
                if isinstance(value, type) and issubclass(value, pydantic.BaseModel):
                    found.setdefault(attr, value)
        yield found
    finally:
        sys.path.remove(str(work))
        for name in [m for m in sys.modules if m == "stela_models" or m.startswith("stela_models.")]:
            del sys.modules[name]


def body_component(document: dict, method: str, path: str) -> str:
    schema = document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    return schema["$ref"].removeprefix(REF)


def test_the_readmes_request_bodies_validate(models):
    document = json.loads(DOCUMENT.read_text())
    checked = []
    for method, path, body in readme_bodies(document):
        component = body_component(document, method, path)
        model = models[component].model_validate(body)
        assert model.model_dump(mode="json", exclude_unset=True, by_alias=True) == body or \
            model.root.model_dump(mode="json", exclude_unset=True, by_alias=True) == body
        checked.append(component)
    assert "GameCreate" in checked


def test_a_command_without_its_defaulted_fields_validates_and_typed_options_refuse_bad_ones(models):
    place = models["Command"].model_validate({"type": "tikal.PlaceTile", "q": 0, "r": 1}).root
    assert place.q == 0 and place.rotation is None  # the server fills the default in
    game = models["GameCreate"].model_validate({"kind": "tikal", "seats": 3, "options": {"variant": "auction"}})
    assert game.root.kind == "tikal" and type(game.root).__name__ != type(
        models["GameCreate"].model_validate({"kind": "coatl", "seats": 2}).root).__name__
    for refused in ({"kind": "chess", "seats": 2}, {"kind": "coatl", "seats": 2, "options": {"variant": "auction"}},
                    {"kind": "coatl", "seats": 2, "options": {"sacrifice_tokens": "maybe"}},
                    {"type": "tikal.PlaceTile", "q": "one", "r": 0}):
        model = models["Command"] if "type" in refused else models["GameCreate"]
        with pytest.raises(pydantic.ValidationError):
            model.model_validate(refused)


def test_frames_of_the_multiplexed_stream_validate_as_stream_frames(models):
    frames = [
        {"type": "event", "game_id": "g", "event": {"version": 3, "type": "table.SeatResigned", "data": {"seat": 1},
                                                    "at": "2026-11-27T04:00:00+00:00"}},
        {"type": "turn", "game_id": "g", "version": 3, "status": "active", "to_act": [0], "your_seat": 0,
         "your_turn": True, "commands": [{"type": "tikal.EndTurn"}]},
        {"type": "ready", "games": {"g": 3}, "personal": None},
        {"type": "end", "reason": "revoked"},
        {"type": "game.your_turn", "game_id": "g", "kind": "tikal", "status": "active", "version": 3,
         "to_act": [0], "your_turn": True},
    ]
    for frame in frames:
        assert models["StreamFrame"].model_validate(frame).root.type == frame["type"]
    with pytest.raises(pydantic.ValidationError):
        models["StreamFrame"].model_validate({"type": "end", "reason": "bored"})
