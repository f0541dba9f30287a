"""Helpers to drive the HTTP API in tests: players, games, playing random legal games."""

from __future__ import annotations

import random
from typing import Any


async def player(client: Any, name: str = "Ann") -> dict[str, Any]:
    resp = await client.post("/v1/players", json={"name": name})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    body["headers"] = {"Authorization": f"Bearer {body['token']}"}
    return body


async def started_game(client: Any, kind: str, seats: int, options: dict[str, Any] | None = None
                       ) -> tuple[str, list[dict[str, Any]]]:
    """A started game with `seats` fresh players (seat i = players[i])."""
    players = [await player(client, f"P{i}") for i in range(seats)]
    resp = await client.post("/v1/games", json={"kind": kind, "seats": seats, "options": options or {}},
                             headers=players[0]["headers"])
    assert resp.status_code == 201, resp.text
    game_id = resp.json()["id"]
    for p in players[1:]:
        resp = await client.post(f"/v1/games/{game_id}/join", json={}, headers=p["headers"])
        assert resp.status_code == 200, resp.text
    resp = await client.post(f"/v1/games/{game_id}/start", headers=players[0]["headers"])
    assert resp.status_code == 200, resp.text
    return game_id, players


async def play_to_end(client: Any, game_id: str, players: list[dict[str, Any]], seed: int = 1,
                      max_commands: int = 5000) -> dict[str, Any]:
    """Random legal commands through the API until the game ends; returns the final game resource."""
    rnd = random.Random(seed)
    game = (await client.get(f"/v1/games/{game_id}")).json()
    for _ in range(max_commands):
        if game["status"] != "active":
            return (await client.get(f"/v1/games/{game_id}")).json()
        seat = rnd.choice(game["to_act"])
        headers = players[seat]["headers"]
        legal = (await client.get(f"/v1/games/{game_id}/legal", headers=headers)).json()
        assert legal["seat"] == seat and legal["commands"], legal
        command = rnd.choice(legal["commands"])
        resp = await client.post(f"/v1/games/{game_id}/commands", headers=headers,
                                 json={"command": command, "expected_version": legal["version"]})
        assert resp.status_code == 200, resp.text
        game = resp.json()
    raise AssertionError("the game did not end")


async def until(condition: Any, seconds: float = 30.0) -> None:
    """Poll `condition()` until it holds; fail after a generous deadline (never a fixed sleep)."""
    import asyncio
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        await asyncio.sleep(0.01)


def auth(p: dict[str, str]) -> dict[str, str]:
    """The bearer header of a player made by a test (`{"auth": "Bearer …"}`)."""
    return {"Authorization": p["auth"]}


async def found(check: Any, seconds: float = 60.0) -> Any:
    """Poll the coroutine function `check()` until it gives something truthy, and give that; fail after a
    generous deadline (never a fixed sleep)."""
    import asyncio

    deadline = asyncio.get_running_loop().time() + seconds
    while not (result := await check()):
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)
    return result
