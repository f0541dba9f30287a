"""The second round of hostile input: deep JSON anywhere, repeated keys, headers too large, bodies without a
Content-Type, a stale dry run, and the `Retry-After` of a database outage. Never a 500."""

from __future__ import annotations

import gc
import json
import random
import time

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.commands.exceptions import StoreUnavailable
from service.edge.errors import Outage, problem
from service.edge.jsonkeys import duplicate_key
from service.edge.middleware import MAX_BODY_BYTES
from testkit.api import started_game
from tests.service.edge.test_hostile_input import JSON, PROBLEM, refused


async def _json_endpoints(client) -> tuple[list[str], dict]:
    game_id, players = await started_game(client, "tally", 2)
    boss = {"Authorization": "Bearer admin-secret"}
    resp = await client.post("/v1/tournaments", headers={**players[0]["headers"]},
                             json={"name": "Cup", "kind": "tally", "seats": 2, "rounds": 1})
    tid = resp.json().get("tournament_id", "no-such-tournament") if resp.status_code == 201 else "no-such"
    paths = ["/v1/players", "/v1/players/me/token", "/v1/players/me/stream-tickets", "/v1/games",
             f"/v1/games/{game_id}/join", f"/v1/games/{game_id}/leave", f"/v1/games/{game_id}/start",
             f"/v1/games/{game_id}/commands", f"/v1/games/{game_id}/commands?dry_run=true",
             f"/v1/games/{game_id}/stream-tickets", "/v1/tournaments", f"/v1/tournaments/{tid}/register",
             f"/v1/tournaments/{tid}/withdraw", f"/v1/tournaments/{tid}/start", "/v1/games/no-such-game/commands"]
    return paths, {"anonymous": {}, "seated": players[0]["headers"], "admin": boss}


@pytest.mark.parametrize("depth", [1_000, 10_000, 100_000])
async def test_json_nested_deep_is_never_a_500_on_any_endpoint_with_or_without_a_token(client, depth):
    paths, callers = await _json_endpoints(client)
    bodies = [b"[" * depth + b"]" * depth, b'{"a":' * depth + b"1" + b"}" * depth,
              b'{"command": ' + b"[" * depth + b"]" * depth + b"}"]
    for path in paths:
        for who, headers in callers.items():
            for body in bodies:
                resp = await client.post(path, content=body, headers={**headers, **JSON})
                assert resp.status_code < 500, (path, who, resp.status_code, resp.text[:200])
                assert resp.headers["content-type"].startswith(PROBLEM), (path, who)
                if who == "seated" and "no-such" not in path:
                    expected = ("invalid_request", "forbidden") if len(body) <= MAX_BODY_BYTES else ("payload_too_large",)
                    assert resp.json()["code"] in expected, (path, resp.text[:200])


async def test_a_key_repeated_in_one_object_is_a_400_wherever_it_is(client):
    game_id, players = await started_game(client, "tally", 2)
    refused(await client.post("/v1/players", content=b'{"name": "Ann", "name": "Bo"}', headers=JSON),
            400, "invalid_request")
    body = refused(await client.post(
        f"/v1/games/{game_id}/commands", headers={**players[0]["headers"], **JSON},
        content=b'{"command": {"type": "tally.Add", "amount": 1, "amount": 2}}'), 400, "invalid_request")
    assert "amount" in body["detail"]
    refused(await client.post(
        f"/v1/games/{game_id}/commands", headers={**players[0]["headers"], **JSON},
        content=b'{"command": {"type": "tally.Add", "amount": 1}, "expected_version": 1, "expected_version": 9}'),
        400, "invalid_request")
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == (await client.get(
        f"/v1/games/{game_id}")).json()["version"]
    fine = await client.post(f"/v1/games/{game_id}/commands", headers={**players[0]["headers"], **JSON},
                             content=b'{"command": {"type": "tally.Add", "amount": 1}}')
    assert fine.status_code == 200, fine.text


def test_repeated_keys_are_told_apart_from_equal_keys_in_sibling_objects():
    assert duplicate_key(b'{"a": 1, "a": 2}') == "a"
    assert duplicate_key(b'{"a": {"b": 1, "b": 2}}') == "b"
    assert duplicate_key(b'{"a": 1, "\\u0061": 2}') == "a"  # the same key, escaped
    assert duplicate_key(b'{"a" : 1, "a"\n: 2}') == "a"
    assert duplicate_key(b'[{"a": 1}, {"a": 2}]') is None
    assert duplicate_key(b'{"a": {"a": 1}}') is None
    assert duplicate_key(b'{"x": "\\"a\\":", "a": 1}') is None  # a key's text inside a string is no key
    assert duplicate_key(b'{"a": 1, "a": ') is None  # malformed: the decoder says so in its own words
    assert duplicate_key(b'{"a": 1, "b\\') is None  # a string cut after its escape character


def _reference(body: bytes) -> str | None:
    """The first repeated key as the standard library's decoder finds it (None for malformed JSON)."""
    def pairs(items):
        keys = [key for key, _ in items]
        for i, key in enumerate(keys):
            if key in keys[:i]:
                raise KeyError(key)
        return dict(items)

    try:
        json.loads(body, object_pairs_hook=pairs)
    except KeyError as repeated:
        return repeated.args[0]
    except (ValueError, RecursionError):
        return None
    return None


# the pieces hostile bodies are made of: quotes and escapes that open strings the scan must not restart in
_PIECES = [b'"', b'\\"', b"\\", b'\\\\', b"{", b"}", b"[", b"]", b":", b",", b'"a"', b'"a":', b"1", b" "]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=200))
def test_on_any_hostile_body_the_scan_answers_as_the_decoder_does(pieces):
    body = b"".join(pieces)
    assert duplicate_key(body) == _reference(body), body


def _scan_cpu(body: bytes) -> float:
    """This thread's CPU seconds to scan `body` (its own time, whatever else the machine runs)."""
    gc.disable()
    try:
        started = time.thread_time()
        duplicate_key(body)
        return time.thread_time() - started
    finally:
        gc.enable()


_FAMILIES = [b'\\"', b'{"\\"', b'"', b'{"a":1,', b'{"a":', b'[{"a":1},', b"\\", b'"a""a"}:"a":']


@pytest.mark.slow  # megabytes of hostile bodies, timed in CPU
def test_hostile_bodies_at_the_limit_are_scanned_in_linear_cpu():
    """The freeze of issue 43: a body of unterminated `\\"` pairs cost the scan the square of its size
    (64 KiB held the event loop 18 s). Each known family and 200 random mixtures of the pieces hostile bodies
    are made of, at the size limit, must scan in under 100 ms of CPU (the worst takes ~10-20 ms here)."""
    rng = random.Random(43)
    bodies = [family * (MAX_BODY_BYTES // len(family)) for family in _FAMILIES]
    for _ in range(200):
        unit = b"".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 60)))
        bodies.append((unit * (MAX_BODY_BYTES // len(unit) + 1))[:MAX_BODY_BYTES])
    for body in bodies:
        spent = min(_scan_cpu(body) for _ in range(2))
        assert spent < 0.1, (body[:40], spent)


async def _request_cpu(client, path: str, body: bytes, headers: dict) -> tuple[float, object]:
    """The process's CPU seconds (every thread: the test client's and the app's) to answer `body` posted to
    `path`, and the answer. CPU, not wall time: what a request costs the event loop, whatever else the machine runs."""
    gc.disable()
    try:
        started = time.process_time()
        resp = await client.post(path, content=body, headers=headers)
        return time.process_time() - started, resp
    finally:
        gc.enable()


async def test_no_hostile_body_or_form_costs_the_app_100_ms_of_cpu_through_every_door(client):
    """Issue 43, end to end: each hostile family at the size limit, anonymously to `POST /v1/players`, seated to
    a game's commands, and a form of one field per few bytes to the token endpoint, is answered (4xx, never
    5xx) for under 100 ms of the whole process's CPU, so it cannot hold the event loop for longer (before the
    fix a 64 KiB body held it 18 s); one over the limit is 413. The best of two tries (a collection or a
    background task of the app may land in one)."""
    from service.edge.routes.oauth import TOKEN_FORM_BYTES

    game_id, players = await started_game(client, "tally", 2)
    seated = {**players[0]["headers"], **JSON}
    doors = [("/v1/players", JSON), (f"/v1/games/{game_id}/commands", seated)]
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    cases = [(path, headers, (family * (size // len(family) + 1))[:size], size > MAX_BODY_BYTES)
             for path, headers in doors for family in _FAMILIES for size in (MAX_BODY_BYTES, MAX_BODY_BYTES + 1)]
    fields = "&".join(f"f{i}=x" for i in range(TOKEN_FORM_BYTES)).encode()
    cases += [("/oauth/token", form, fields[:TOKEN_FORM_BYTES], False),
              ("/oauth/token", form, fields[:TOKEN_FORM_BYTES + 1], True)]
    for path, headers, body, over in cases:
        tries = [await _request_cpu(client, path, body, headers) for _ in range(2)]
        spent = min(cpu for cpu, _ in tries)
        for _, resp in tries:
            assert 400 <= resp.status_code < 500, (path, body[:40], resp.status_code, resp.text[:200])
            assert (resp.status_code == 413) == over, (path, body[:40], len(body), resp.status_code)
        assert spent < 0.1, (path, body[:40], len(body), spent)


async def test_a_body_without_a_content_type_is_415_and_no_body_needs_none(client):
    refused(await client.post("/v1/players", content=b'{"name": "Ann"}'), 415, "unsupported_media_type")
    game_id, players = await started_game(client, "tally", 2)
    resp = await client.post(f"/v1/games/{game_id}/stream-tickets", headers=players[0]["headers"])
    assert resp.status_code == 201, resp.text


async def test_request_headers_over_the_bound_are_431(client):
    resp = await client.get("/v1/kinds", headers={"X-Padding": "a" * (1024 * 1024)})
    refused(resp, 431, "headers_too_large")
    resp = await client.get("/v1/kinds", headers={f"X-Pad-{i}": "a" * 1000 for i in range(40)})
    refused(resp, 431, "headers_too_large")
    assert (await client.get("/v1/kinds", headers={"X-Padding": "a" * 8000})).status_code == 200


async def test_a_dry_run_with_a_stale_expected_version_is_the_409_a_real_post_gets(client):
    game_id, players = await started_game(client, "tally", 2)
    headers = players[0]["headers"]
    version = (await client.get(f"/v1/games/{game_id}")).json()["version"]
    command = {"command": {"type": "tally.Add", "amount": 1}, "expected_version": version - 1}
    dry = refused(await client.post(f"/v1/games/{game_id}/commands?dry_run=true", headers=headers, json=command),
                  409, "version_conflict")
    real = refused(await client.post(f"/v1/games/{game_id}/commands", headers=headers, json=command),
                   409, "version_conflict")
    assert dry["current_version"] == real["current_version"] == version
    fresh = {**command, "expected_version": version}
    ok = await client.post(f"/v1/games/{game_id}/commands?dry_run=true", headers=headers, json=fresh)
    assert ok.status_code == 200 and ok.json()["dry_run"], ok.text


def test_retry_after_of_a_database_outage_grows_with_it_from_one_second():
    now = [1000.0]
    outage = Outage(clock=lambda: now[0])
    said = []
    for _ in range(12):  # a failure every 2 s for 24 s
        said.append(outage.retry_after())
        now[0] += 2
    assert said[0] == 1 and said[5] <= 3  # 10 s into the outage: a few seconds, never a minute
    assert said == sorted(said) and said[-1] < 60
    now[0] += 60  # quiet for a minute: the next failure begins a new outage
    assert outage.retry_after() == 1


def test_a_database_503_says_retry_after_from_the_outage_not_60():
    status, body, headers = problem(StoreUnavailable("down"), None)
    assert status == 503 and msgspec.json.decode(body)["code"] == "database_unavailable"
    assert 1 <= int(headers["Retry-After"]) <= 30
