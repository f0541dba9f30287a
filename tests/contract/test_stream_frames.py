"""Real frames of every stream (game, in both styles; personal; tournament; multiplexed) validate against the
schema the served OpenAPI document gives that stream's `text/event-stream` response, and every kind of frame
the document names is seen at least once."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import jsonschema_rs

from service.edge.app import create_app
from tests.service.live.test_personal_stream import game_with
from tests.service.live.test_sse import add, wait_for
from testkit.api import player
from testkit.live import serving, sse_events

STREAMS = {"streamGame": "/v1/games/{game_id}/stream", "streamMyGames": "/v1/players/me/stream",
           "streamTournament": "/v1/tournaments/{tournament_id}/stream", "streamMany": "/v1/stream"}


def validator(document: dict[str, Any], operation: str) -> Any:
    schema = document["paths"][STREAMS[operation]]["get"]["responses"]["200"]["content"]["text/event-stream"]["schema"]
    return jsonschema_rs.Draft202012Validator({"components": document["components"], **schema})


async def follow(client: httpx.AsyncClient, url: str, headers: dict, out: list) -> None:
    async with client.stream("GET", url, headers=headers, timeout=30) as resp:
        assert resp.status_code == 200, await resp.aread()
        async for message in sse_events(resp):
            if "data" in message:
                out.append(json.loads(message["data"]))


async def test_frames_of_every_stream_match_the_document(settings, games):
    with serving(create_app(settings, games=games)) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            document = (await client.get("/schema/openapi.json")).json()
            ann, bob = await player(client, "Ann"), await player(client, "Bob")
            game_id = await game_with(client, [ann, bob], target=4)
            tournament = (await client.post("/v1/tournaments", headers=ann["headers"], json={
                "kind": "tally", "seats": 2, "rounds": 1, "options": {"target": 3}})).json()["tournament_id"]
            got: dict[str, list] = {name: [] for name in ("named", "message", "personal", "tournament", "many")}
            opened = {
                "named": f"/v1/games/{game_id}/stream", "message": f"/v1/games/{game_id}/stream?frames=message",
                "personal": "/v1/players/me/stream?legal=true", "tournament": f"/v1/tournaments/{tournament}/stream",
                "many": f"/v1/stream?games={game_id}&personal=true&legal=true"}
            tasks = [asyncio.create_task(follow(client, path, bob["headers"], got[name]))
                     for name, path in opened.items()]
            # every stream has caught up (the multiplexed one says so with `ready`: before it, its game's
            # snapshot may still be built after the commands below, and then it carries them, not `event`s)
            await wait_for(lambda: all(got.values()) and any(f.get("type") == "ready" for f in got["many"]))
            await add(client, game_id, ann, 2)
            await add(client, game_id, bob, 1)
            await add(client, game_id, ann, 2)  # 4: Ann wins
            for p in (ann, bob):
                await client.post(f"/v1/tournaments/{tournament}/register", headers=p["headers"], json={})
            await client.post(f"/v1/tournaments/{tournament}/start", headers=ann["headers"])
            await wait_for(lambda: any(f.get("type") == "game.ended" for f in got["many"]) and
                           any(f.get("type") == "game.ended" for f in got["personal"]) and len(got["tournament"]) > 2)
            await client.delete("/v1/players/me/token", headers=bob["headers"])
            await wait_for(lambda: any(f.get("type") == "end" for f in got["many"]))
            for task in tasks:
                task.cancel()

            for name, operation in (("named", "streamGame"), ("message", "streamGame"), ("personal", "streamMyGames"),
                                    ("tournament", "streamTournament"), ("many", "streamMany")):
                check = validator(document, operation)
                for frame in got[name]:
                    errors = [e.message for e in check.iter_errors(frame)]
                    assert not errors, f"{name}: {frame} -> {errors[:3]}"
            types = {f["type"] for f in got["many"]}
            assert types == {"snapshot", "event", "turn", "ready", "end", "game.state", "game.your_turn",
                             "game.ended"}, types
            assert any(f["type"] == "turn" and f.get("commands") for f in got["many"])
            assert {f["type"] for f in got["personal"]} >= {"game.state", "game.your_turn", "game.ended"}
            assert all(("commands" in f) == f["your_turn"] for f in got["personal"] if f["status"] == "active")


def test_a_frame_the_document_does_not_describe_is_refused(games):
    from service.edge.contract import enrich
    from service.edge.app import create_app as make
    from service.ops.settings import Settings

    document = enrich(make(Settings(database_url="postgresql://schema-only"), games=games).openapi_schema.to_schema(),
                      games)
    document = json.loads(json.dumps(document, default=str))
    many, personal = validator(document, "streamMany"), validator(document, "streamMyGames")
    assert not many.is_valid({"type": "turn", "game_id": "g", "version": 1})  # fields missing
    assert not many.is_valid({"type": "end", "reason": "bored"})
    assert not personal.is_valid({"type": "game.your_turn", "game_id": "g", "kind": "chess", "status": "active",
                                  "version": 1, "to_act": [0], "your_turn": True})
