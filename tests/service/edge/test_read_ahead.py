"""`json_only` reads an announced JSON body before the framework and hands it over as the request's body; what
it must keep: every chunk in order, a repeated key still refused, a client leaving mid-body still seen, a
streamed body left to the framework's own reading, and every body over `MAX_BODY_BYTES` refused with 413
before it is scanned."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.types import Empty
from litestar.utils.scope.state import ScopeState

from service.commands.exceptions import InvalidRequest
from service.edge.middleware import MAX_BODY_BYTES, json_only
from tests.service.edge.test_hostile_input import JSON, refused
from testkit.api import started_game


def _scope(body_length: int | None) -> dict[str, Any]:
    headers = [(b"content-type", b"application/json")]
    if body_length is not None:
        headers.append((b"content-length", str(body_length).encode()))
    else:
        headers.append((b"transfer-encoding", b"chunked"))
    return {"type": "http", "method": "POST", "path": "/v1/x", "headers": headers}


async def _through(scope: dict[str, Any], messages: list[dict[str, Any]]) -> tuple[bytes | None, list[Any]]:
    """What the app behind `json_only` finds: the body handed over (None: none) and what `receive` gives it
    (up to the last body chunk or a disconnect)."""
    sent = iter(messages)
    seen: dict[str, Any] = {}

    async def receive() -> Any:
        return next(sent)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        state = ScopeState.from_scope(scope)
        seen["body"] = None if state.body is Empty else state.body
        got = []
        while True:
            message = await receive()
            got.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        seen["messages"] = got

    async def send(message: Any) -> None:
        raise AssertionError(f"json_only answered {message}")

    await json_only(app)(scope, receive, send)
    return seen["body"], seen["messages"]


def _chunks(*parts: bytes) -> list[dict[str, Any]]:
    return [{"type": "http.request", "body": p, "more_body": i < len(parts) - 1} for i, p in enumerate(parts)]


async def test_a_short_body_in_several_chunks_is_handed_over_whole_and_replayed_as_it_came():
    parts = (b'{"command": {"type": "tally.Add", ', b'"amount": 1}', b"}")
    body, messages = await _through(_scope(sum(map(len, parts))), _chunks(*parts))
    assert body == b"".join(parts)
    assert messages == _chunks(*parts)


async def test_a_repeated_key_split_over_chunks_is_still_refused_where_the_body_is_read():
    parts = (b'{"amount": 1, ', b'"amount": 2}')
    with pytest.raises(InvalidRequest, match="amount"):
        await _through(_scope(sum(map(len, parts))), _chunks(*parts))


async def test_a_client_leaving_mid_body_is_seen_by_the_framework_and_no_body_is_handed_over():
    messages = [*_chunks(b'{"amount": ', b"1")[:1], {"type": "http.disconnect"}]
    body, got = await _through(_scope(20), messages)
    assert body is None and got == messages


async def test_a_chunked_body_is_left_to_the_framework_and_a_repeated_key_still_refused():
    body, messages = await _through(_scope(None), _chunks(b'{"amount": 1}'))
    assert body is None and messages == _chunks(b'{"amount": 1}')
    with pytest.raises(InvalidRequest, match="pad"):
        await _through(_scope(None), _chunks(b'{"pad": "x", ', b'"pad": 2}'))


async def test_an_announced_body_over_the_limit_is_refused_413_before_a_byte_of_it_is_read():
    answered: list[Any] = []

    async def receive() -> Any:
        raise AssertionError("the body was read")

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the app was called")

    async def send(message: Any) -> None:
        answered.append(message)

    await json_only(app)(_scope(MAX_BODY_BYTES + 1), receive, send)
    assert answered[0]["status"] == 413


async def test_a_streamed_body_is_refused_413_as_soon_as_it_passes_the_limit():
    part = b'{"pad": "' + b"x" * (MAX_BODY_BYTES // 2)
    with pytest.raises(RequestEntityTooLarge):
        await _through(_scope(None), _chunks(part, b"y" * (MAX_BODY_BYTES // 2), b'"}'))


async def test_through_the_app_long_and_oversized_bodies_are_answered_with_their_codes(client):
    game_id, players = await started_game(client, "tally", 2)
    headers = {**players[0]["headers"], **JSON}
    long = b'{"command": {"type": "tally.Add", "amount": 1}, "pad": "' + b"x" * (MAX_BODY_BYTES // 2) + b'"}'
    refused(await client.post(f"/v1/games/{game_id}/commands", headers=headers, content=long), 400, "invalid_request")
    repeated = b'{"command": {"type": "tally.Add", "amount": 1, "amount": 2}, "pad": "' + b"x" * 1000 + b'"}'
    body = refused(await client.post(f"/v1/games/{game_id}/commands", headers=headers, content=repeated),
                   400, "invalid_request")
    assert "amount" in body["detail"]
    over = b'{"command": {"type": "tally.Add", "amount": 1}, "pad": "' + b"x" * MAX_BODY_BYTES + b'"}'
    refused(await client.post(f"/v1/games/{game_id}/commands", headers=headers, content=over), 413, "payload_too_large")
    fine = await client.post(f"/v1/games/{game_id}/commands", headers=headers,
                             content=b'{"command": {"type": "tally.Add", "amount": 1}}')
    assert fine.status_code == 200 and fine.json()["version"] >= 1, fine.text
