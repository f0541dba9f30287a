"""Hidden information never reaches another seat: views, events, past versions, streams, errors.

The test game deals each seat a secret; the game's seed is secret until the end. We read
everything a seat or a spectator can read while the game runs and search it for secrets.
"""

from __future__ import annotations

import asyncio
import json

import httpx

from service.edge.app import create_app
from tests.service.live.test_sse import collect, wait_for
from testkit.api import play_to_end, player, started_game
from testkit.live import serving

ADMIN = {"Authorization": "Bearer admin-secret"}


async def secrets_of(client, game_id) -> tuple[list[int], str]:
    log = (await client.get(f"/v1/games/{game_id}/events", headers=ADMIN)).json()["events"]
    dealt = next(e for e in log if e["type"] == "tally.SecretsDealt")["data"]["secrets"]
    seed = next(e for e in log if e["type"] == "table.GameCreated")["data"]["seed"]
    return dealt, seed


def dealt_in(payload: str) -> list:
    """Every `secrets` list that appears in a JSON text."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if "secrets" in node:
                found.append(node["secrets"])
            if "my_secret" in node:
                found.append(node["my_secret"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(payload))
    return found


async def test_no_read_shows_a_seat_another_seats_secret_or_anyone_the_seed(settings, games):
    with serving(create_app(settings, games=games)) as url:
        async with httpx.AsyncClient(base_url=url) as client:
            game_id, players = await started_game(client, "tally", 3, {"target": 200})
            stranger = await player(client, "Spectator")
            dealt, seed = await secrets_of(client, game_id)
            streams = {seat: [] for seat in range(3)}
            streams["spectator"] = []
            tasks = [asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream",
                                                 players[s]["headers"], streams[s])) for s in range(3)]
            tasks.append(asyncio.create_task(collect(client, f"/v1/games/{game_id}/stream", stranger["headers"],
                                                     streams["spectator"])))
            await wait_for(lambda: all(any(m.get("event") == "snapshot" for m in v) for v in streams.values()))
            for i in range(4):
                resp = await client.post(f"/v1/games/{game_id}/commands", headers=players[i % 3]["headers"],
                                         json={"command": {"type": "tally.Add", "amount": 1}})
                assert resp.status_code == 200
            await wait_for(lambda: all(len([m for m in v if "id" in m]) >= 5 for v in streams.values()))
            for task in tasks:
                task.cancel()
            readers = {s: players[s]["headers"] for s in range(3)}
            readers["spectator"] = stranger["headers"]
            readers["anonymous"] = {}
            for who, headers in readers.items():
                texts = [(await client.get(f"/v1/games/{game_id}", headers=headers)).text,
                         (await client.get(f"/v1/games/{game_id}/events", headers=headers)).text,
                         (await client.get(f"/v1/games/{game_id}/legal", headers=headers)).text]
                for version in range(1, 9):
                    texts.append((await client.get(f"/v1/games/{game_id}/versions/{version}",
                                                   headers=headers)).text)
                texts += [m["data"] for m in streams.get(who, []) if "data" in m]
                for text in texts:
                    assert seed not in text, f"{who} saw the seed"
                    for secrets in dealt_in(text):
                        shown = secrets if isinstance(secrets, list) else [secrets]
                        own = dealt[who] if isinstance(who, int) else None
                        assert all(v is None or v == own for v in shown), f"{who} saw {shown}"
                        if isinstance(secrets, list) and isinstance(who, int):
                            assert [i for i, v in enumerate(secrets) if v is not None] in ([who], [])
                past = await client.get(f"/v1/games/{game_id}/versions/6?seat=0", headers=headers)
                assert past.status_code == (200 if who == 0 else 403)


async def test_after_the_end_the_whole_log_and_every_seats_past_view_are_public(client):
    game_id, players = await started_game(client, "tally", 2, {"target": 6})
    await play_to_end(client, game_id, players)
    log = (await client.get(f"/v1/games/{game_id}/events")).json()["events"]
    created = next(e for e in log if e["type"] == "table.GameCreated")
    revealed = next(e for e in log if e["type"] == "table.SeedRevealed")
    assert created["data"]["seed"] == revealed["data"]["seed"]
    dealt = next(e for e in log if e["type"] == "tally.SecretsDealt")["data"]["secrets"]
    assert None not in dealt
    as_seat_1 = (await client.get(f"/v1/games/{game_id}/versions/6?seat=1")).json()
    assert as_seat_1["your_seat"] == 1 and as_seat_1["view"]["my_secret"] == dealt[1]
