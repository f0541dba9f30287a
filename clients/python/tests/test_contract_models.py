"""The generated answers and request bodies (`stela_client.contract`): the file is what `generate.py` writes
from the OpenAPI document; a renamed or added field changes it (the drift test fails)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PACKAGE))
import generate  # noqa: E402

DOC = json.loads(generate.DOCUMENT.read_text())


def drifted(document: Path = generate.DOCUMENT) -> bool:
    """Whether the checked-in `contract.py` differs from what the generator makes of `document`."""
    return (PACKAGE / "stela_client" / "contract.py").read_text() != generate.generated_contract(document)


def test_contract_py_is_generated_from_the_document_and_in_sync():
    assert not drifted(), ("stela_client/contract.py drifted from openapi/openapi.json: "
                           "run `make openapi` (or python clients/python/generate.py)")


def planted(tmp_path: Path, change: Any) -> Path:
    """A copy of the document with `change` applied to its schemas."""
    doc = copy.deepcopy(DOC)
    change(doc["components"]["schemas"])
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(doc))
    return path


def _rename_tournament_id(schemas: dict[str, Any]) -> None:
    view = schemas["TournamentView"]
    view["properties"]["competition_id"] = view["properties"].pop("tournament_id")
    view["required"] = ["competition_id" if r == "tournament_id" else r for r in view["required"]]


def _require_a_new_arena_member(schemas: dict[str, Any]) -> None:
    schemas["ArenaCreate"]["properties"]["prize"] = {"type": "string"}
    schemas["ArenaCreate"]["required"].append("prize")


@pytest.mark.parametrize("change", [_rename_tournament_id, _require_a_new_arena_member])
def test_a_contract_change_makes_the_drift_test_fail(tmp_path, change):
    assert drifted(planted(tmp_path, change))
