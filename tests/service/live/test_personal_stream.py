"""The personal stream: one connection follows all of a player's games, resumable with Last-Event-ID."""

from __future__ import annotations

import asyncio
import json

import httpx
import msgspec
import pytest

from service.edge.app import create_app
from tests.service.live.test_sse import add, collect, wait_for
from tests.service.live.test_stream_live import CountingStore
from testkit.api import player
from testkit.live import serving

ME = "/v1/players/me/stream"


@pytest.fixture
def base_url(server):
    """The worker's shared server (tests/conftest.py)."""
    return server


async def game_with(client: httpx.AsyncClient, seats: list[dict], target: int = 100, start: bool = True) -> str:
    """A tally game with `seats[i]` in seat i, started unless told otherwise."""
    resp = await client.post("/v1/games", json={"kind": "tally", "seats": len(seats), "options": {"target": target}},
                             headers=seats[0]["headers"])
    assert resp.status_code == 201, resp.text
    game_id = resp.json()["id"]
    for p in seats[1:]:
        assert (await client.post(f"/v1/games/{game_id}/join", json={}, headers=p["headers"])).status_code == 200
    if start:
        assert (await client.post(f"/v1/games/{game_id}/start", headers=seats[0]["headers"])).status_code == 200
    return game_id


def notices(messages: list[dict]) -> list[dict]:
    return [json.loads(m["data"]) for m in messages if "data" in m]


def has(messages: list[dict], type_: str, game_id: str, **fields) -> bool:
    return any(n["type"] == type_ and n["game_id"] == game_id and all(n[k] == v for k, v in fields.items())
               for n in notices(messages))


async def test_turn_notifications_of_two_games_arrive_on_one_connection(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob, cid = await player(client, "Ann"), await player(client, "Bob"), await player(client, "Cid")
        first, second = await game_with(client, [ann, bob]), await game_with(client, [cid, bob])
        got: list = []
        task = asyncio.create_task(collect(client, ME, bob["headers"], got))
        await wait_for(lambda: len(notices(got)) == 2)
        states = {n["game_id"]: n for n in notices(got)}
        assert set(states) == {first, second} and all(n["type"] == "game.state" for n in states.values())
        assert all(n["status"] == "active" and n["to_act"] == [0] and not n["your_turn"] for n in states.values())
        assert not any("event" in m for m in got if "data" in m), "default message events"
        await add(client, first, ann)
        await add(client, second, cid)
        await wait_for(lambda: has(got, "game.your_turn", first) and has(got, "game.your_turn", second))
        await add(client, first, bob)  # Bob's own move: no notice for it
        v = await add(client, first, ann)
        await wait_for(lambda: has(got, "game.your_turn", first, version=v))
        task.cancel()
        turns = [n for n in notices(got) if n["type"] == "game.your_turn"]
        assert len(turns) == 3 and all(n["your_turn"] and n["to_act"] == [1] for n in turns)
        ids = [int(m["id"]) for m in got if "id" in m]
        assert ids == sorted(ids), "the cursor never goes back"


async def test_resuming_with_last_event_id_misses_nothing(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob = await player(client, "Ann"), await player(client, "Bob")
        running, ending = await game_with(client, [ann, bob]), await game_with(client, [ann, bob], target=3)
        long_over = await game_with(client, [ann, bob], target=3)
        await add(client, long_over, ann, 3)
        got: list = []
        task = asyncio.create_task(collect(client, ME, bob["headers"], got))
        await wait_for(lambda: len(notices(got)) == 2)
        assert {n["game_id"] for n in notices(got)} == {running, ending}, "finished games are not announced"
        task.cancel()
        last_id = [m for m in got if "id" in m][-1]["id"]
        # while Bob is away: his turn comes in one game, the other ends
        v = await add(client, running, ann)
        await add(client, ending, ann, 3)
        again: list = []
        task = asyncio.create_task(collect(client, ME, {**bob["headers"], "Last-Event-ID": last_id}, again))
        await wait_for(lambda: len(notices(again)) >= 2)
        task.cancel()
        states = {n["game_id"]: n for n in notices(again)}
        assert states[running]["version"] == v and states[running]["your_turn"]
        assert states[ending]["status"] == "finished" and states[ending]["outcome"]["winners"] == [0]


async def test_a_game_joined_after_connecting_is_followed(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob = await player(client, "Ann"), await player(client, "Bob")
        got: list = []
        task = asyncio.create_task(collect(client, ME, bob["headers"], got))
        await wait_for(lambda: any(m.get("retry") for m in got))
        resp = await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {"target": 100}},
                                 headers=ann["headers"])
        game_id = resp.json()["id"]
        assert (await client.post(f"/v1/games/{game_id}/join", json={}, headers=bob["headers"])).status_code == 200
        await wait_for(lambda: has(got, "game.state", game_id, status="open"))
        assert (await client.post(f"/v1/games/{game_id}/start", headers=ann["headers"])).status_code == 200
        await wait_for(lambda: has(got, "game.started", game_id, status="active"))
        await add(client, game_id, ann, 3)
        await wait_for(lambda: has(got, "game.your_turn", game_id))
        task.cancel()


async def test_a_personal_ticket_opens_the_personal_stream_and_nothing_else_does(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob = await player(client, "Ann"), await player(client, "Bob")
        game_id = await game_with(client, [ann, bob])
        assert (await client.get(ME)).status_code == 401
        game_ticket = (await client.post(f"/v1/games/{game_id}/stream-tickets", headers=bob["headers"])).json()
        assert (await client.get(ME, params={"ticket": game_ticket["ticket"]})).status_code == 401
        assert (await client.get(ME, headers={**bob["headers"], "Last-Event-ID": "x"})).status_code == 400
        ticket = (await client.post("/v1/players/me/stream-tickets", headers=bob["headers"])).json()["ticket"]
        got: list = []
        task = asyncio.create_task(collect(client, f"{ME}?ticket={ticket}", {}, got))
        await wait_for(lambda: has(got, "game.state", game_id))
        task.cancel()


async def test_an_idle_personal_stream_makes_no_query(settings, games):
    store = CountingStore()
    app = create_app(msgspec.structs.replace(settings, heartbeat_seconds=0.1), games=games, store=store)
    with serving(app) as url:
        async with httpx.AsyncClient(base_url=url) as client:
            ann, bob = await player(client, "Ann"), await player(client, "Bob")
            game_id = await game_with(client, [ann, bob])
            got: list = []
            task = asyncio.create_task(collect(client, ME, bob["headers"], got))
            await wait_for(lambda: has(got, "game.state", game_id))
            reads = store.reads
            await wait_for(lambda: sum(1 for m in got if m.get("comment") == "heartbeat") >= 5)
            assert store.reads == reads
            await add(client, game_id, ann)  # a live turn needs no query either: the state is cached
            await wait_for(lambda: has(got, "game.your_turn", game_id))
            task.cancel()
            assert app.state.services.personal.queries == 0


async def test_with_legal_a_notice_of_your_turn_carries_the_seats_legal_commands(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob = await player(client, "Ann"), await player(client, "Bob")
        game_id = await game_with(client, [ann, bob])
        got: list = []
        task = asyncio.create_task(collect(client, ME + "?legal=true", bob["headers"], got))
        await wait_for(lambda: has(got, "game.state", game_id))
        assert "commands" not in notices(got)[0], "not Bob's turn: no commands"
        v = await add(client, game_id, ann)
        await wait_for(lambda: has(got, "game.your_turn", game_id, version=v))
        task.cancel()
        legal = (await client.get(f"/v1/games/{game_id}/legal", headers=bob["headers"])).json()
        turn = next(n for n in notices(got) if n["type"] == "game.your_turn")
        assert legal["version"] == v and turn["commands"] == legal["commands"] != []


async def test_a_turn_notice_sent_after_the_game_moved_on_takes_its_commands_from_the_announced_state():
    """The hub announced the turn from the game's state at that version; a connection that sends the notice
    once the player has already acted (a busy process, a queue of notices) lists the commands of that
    version from it, not by reading and folding the whole stream again."""
    from functools import partial
    from types import SimpleNamespace

    from service.commands.pipeline import CommandPipeline
    from service.commands.players import Players
    from service.commands.repository import GameRepository
    from service.live.fanout import Broker
    from service.live.multiplex import with_commands
    from service.live.personal import PersonalHub
    from service.store.memory import MemoryStore
    from tests.service.commands.test_pipeline import seated_game
    from testkit.tally import TALLY

    store, broker = MemoryStore(), Broker()
    repository = GameRepository(store, {"tally": TALLY}, 50)
    service = SimpleNamespace(players=Players(store), pipeline=CommandPipeline(repository, store, broker))
    hub = PersonalHub(repository, store, broker)
    game_id, viewers = await seated_game(service, 2)
    bob = viewers[1].player_id
    stream = hub.stream(bob, None, heartbeat=60, decorate=partial(with_commands, repository, bob))
    reads = []
    read_stream = store.read_stream

    async def counted(*args, **kwargs):
        reads.append(args)
        return await read_stream(*args, **kwargs)

    try:
        assert (await anext(stream)).startswith(b"retry")
        assert b'"game.state"' in await anext(stream)
        conn = next(iter(hub.connections[bob]))
        await service.pipeline.command(viewers[0], game_id, {"type": "tally.Add", "amount": 1}, None, None)
        await wait_for(lambda: conn.queue.qsize() == 1)  # Bob's turn, at version v, not yet sent
        turn = (await repository.cached(game_id)).state.version
        await service.pipeline.command(viewers[1], game_id, {"type": "tally.Add", "amount": 2}, None, None)
        assert (await repository.cached(game_id)).state.version == turn + 1
        store.read_stream = counted
        sent = json.loads((await anext(stream)).split(b"data: ", 1)[1])
        assert sent["type"] == "game.your_turn" and sent["version"] == turn
        assert sent["commands"] == [{"type": "tally.Add", "amount": a} for a in (1, 2, 3)] + [{"type": "tally.Roll"}]
        assert reads == []
    finally:
        await stream.aclose()
        await hub.close()
