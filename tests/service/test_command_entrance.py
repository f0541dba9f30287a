"""One entrance for commands: the framework's route, its body decoded once from the raw bytes,
and no framework internals imported anywhere in the service."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import msgspec
from litestar import Request

from service.edge import schemas
from tests.support.api import started_game

ADD = {"command": {"type": "tally.Add", "amount": 1}}
SERVICE = Path(__file__).parents[2] / "service"


async def test_a_command_body_is_decoded_once_from_its_bytes(client, monkeypatch):
    game_id, players = await started_game(client, "tally", 2)
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    decoded: list[bytes] = []
    decoder = schemas._envelope

    class Counting:
        def decode(self, body: bytes) -> Any:
            decoded.append(bytes(body))
            return decoder.decode(body)

    async def no_builtins(self: Any) -> Any:
        raise AssertionError("the body was decoded to builtins")

    monkeypatch.setattr(schemas, "_envelope", Counting())
    monkeypatch.setattr(Request, "json", no_builtins)
    resp = await client.post(f"/v1/games/{game_id}/commands?include=view", json=ADD, headers=players[seat]["headers"])
    assert resp.status_code == 200 and resp.json()["events"], resp.text
    assert decoded == [msgspec.json.encode(ADD)]


async def test_commands_count_as_their_route_and_log_the_player(client):
    game_id, players = await started_game(client, "tally", 2)
    metrics = client.app.state.metrics
    labels = {"method": "POST", "route": "/v1/games/{game_id}/commands", "status": "200"}
    before = metrics.registry.get_sample_value("stela_http_requests_total", labels) or 0
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    resp = await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=players[seat]["headers"])
    assert resp.status_code == 200 and resp.headers["x-request-id"]
    assert metrics.registry.get_sample_value("stela_http_requests_total", labels) == before + 1


def framework_internals(source: str) -> list[str]:
    """The modules `source` imports that are a framework's private parts (`x._y`, `x._internal`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
        found += [n for n in names if any(part.startswith("_") for part in n.split(".")[1:])]
    return found


def test_the_service_imports_no_framework_internals():
    imported = {str(p.relative_to(SERVICE)): found for p in sorted(SERVICE.rglob("*.py"))
                if (found := framework_internals(p.read_text()))}
    assert imported == {}


def test_the_check_finds_a_private_import():
    assert framework_internals("from litestar._asgi.utils import is_valid_host") == ["litestar._asgi.utils"]
    assert framework_internals("import litestar.middleware._internal.cors") == ["litestar.middleware._internal.cors"]
    assert framework_internals("from litestar.config.cors import CORSConfig\nfrom . import _x") == []
