"""One entrance for commands: the framework's route, its body decoded once from the raw bytes.

(That the service imports no framework internals is tests/test_architecture.py's `internal_imports` and
`framework_internals`.)"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from litestar import Request

from service.edge import schemas
from testkit.api import started_game

ADD = {"command": {"type": "tally.Add", "amount": 1}}


@pytest.fixture
def decoded(monkeypatch) -> list[tuple[str, bytes]]:
    """Every body the one strict decoding path decodes, by type; decoding a body to builtins fails the test."""
    found: list[tuple[str, bytes]] = []
    real = schemas._decoder

    class Counting:
        def __init__(self, type_: Any) -> None:
            self.type, self.decoder = type_, real(type_)

        def decode(self, body: bytes) -> Any:
            found.append((self.type.__name__, bytes(body)))
            return self.decoder.decode(body)

    async def no_builtins(self: Any) -> Any:
        raise AssertionError("the body was decoded to builtins")

    monkeypatch.setattr(schemas, "_decoder", Counting)
    monkeypatch.setattr(Request, "json", no_builtins)
    return found


async def test_a_command_body_is_decoded_once_from_its_bytes(client, decoded):
    game_id, players = await started_game(client, "tally", 2)
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    decoded.clear()
    resp = await client.post(f"/v1/games/{game_id}/commands?include=view", json=ADD, headers=players[seat]["headers"])
    assert resp.status_code == 200 and resp.json()["events"], resp.text
    assert decoded == [("CommandEnvelope", msgspec.json.encode(ADD))]


async def test_every_other_body_is_decoded_once_into_its_strict_struct(client, decoded):
    resp = await client.post("/v1/players", json={"name": "Ada"})
    assert resp.status_code == 201, resp.text
    headers = {"Authorization": f"Bearer {resp.json()['token']}"}
    game = {"kind": "tally", "seats": 2, "options": {"target": 5}}
    resp = await client.post("/v1/games", json=game, headers=headers)
    assert resp.status_code == 201, resp.text
    assert decoded == [("PlayerCreate", msgspec.json.encode({"name": "Ada"})),
                       ("GameCreate", msgspec.json.encode(game))]


async def test_a_body_the_strict_decoder_refuses_is_answered_in_the_documented_shapes(client):
    lenient = await client.post("/v1/players", json={"name": 3})  # not a string: the field is named
    assert lenient.status_code == 400 and lenient.json()["code"] == "invalid_request", lenient.text
    assert "name" in lenient.text
    unknown = await client.post("/v1/players", json={"name": "Ada", "extra": 1})
    assert unknown.status_code == 400 and "extra" in unknown.json()["detail"], unknown.text
    integral = await client.post("/v1/players", json={"name": "Ada"})
    token = {"Authorization": f"Bearer {integral.json()['token']}"}
    three = await client.post("/v1/games", json={"kind": "tally", "seats": 2.0, "options": {"target": 5}},
                              headers=token)  # JSON Schema's integer: taken
    assert three.status_code == 201, three.text
    lax = await client.post("/v1/games", json={"kind": "tally", "seats": 2, "join": 0}, headers=token)
    assert lax.status_code == 400, lax.text  # `0` is not `false`


async def test_commands_count_as_their_route_and_log_the_player(client):
    game_id, players = await started_game(client, "tally", 2)
    metrics = client.app.state.metrics
    labels = {"method": "POST", "route": "/v1/games/{game_id}/commands", "status": "200"}
    before = metrics.registry.get_sample_value("stela_http_requests_total", labels) or 0
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    resp = await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=players[seat]["headers"])
    assert resp.status_code == 200 and resp.headers["x-request-id"]
    assert metrics.registry.get_sample_value("stela_http_requests_total", labels) == before + 1


async def test_a_replayed_command_is_marked_and_the_route_takes_no_dependencies(client):
    game_id, players = await started_game(client, "tally", 2)
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    headers = {**players[seat]["headers"], "Idempotency-Key": "k1"}
    first = await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=headers)
    again = await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=headers)
    assert first.status_code == again.status_code == 200 and again.json() == first.json()
    assert "idempotent-replayed" not in first.headers and again.headers["idempotent-replayed"] == "true"
    assert first.headers["content-type"] == "application/json"
    route = next(r for r in client.app.routes if r.path == "/v1/games/{game_id:str}/commands")
    taken = set(route.route_handler_map["POST"][0].parsed_fn_signature.parameters)
    assert not taken & {"services", "viewer"}  # each dependency costs a command tens of µs (bench.entrance)


def test_the_framework_still_cannot_route_a_plain_asgi_handler_with_a_path_parameter():
    """Why the command route is a routed handler and not a plain ASGI route (the cheaper public way, ~40 µs
    a command in bench.entrance): litestar 2.25.0 answers 500 for any `@asgi` route whose path has a
    parameter (the router looks the parameters up under the HTTP method, stored under "asgi"). When this
    fails, the framework routes such a handler: move `POST /v1/games/{id}/commands` onto one."""
    from litestar import Litestar, asgi
    from litestar.testing import TestClient
    from litestar.types import Receive, Scope, Send

    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": str(scope["path_params"]).encode()})

    plain = asgi("/v1/games/{game_id:str}/commands")(answer)
    without_parameters = asgi("/v1/plain")(answer)

    with TestClient(Litestar([plain, without_parameters])) as client:
        assert client.post("/v1/plain").status_code == 200  # a plain route without a parameter is served
        assert client.post("/v1/games/g1/commands").status_code == 500
