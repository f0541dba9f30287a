"""The multiplexed stream on one replica follows commands made on another (through Redis), with exact
`turn` frames and legal commands folded from another replica's batches, and its personal notices."""

from __future__ import annotations

import asyncio

import httpx

from service.edge.app import create_app
from tests.service.live.test_personal_stream import game_with
from tests.service.live.test_redis_fanout import redis_server, with_redis  # noqa: F401 - redis_server: the fixture
from tests.service.live.test_sse import add, wait_for
from tests.service.live.test_stream_multiplexed import MUX, events_of, follow, frames
from testkit.api import player
from testkit.live import serving



async def test_commands_on_one_replica_reach_a_multiplexed_stream_on_another(settings, games, redis_server):  # noqa: F811
    cfg = with_redis(settings, redis_server.url)
    with serving(create_app(cfg, games=games)) as url_a, serving(create_app(cfg, games=games)) as url_b:
        async with httpx.AsyncClient(base_url=url_a) as a, httpx.AsyncClient(base_url=url_b) as b:
            ann, bob = await player(a, "Ann"), await player(a, "Bob")
            first, second = await game_with(a, [ann, bob]), await game_with(a, [bob, ann])
            got: list = []
            task = asyncio.create_task(follow(b, f"{MUX}?games={first},{second}&personal=true&legal=true",
                                              bob["headers"], got))
            await wait_for(lambda: frames(got, "ready"))
            moves = [await add(a, first, ann), await add(a, second, bob), await add(a, second, ann)]
            await wait_for(lambda: events_of(got, first) == moves[:1] and events_of(got, second) == moves[1:],
                           timeout=20)
            await wait_for(lambda: any(t["version"] == moves[0] for t in frames(got, "turn", first)) and
                           frames(got, "game.your_turn", first), timeout=20)
            task.cancel()
            legal = (await a.get(f"/v1/games/{first}/legal", headers=bob["headers"])).json()
            turn = next(t for t in frames(got, "turn", first) if t["version"] == moves[0])
            assert turn["your_turn"] and turn["commands"] == legal["commands"] != []
            assert frames(got, "game.your_turn", first)[-1]["commands"] == legal["commands"]
