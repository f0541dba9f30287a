"""Stream tickets on the wire: issued to players, opening one game's stream as the holder's seat.

Also the `frames=message` option: every frame a default `message` event carrying its type.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import msgspec
import pytest

from service.edge.app import create_app
from tests.service.live.test_sse import add, collect, wait_for
from testkit.api import player, started_game
from testkit.live import free_port, serving



@pytest.fixture
def base_url(settings, games):
    with serving(create_app(msgspec.structs.replace(settings, log_level="info"), games=games)) as url:
        yield url


async def ticket_for(client: httpx.AsyncClient, game_id: str, who: dict) -> str:
    resp = await client.post(f"/v1/games/{game_id}/stream-tickets", headers=who["headers"], json={})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert body["expires_at"] and body["ticket"]
    return body["ticket"]


def secrets_seen(messages: list[dict]) -> list[int | None]:
    dealt = [json.loads(m["data"]) for m in messages if m.get("event") == "tally.SecretsDealt"]
    return dealt[0]["data"]["secrets"]


async def test_a_ticket_opens_the_stream_as_the_holders_seat_and_a_spectator_needs_none(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 100})
        ticket = await ticket_for(client, game_id, players[1])
        seat: list = []
        task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream?ticket={ticket}", {}, seat))
        spectator: list = []
        other = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", {}, spectator))
        await wait_for(lambda: any(m.get("event") == "snapshot" for m in seat + spectator) and
                       len([m for m in seat + spectator if m.get("event") == "snapshot"]) == 2)
        version = await add(client, game_id, players[0])
        await wait_for(lambda: any(m.get("id") == str(version) for m in seat) and
                       any(m.get("id") == str(version) for m in spectator))
        task.cancel()
        other.cancel()
        snapshot = json.loads(next(m for m in seat if m.get("event") == "snapshot")["data"])
        assert snapshot["your_seat"] == 1 and snapshot["view"]["seat"] == 1
        assert json.loads(next(m for m in spectator if m.get("event") == "snapshot")["data"])["your_seat"] is None
        resumed: list = []
        task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream?ticket={ticket}",
                                           {"Last-Event-ID": "0"}, resumed))
        await wait_for(lambda: any(m.get("id") == str(version) for m in resumed))
        task.cancel()
        mine = secrets_seen(resumed)
        assert mine[1] is not None and mine[0] is None, "seat 1 sees its own secret only"


async def test_bad_expired_and_foreign_tickets_are_401_problems_before_the_stream(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        game_id, players = await started_game(client, "tally", 2)
        other_game, _ = await started_game(client, "tally", 2)
        foreign = await ticket_for(client, other_game, players[0])
        personal = (await client.post("/v1/players/me/stream-tickets", headers=players[0]["headers"])).json()
        for bad in ("nonsense", foreign, personal["ticket"], foreign[:-2] + "xx"):
            resp = await client.get(f"/v1/games/{game_id}/stream", params={"ticket": bad})
            assert resp.status_code == 401, resp.text
            assert resp.headers["content-type"].startswith("application/problem+json")
            assert resp.json()["code"] == "unauthorized"


async def test_tickets_are_for_registered_players_and_known_games(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        game_id, players = await started_game(client, "tally", 2)
        assert (await client.post(f"/v1/games/{game_id}/stream-tickets")).status_code == 401
        assert (await client.post("/v1/players/me/stream-tickets")).status_code == 401
        resp = await client.post("/v1/games/nope/stream-tickets", headers=players[0]["headers"])
        assert resp.status_code == 404 and resp.json()["code"] == "game_not_found"
        outsider = await player(client, "Outsider")
        ticket = await ticket_for(client, game_id, outsider)  # any player may follow; as a spectator here
        got: list = []
        task = asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream?ticket={ticket}", {}, got))
        await wait_for(lambda: any(m.get("event") == "snapshot" for m in got))
        task.cancel()
        assert json.loads(next(m for m in got if m.get("event") == "snapshot")["data"])["your_seat"] is None


async def test_a_ticket_never_appears_in_a_log_line(pg_dsn, tmp_path):
    log_file = tmp_path / "stela.log"
    port = free_port()
    env = {**os.environ, "DATABASE_URL": pg_dsn, "STELA_PORT": str(port), "STELA_LOG_LEVEL": "info",
           "STELA_METRICS_PORT": str(free_port()),
           "STELA_RATE_LIMIT": "0", "STELA_PROJECTOR": "off"}
    env.pop("REDIS_URL", None)
    with open(log_file, "wb") as sink:
        proc = subprocess.Popen([str(Path(sys.executable).with_name("stela")), "serve"], env=env, stderr=sink)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
                await wait_for(lambda: proc.poll() is None and _up(port), timeout=60)
                game_id, players = await started_game(client, "goldmine", 2)
                ticket = await ticket_for(client, game_id, players[0])
                got: list = []
                await collect(client, f"/v1/games/{game_id}/stream?ticket={ticket}", {}, got, 1)
                resp = await client.get(f"/v1/games/{game_id}/stream", params={"ticket": ticket + "x"})
                assert resp.status_code == 401
        finally:
            proc.terminate()
            proc.wait(30)
    text = log_file.read_text()
    assert f'"path":"/v1/games/{game_id}/stream"' in text, "the access log is on"
    assert ticket.partition(".")[0] not in text and ticket.partition(".")[2] not in text


def _up(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


async def test_message_frames_carry_their_type_and_have_no_event_name(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        game_id, players = await started_game(client, "tally", 2, {"target": 100})
        got: list = []
        url = f"/v1/games/{game_id}/stream?frames=message"
        task = asyncio.create_task(collect(client, url, players[0]["headers"], got))
        await wait_for(lambda: any("data" in m for m in got))
        v1 = await add(client, game_id, players[0])
        await wait_for(lambda: any(m.get("id") == str(v1) for m in got))
        task.cancel()
        frames = [m for m in got if "data" in m]
        assert not any("event" in m for m in frames)
        snapshot = json.loads(frames[0]["data"])
        assert snapshot["type"] == "snapshot" and snapshot["game"]["id"] == game_id
        assert snapshot["game"]["your_seat"] == 0 and int(frames[0]["id"]) == snapshot["game"]["version"]
        added = json.loads(frames[-1]["data"])
        assert added["type"] == "tally.Added" and added["version"] == v1 and set(added) == {"version", "type", "data", "at"}
        resumed: list = []
        task = asyncio.create_task(collect(client, url, {"Last-Event-ID": str(v1 - 1)}, resumed, 1))
        await task
        assert [int(m["id"]) for m in resumed if "id" in m] == [v1] and "event" not in resumed[-1]
