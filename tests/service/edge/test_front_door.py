"""What every request meets first: its id, its log line and metrics, CORS, fair budgets."""

from __future__ import annotations

import struct
import time
import zlib
import uuid

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from service.edge.middleware import parse_networks
from service.edge.ratelimit import Counters, rate_limit
from testkit.api import player, until


@pytest.fixture(autouse=True)
def one_rate_limit_window(monkeypatch):
    """Every request of a test falls in one rate-limit window: the windows are fixed minutes, and a test
    that crossed a minute's boundary on a slow machine would see its budget renewed half-way."""
    import types

    import service.edge.ratelimit

    monkeypatch.setattr(service.edge.ratelimit, "time", types.SimpleNamespace(time=lambda: 1_800_000_030.0))

ORIGIN = "http://localhost:5173"


def counted(app, method: str, status: int) -> float:
    total = 0.0
    for metric in app.state.metrics.requests.collect():
        for sample in metric.samples:
            if sample.name.endswith("_total") and sample.labels["method"] == method \
                    and sample.labels["status"] == str(status):
                total += sample.value
    return total


async def test_every_answer_carries_a_request_id_and_is_counted_with_its_real_status(settings, games):
    app = create_app(msgspec.structs.replace(settings, rate_limit=3), games=games)
    async with AsyncTestClient(app) as client:
        answers = [await client.get("/no/such/route"), await client.delete("/v1/kinds"),
                   await client.get("/v1/kinds"), await client.get("/v1/kinds")]
        echoed = await client.get("/healthz", headers={"X-Request-ID": "trace-me"})
    assert [a.status_code for a in answers] == [404, 405, 200, 429]
    assert all(a.headers.get("x-request-id") for a in answers)
    assert echoed.headers["x-request-id"] == "trace-me"
    assert counted(app, "GET", 404) == 1 and counted(app, "DELETE", 405) == 1
    assert counted(app, "GET", 429) == 1 and counted(app, "GET", 500) == 0


async def test_a_preflight_is_answered_for_any_origin_with_everything_a_browser_client_needs(client):
    resp = await client.options("/v1/games/some-id/commands", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key"})
    assert resp.status_code in (200, 204), resp.text
    assert resp.headers["access-control-allow-origin"] in ("*", ORIGIN)
    allowed = resp.headers["access-control-allow-headers"].lower()
    for header in ("authorization", "content-type", "idempotency-key", "last-event-id", "x-request-id"):
        assert header in allowed
    assert "POST" in resp.headers["access-control-allow-methods"]
    assert resp.headers["access-control-max-age"] == "86400"
    assert "access-control-allow-credentials" not in resp.headers


async def test_a_simple_request_exposes_the_headers_a_client_reads(client):
    resp = await client.post("/v1/players", json={"name": "Ann"}, headers={"Origin": ORIGIN})
    assert resp.status_code == 201
    assert resp.headers["access-control-allow-origin"] in ("*", ORIGIN)
    exposed = resp.headers["access-control-expose-headers"].lower()
    for header in ("location", "x-request-id", "retry-after", "idempotent-replayed"):
        assert header in exposed


async def test_configured_origins_only_are_allowed(settings, games):
    app = create_app(msgspec.structs.replace(settings, cors_origins="https://board.example"), games=games)
    async with AsyncTestClient(app) as client:
        good = await client.get("/v1/kinds", headers={"Origin": "https://board.example"})
        bad = await client.get("/v1/kinds", headers={"Origin": "https://evil.example"})
    assert good.headers["access-control-allow-origin"] == "https://board.example"
    assert "access-control-allow-origin" not in bad.headers


async def test_preflights_are_never_rate_limited_and_refusals_carry_cors_and_retry_after(settings, games):
    app = create_app(msgspec.structs.replace(settings, rate_limit=1), games=games)
    async with AsyncTestClient(app) as client:
        for _ in range(5):
            pre = await client.options("/v1/kinds", headers={"Origin": ORIGIN,
                                                              "Access-Control-Request-Method": "GET"})
            assert pre.status_code in (200, 204)
        await client.get("/v1/kinds", headers={"Origin": ORIGIN})
        limited = await client.get("/v1/kinds", headers={"Origin": ORIGIN})
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    assert limited.headers["access-control-allow-origin"] in ("*", ORIGIN)


async def test_a_client_cannot_pick_its_bucket_with_x_forwarded_for(settings, games):
    app = create_app(msgspec.structs.replace(settings, rate_limit=2), games=games)
    async with AsyncTestClient(app) as client:
        statuses = [(await client.get("/v1/kinds", headers={"X-Forwarded-For": f"203.0.113.{i}"})).status_code
                    for i in range(3)]
    assert statuses == [200, 200, 429]


def answering_ok() -> tuple:
    """An ASGI app that answers 200, a `send` that records each answer's status, and that record."""
    seen: list[int] = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def send(message):
        if message["type"] == "http.response.start":
            seen.append(message["status"])

    return app, send, seen


async def test_behind_a_trusted_proxy_each_client_address_has_its_own_budget():
    app, send, seen = answering_ok()
    limited = rate_limit(1, 0, 0, parse_networks("10.0.0.0/8"), Counters(), lambda _: None)(app)
    for forwarded in ("203.0.113.1", "203.0.113.2", "203.0.113.1", "6.6.6.6, 203.0.113.2"):
        scope = {"type": "http", "method": "GET", "path": "/v1/kinds", "client": ("10.0.0.5", 1234),
                 "headers": [(b"x-forwarded-for", forwarded.encode())]}
        await limited(scope, None, send)
    assert seen == [200, 200, 429, 429]


async def test_each_token_has_its_own_budget_from_its_first_request(settings, games):
    app = create_app(msgspec.structs.replace(settings, rate_limit=3), games=games)
    async with AsyncTestClient(app) as client:
        ann = await player(client)  # 1 of the address's budget
        await client.get("/v1/kinds")  # 2
        await client.get("/v1/players/me", headers=ann["headers"])  # the token's 1, not the address's
        assert (await client.get("/v1/kinds")).status_code == 200  # 3
        assert (await client.get("/v1/kinds")).status_code == 429  # the address is spent
        mine = [(await client.get("/v1/kinds", headers=ann["headers"])).status_code for _ in range(3)]
    assert mine == [200, 200, 429]


async def test_replicas_share_their_counters_through_redis_and_count_alone_when_it_fails():
    import redis.asyncio as aioredis

    from tests.conftest import REDIS_URL

    key, now = f"test:{uuid.uuid4().hex}", time.time()
    one, two = aioredis.from_url(REDIS_URL), aioredis.from_url(REDIS_URL)
    try:
        assert [await Counters(one).hit(key, now), await Counters(two).hit(key, now)] == [1, 2]
    finally:
        await one.aclose()
        await two.aclose()
    dead = aioredis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.25)
    alone = Counters(dead)
    assert [await alone.hit(key, now), await alone.hit(key, now)] == [1, 2]
    await dead.aclose()


def holding_app() -> tuple:
    """An ASGI app whose streams stay open until `release` is set, a `send` recording each answer's
    status and Retry-After, `release`, and those records."""
    import asyncio

    release = asyncio.Event()
    statuses: list[int] = []
    retry: list[bytes] = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await release.wait()  # a stream stays open until released
        await send({"type": "http.response.body", "body": b""})

    async def send(message):
        if message["type"] == "http.response.start":
            statuses.append(message["status"])
            retry.extend(v for k, v in message["headers"] if k == b"retry-after")

    return app, send, release, statuses, retry


async def test_open_streams_are_capped_per_client_with_a_429_and_free_again_when_one_closes():
    import asyncio

    app, send, release, statuses, retry = holding_app()
    capped = rate_limit(0, 0, 2, (), Counters(), lambda _: None)(app)
    scope = {"type": "http", "method": "GET", "path": "/v1/games/g/stream", "client": ("192.0.2.1", 1),
             "headers": []}
    streams = [asyncio.create_task(capped(dict(scope), None, send)) for _ in range(2)]
    await until(lambda: len(statuses) == 2)
    await capped(dict(scope), None, send)
    streams.append(asyncio.create_task(capped({**scope, "client": ("192.0.2.2", 1)}, None, send)))  # its own cap
    await until(lambda: len(statuses) == 4)
    assert statuses == [200, 200, 429, 200] and retry
    release.set()
    await asyncio.gather(*streams)
    statuses.clear()
    await capped(dict(scope), None, send)
    assert statuses == [200]


async def test_a_browsers_reconnects_are_never_refused_even_with_the_api_budget_spent():
    from service.ops.settings import Settings
    from service.live.sse import RETRY_MS

    app, send, statuses = answering_ok()
    defaults = Settings()
    limited = rate_limit(2, defaults.stream_rate_limit, defaults.max_streams_per_client, (), Counters(),
                         lambda _: None)(app)
    scope = {"type": "http", "method": "GET", "client": ("192.0.2.9", 1), "headers": []}
    for _ in range(3):
        await limited({**scope, "path": "/v1/games/g/legal"}, None, send)
    assert statuses == [200, 200, 429]  # the page's API budget is spent
    # one page following two seats and the personal stream, each reconnecting at the interval the
    # server asks for (`retry:`) for a whole minute: no opening is refused
    streams = ["/v1/games/g/stream", "/v1/games/h/stream", "/v1/players/me/stream"]
    statuses.clear()
    for _ in range(60_000 // RETRY_MS):
        for path in streams:
            await limited({**scope, "path": path}, None, send)
    assert statuses == [200] * (len(streams) * (60_000 // RETRY_MS))
    statuses.clear()
    await limited({**scope, "path": "/v1/games/g/legal"}, None, send)
    assert statuses == [429], "stream openings are a budget apart; they give the API budget nothing back"


async def test_a_preflight_for_a_header_the_api_does_not_allow_is_refused_as_a_problem(client):
    resp = await client.options("/v1/games/some-id/commands", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-secret-sauce"})
    assert resp.status_code == 400
    assert resp.headers["content-type"].startswith("application/problem+json")
    body = resp.json()
    assert body["code"] == "cors_preflight_refused" and body["status"] == 400 and "headers" in body["detail"]
    assert "x-secret-sauce" in body["detail"], "the refused header is named"
    assert "idempotency-key" in body["detail"].lower(), "and those allowed"


async def test_every_limited_response_carries_the_ietf_ratelimit_fields_and_429_retries_when_the_window_ends(
        settings, games):
    app = create_app(msgspec.structs.replace(settings, rate_limit=3, stream_rate_limit=5), games=games)
    async with AsyncTestClient(app) as client:
        answers = [await client.get("/v1/kinds", headers={"Origin": ORIGIN}) for _ in range(4)]
        health = await client.get("/healthz")
        streamed = await client.get("/v1/games/nope/stream")
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    # the clock stands at 30 s into a minute (`one_rate_limit_window`): the window ends in 30 s
    assert [a.headers["ratelimit"] for a in answers] == ['"api";r=2;t=30', '"api";r=1;t=30', '"api";r=0;t=30',
                                                       '"api";r=0;t=30']
    assert all(a.headers["ratelimit-policy"] == '"api";q=3;w=60' for a in answers)
    assert answers[-1].headers["retry-after"] == "30"
    exposed = answers[0].headers["access-control-expose-headers"].lower()
    assert "ratelimit" in exposed.split(", ") and "ratelimit-policy" in exposed
    assert "ratelimit" not in health.headers, "health checks are not limited"
    assert streamed.status_code == 404 and streamed.headers["ratelimit"] == '"streams";r=4;t=30'
    assert streamed.headers["ratelimit-policy"] == '"streams";q=5;w=60'


async def test_a_refused_preflight_names_the_method_and_origin_it_refuses(settings, games):
    app = create_app(msgspec.structs.replace(settings, cors_origins="https://board.example"), games=games)
    async with AsyncTestClient(app) as client:
        origin = await client.options("/v1/kinds", headers={"Origin": "https://evil.example",
                                                             "Access-Control-Request-Method": "GET"})
    assert origin.status_code == 400 and "https://evil.example" in origin.json()["detail"]


async def test_the_favicon_is_an_icon_a_browser_reads(client):
    resp = await client.get("/favicon.ico")
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("image/x-icon")
    reserved, kind, count = struct.unpack("<HHH", resp.content[:6])
    width, height, _, _, _, bits, size, offset = struct.unpack("<BBBBHHII", resp.content[6:22])
    assert (reserved, kind, count, width, height, bits) == (0, 1, 1, 32, 32, 32)
    image = resp.content[offset:offset + size]
    assert image.startswith(b"\x89PNG\r\n\x1a\n") and len(resp.content) == offset + size
    pixels = zlib.decompress(image[image.index(b"IDAT") + 4:image.index(b"IEND") - 8])
    assert len(pixels) == 32 * (1 + 32 * 4) and len(set(pixels)) > 3, "a picture, not a blank"
    assert "ratelimit" not in resp.headers
