"""Operations: rate limiting, database outages, metrics, readiness, replay as a seat."""

from __future__ import annotations

import httpx
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from testkit.api import play_to_end, player, started_game


@pytest.fixture(autouse=True)
def one_rate_limit_window(monkeypatch):
    """Every request of a test falls in one rate-limit window: the windows are fixed minutes, and a test
    that crossed a minute's boundary on a slow machine would see its budget renewed half-way."""
    import types

    import service.edge.ratelimit

    monkeypatch.setattr(service.edge.ratelimit, "time", types.SimpleNamespace(time=lambda: 1_800_000_030.0))


async def test_too_many_requests_get_a_429_problem_with_retry_after(settings, games):
    app = create_app(msgspec.structs.replace(settings, rate_limit=3), games=games)
    async with AsyncTestClient(app) as client:
        statuses = [(await client.get("/v1/kinds")).status_code for _ in range(4)]
        limited = await client.get("/v1/kinds")
    assert statuses[:3] == [200, 200, 200] and limited.status_code == 429
    assert limited.json()["code"] == "rate_limited" and "retry-after" in limited.headers


async def test_a_lost_database_is_a_503_problem_not_a_500(pg_client):
    ann = await player(pg_client)
    pg_client.app.state.services.store.pool.terminate()
    resp = await pg_client.get("/v1/games/some-game", headers=ann["headers"])
    assert resp.status_code == 503 and resp.json()["code"] == "database_unavailable"
    ready = await pg_client.get("/readyz")
    assert ready.status_code == 503 and ready.json()["checks"]["postgres"].startswith("down")


async def scrape(app) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.get(f"http://127.0.0.1:{app.state.metrics_bound_port}/metrics", timeout=30)


async def test_metrics_count_requests_and_commands_on_their_own_port(settings, games):
    app = create_app(settings, games=games, extra={"metrics_port": 0})
    async with AsyncTestClient(app) as client:
        game_id, players = await started_game(client, "tally", 2)
        for _ in range(2):
            await client.post(f"/v1/games/{game_id}/commands", headers=players[0]["headers"],
                              json={"command": {"type": "tally.Add", "amount": 1}})
        assert (await client.get("/metrics")).status_code == 404  # never on the API port
        text = (await scrape(app)).text
        assert 'stela_commands_total{kind="tally",result="accepted"} 1.0' in text
        assert 'stela_commands_total{kind="tally",result="RuleViolation"} 1.0' in text
        assert "stela_http_requests_total" in text and "stela_projection_lag_events" in text
        app.state.services.store.pool.terminate()  # PostgreSQL gone: metrics still answer
        down = await scrape(app)
        assert down.status_code == 200 and "stela_http_requests_total" in down.text


@pytest.mark.parametrize("seat", [0, 1])
async def test_after_the_end_anyone_replays_the_events_exactly_as_a_seat_received_them(client, seat):
    game_id, players = await started_game(client, "tally", 2, {"target": 5})
    during = (await client.get(f"/v1/games/{game_id}/events", headers=players[seat]["headers"])).json()
    refused = await client.get(f"/v1/games/{game_id}/events?as_seat={1 - seat}", headers=players[seat]["headers"])
    assert refused.status_code == 403
    await play_to_end(client, game_id, players)
    replay = (await client.get(f"/v1/games/{game_id}/events?as_seat={seat}")).json()["events"]
    assert replay[:len(during["events"])] == during["events"]
    dealt = next(e for e in replay if e["type"] == "tally.SecretsDealt")["data"]["secrets"]
    assert [i for i, s in enumerate(dealt) if s is not None] == [seat]
    assert (await client.get(f"/v1/games/{game_id}/events?as_seat=7")).status_code == 404


async def wait_for(check, timeout: float = 60.0) -> None:
    """Poll the async `check()` until it holds, with a generous deadline (never a fixed sleep)."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("projector", ["embedded", "off"])
async def test_an_open_transaction_holding_the_read_models_back_shows_in_readyz_and_metrics_of_every_replica(
        settings, games, pg_dsn, projector):
    import asyncpg

    settings = msgspec.structs.replace(settings, projector=projector)
    app = create_app(settings, games=games, extra={"metrics_port": 0})
    async with AsyncTestClient(app) as client:
        await started_game(client, "tally", 2)
        blocker = await asyncpg.connect(pg_dsn, server_settings={"application_name": "stuck-batch-job"})
        try:
            tx = blocker.transaction()
            await tx.start()
            await blocker.fetchval("SELECT pg_current_xact_id()")
            pid = await blocker.fetchval("SELECT pg_backend_pid()")
            await started_game(client, "tally", 2)  # committed after the open transaction began: held back

            async def stalled() -> bool:
                return (await client.get("/readyz")).json()["status"] == "degraded"

            await wait_for(stalled, timeout=60)
            ready = (await client.get("/readyz")).json()
            assert f"backend {pid}" in ready["checks"]["horizon"] and "stuck-batch-job" in ready["checks"]["horizon"]
            assert ready["details"]["horizon_blocked_seconds"] > 0
            if projector == "embedded":
                assert any(lag["seconds"] > 0 for lag in ready["details"]["projections"].values())
            text = (await scrape(app)).text
            held = [line for line in text.splitlines() if line.startswith("stela_projection_horizon_blocked_seconds ")]
            assert held and float(held[0].split()[1]) > 0
            await tx.rollback()

            async def recovered() -> bool:
                ready = (await client.get("/readyz")).json()
                return ready["status"] == "ok" and ready["checks"]["horizon"] == "ok"

            await wait_for(recovered, timeout=60)
        finally:
            await blocker.close()
