"""The typed contract: commands, events and views named in the OpenAPI document and referenced."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from service.edge.contract import REF, enrich, typed_components
from testkit.tally import TALLY, Add, Added, TallyView

DOCUMENT = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())


def resolve(schemas: dict, ref: str) -> dict:
    return schemas[ref.removeprefix(REF)]


def test_every_command_event_and_view_of_a_kind_is_a_named_schema_in_a_discriminated_union():
    schemas = typed_components({"tally": TALLY})
    command = schemas["Command"]["discriminator"]
    assert command["propertyName"] == "type"
    assert set(command["mapping"]) == {"tally.Add", "tally.Roll", "table.Resign"}
    event = schemas["Event"]["discriminator"]["mapping"]
    assert {"tally.Added", "tally.SecretsDealt", "table.GameCreated", "table.GameEnded", "table.ClockSet"} <= set(event)
    assert schemas["View"]["discriminator"] == {"propertyName": "kind",
                                                "mapping": {"tally": REF + "tally.TallyView"}}


def test_an_event_envelope_types_its_data_without_the_tag():
    schemas = typed_components({"tally": TALLY})
    envelope = resolve(schemas, schemas["Event"]["discriminator"]["mapping"]["tally.Added"])
    assert envelope["properties"]["type"]["const"] == "tally.Added"
    data = resolve(schemas, envelope["properties"]["data"]["$ref"])
    assert set(data["properties"]) == {"seat", "amount", "rolled"} and "type" not in data.get("required", [])
    wire = {"version": 3, "type": "tally.Added", "data": msgspec.to_builtins(Added(seat=0, amount=2)), "at": "x"}
    wire["data"].pop("type")
    assert set(wire["data"]) <= set(data["properties"])


def test_a_view_schema_validates_the_view_the_kind_serves():
    import jsonschema

    schemas = typed_components({"tally": TALLY})
    view = TallyView(seat=0, phase="play", to_act=[0], scores=[0, 0], total=0, target=15, turn=0, added=[0, 0])
    document = {"$ref": REF + "View", "components": {"schemas": schemas}}
    jsonschema.validate(msgspec.to_builtins(view), document)
    command = {"$ref": REF + "Command", "components": {"schemas": schemas}}
    jsonschema.validate(msgspec.to_builtins(Add(2)), command)


def test_the_routes_reference_the_typed_schemas_instead_of_open_json():
    doc = enrich(DOCUMENT, {"tally": TALLY})
    schemas = doc["components"]["schemas"]
    assert schemas["GameOut"]["properties"]["view"]["oneOf"][0] == {"$ref": REF + "View"}
    assert schemas["CommandRequest"]["properties"]["command"]["$ref"] == REF + "Command"
    assert schemas["LegalOut"]["properties"]["commands"]["items"] == {"$ref": REF + "Command"}
    assert schemas["EventPage"]["properties"]["events"]["items"] == {"$ref": REF + "Event"}
    assert "WireEvent" not in json.dumps(doc)
    stream = doc["paths"]["/v1/games/{game_id}/stream"]["get"]["responses"]["200"]["content"]["text/event-stream"]
    assert {"$ref": REF + "Event"} in stream["schema"]["oneOf"]


def test_the_item_bounds_the_framework_drops_are_written_back_for_fields_that_exist():
    import json as _json
    from pathlib import Path as _Path

    from service.edge.contract import DROPPED_ITEM_BOUNDS

    schemas = _json.loads((_Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())["components"]["schemas"]
    for (component, name), bounds in DROPPED_ITEM_BOUNDS.items():
        # the component itself, or each kind's variant of it (`TournamentCreate.coatl`), nullable fields too
        fields = [schema["properties"][name] for key, schema in schemas.items()
                  if (key == component or key.startswith(component + ".")) and name in schema.get("properties", {})]
        arrays = [branch for field in fields for branch in [field, *field.get("oneOf", []), *field.get("anyOf", [])]
                  if branch.get("type") == "array"]
        assert arrays, (component, name)
        for array in arrays:
            assert bounds.items() <= array["items"].items(), (component, name, array)


def test_every_operation_that_takes_a_body_documents_the_front_doors_refusals_of_it():
    """413 past the size limit on every body; 415 on a JSON body sent as anything else (service.edge.middleware
    answers them before a route reads the body: schemathesis met an undocumented 413 on authorizeApp)."""
    bodies = [(path, method, op) for path, ops in DOCUMENT["paths"].items() for method, op in ops.items()
              if isinstance(op, dict) and "requestBody" in op]
    assert len(bodies) > 20
    for path, method, op in bodies:
        assert "413" in op["responses"], (method, path)
        if "application/json" in op["requestBody"]["content"]:
            assert "415" in op["responses"], (method, path)
            example = op["responses"]["415"]["content"]["application/problem+json"]["examples"]
            assert [e["value"]["code"] for e in example.values()] == ["unsupported_media_type"]
