"""An arena through the async client against a real server: the organiser enters bots, and its stream
gives the arena's state on connect, then each event as it happens, and its standings after each run."""

from __future__ import annotations

import asyncio

from stela_client import Client


async def test_an_arena_with_bots_is_followed_live_from_its_state_on_connect(server):
    async with Client(server.url) as host, Client(server.url) as ann:
        await host.register("Host")
        await ann.register("Ann")
        arena = await host.create_arena("coatl", minutes=5, seats=2, starts_in_seconds=600, name="with bots")
        aid = arena.arena_id
        entered = await host.add_arena_bots(aid, count=2, strategy="random", strength=1)
        assert entered.players == 2 and all(" bot " in s.name for s in entered.standings)
        stream = host.arena_stream(aid)
        try:
            following = asyncio.create_task(anext(stream))
            deadline = asyncio.get_running_loop().time() + 60
            while stream.snapshot is None:  # connected: the arena as it stands
                assert asyncio.get_running_loop().time() < deadline, "the arena's stream never connected"
                await asyncio.sleep(0.05)
            assert stream.snapshot["players"] == 2 and not following.done()
            await ann.join_arena(aid)
            joined = await asyncio.wait_for(following, 60)
            assert joined.type == "arena.PlayerJoined" and joined.version == 4  # created, two bots, Ann
            reading = asyncio.create_task(anext(stream))  # reads on: the standings frame that follows the run
            deadline = asyncio.get_running_loop().time() + 60
            while stream.snapshot["players"] != 3:
                assert asyncio.get_running_loop().time() < deadline, "no standings after Ann joined"
                await asyncio.sleep(0.05)
            assert not reading.done()  # a standings frame is no event
            reading.cancel()
        finally:
            await stream.aclose()
        assert [e.type for e in (await host.arena_events(aid)).events][-1] == "arena.PlayerJoined"
