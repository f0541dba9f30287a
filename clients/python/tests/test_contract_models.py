"""The generated answers and request bodies (`stela_client.contract`): the file is what `generate.py` writes
from the OpenAPI document, every write that sends one of its bodies takes exactly the body's members as
parameters (a required one without a default), and real answers of a live server decode into them.

A contract change the SDK has not followed fails here: a renamed or added field changes the generated file
(the drift test), and a new member of a request body is a parameter some method lacks."""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from stela_client import OPERATIONS, Api, Client, contract, kinds

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


# ------------------------------------------------------------------------------------------ request bodies


def bodies(doc: dict[str, Any]) -> dict[str, tuple[str, set[str]]]:
    """operationId -> (its JSON request body's schema, its path parameters), for the bodies `contract.py` has."""
    out = {}
    for item in doc["paths"].values():
        for operation in item.values():
            schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            name = generate.ref_name(schema["$ref"]) if schema else None
            if name and hasattr(contract, name.replace(".", "")):
                params = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
                out[operation["operationId"]] = (name, params)
    return out


def members(schemas: dict[str, Any], name: str) -> tuple[set[str], set[str]]:
    """A body schema's members and required members (a union's: all its variants', those every one requires)."""
    variants = [schemas[generate.ref_name(s["$ref"])] for s in schemas[name].get("oneOf", [])] or [schemas[name]]
    every = set().union(*(set(v["properties"]) for v in variants))
    required = set.intersection(*(set(v.get("required", [])) for v in variants))
    return every, required


def mismatches(doc: dict[str, Any]) -> list[str]:
    """How the body-sending methods differ from their bodies in `doc` (none when they follow it)."""
    found = []
    for operation, (name, path_params) in bodies(doc).items():
        every, required = members(doc["components"]["schemas"], name)
        for method in OPERATIONS[operation]:
            params = dict(inspect.signature(getattr(Api, method).build).parameters)
            params.pop("self")
            taken = set(params) - path_params
            if taken != every:
                found.append(f"{method} takes {sorted(taken - every)} beyond {name} and lacks {sorted(every - taken)}")
            found += [f"{method}: {p} is required by {name} but has a default" for p in sorted(required & taken)
                      if params[p].default is not inspect.Parameter.empty]
    return found


def test_every_write_takes_exactly_its_bodys_members_a_required_one_without_default():
    assert len(bodies(DOC)) >= 15  # the tournament, arena, lease and cosignature writes
    assert not mismatches(DOC)


def test_a_new_member_of_a_body_is_a_parameter_the_method_lacks():
    doc = copy.deepcopy(DOC)
    _require_a_new_arena_member(doc["components"]["schemas"])
    assert mismatches(doc) == ["create_arena takes [] beyond ArenaCreate and lacks ['prize']"]


def test_a_body_missing_a_required_member_is_refused_before_it_is_sent():
    with pytest.raises(msgspec.ValidationError, match="missing required field `ranks`"):
        Api.adjudicate.build(Client("http://127.0.0.1:9"), "t", "g", None)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ live answers


async def test_typed_answers_decode_from_a_live_server(server):
    async with Client(server.url) as org, Client(server.url) as ann:
        await org.register("Org")
        await ann.register("Ann")
        assert {k.kind for k in await org.kinds()} >= {"coatl", "tikal"}
        assert (await org.kind("coatl")).min_players == 2
        created = await org.create_tournament("coatl", name="typed", seats=2, rounds=1, options=kinds.CoatlOptions(),
                                              entry=contract.Entry(min_rated_games=0), tiebreaks=["buchholz"])
        assert isinstance(created, contract.TournamentView) and created.status == "registration"
        joined = await ann.register_for(created.tournament_id, name="Ann A.", rating=1600)
        assert isinstance(joined, contract.EntrantView)
        assert (joined.name, joined.rating, joined.registered, joined.players) == ("Ann A.", 1600, True, 1)
        events = (await org.tournament_events(created.tournament_id)).events
        assert [type(e) for e in events] == [contract.EventTournamentTournamentCreated,
                                             contract.EventTournamentPlayerRegistered]
        assert events[1].type == "tournament.PlayerRegistered"
        assert events[1].data.player_id == joined.player_id and joined.version == 2
        left = await org.withdraw_from(created.tournament_id, player_id=joined.player_id)
        assert (left.player_id, left.name, left.registered, left.players, left.version) == (
            joined.player_id, "Ann A.", False, 0, 3)
        deadline = asyncio.get_running_loop().time() + 60
        while created.tournament_id not in {t.tournament_id for t in (await org.tournaments(kind="coatl")).items}:
            assert asyncio.get_running_loop().time() < deadline, "the tournament never reached the list (a read model)"
            await asyncio.sleep(0.1)
        arena = await org.create_arena("tikal", minutes=5, starts_in_seconds=600, berserk=False)
        assert isinstance(arena, contract.ArenaView)
        joined_arena = await ann.join_arena(arena.arena_id, rating=1700)
        assert isinstance(joined_arena, contract.ArenaEntrantView)
        assert (joined_arena.rating, joined_arena.presence, joined_arena.players) == (1700, "active", 1)
        assert isinstance((await org.arena_events(arena.arena_id)).events[-1], contract.EventArenaPlayerJoined)
        board = await org.leaderboard("coatl")
        assert board.kind == "coatl" and isinstance(board.items, list)
        stats = await org.stats()
        assert isinstance(stats, contract.PlatformStats)
        leaves = await org.log_leaves(limit=5)
        assert isinstance(leaves, contract.LeafPage) and leaves.size >= 0
        assert isinstance((await org.log_info()).size, int)
