"""Budgets shared by every replica: two apps on one Redis admit one budget between them, however the
requests are spread; open-stream caps hold across replicas; without Redis each counts alone, logged."""

from __future__ import annotations

import asyncio
import uuid

import msgspec
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from service.edge.ratelimit import Counters, rate_limit
from tests.conftest import REDIS_URL
from tests.service.edge.test_front_door import holding_app, one_rate_limit_window  # noqa: F401 - autouse: one window
from testkit.api import player, until


def two_replicas(settings, games, count=2, **changes):
    prefix = f"test:{uuid.uuid4().hex}:"  # this test's keys, apart from any other run on the same Redis
    shared = msgspec.structs.replace(settings, redis_url=REDIS_URL, **changes)
    return [create_app(shared, games=games, extra={"rate_limit_prefix": prefix}) for _ in range(count)]


async def test_a_new_tokens_burst_over_three_replicas_gets_its_budget_once_whichever_saw_it_first(settings, games):
    """A replica that had not seen a token counted it against the address, and once it knew it against the
    player: a burst got twice the budget through. The token's own budget holds from its first request."""
    replicas = two_replicas(settings, games, count=3, rate_limit=30)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b, \
            AsyncTestClient(replicas[2]) as c:
        ann = await player(a)
        burst = await asyncio.gather(*((a, b, c)[i % 3].get("/v1/players/me", headers=ann["headers"])
                                       for i in range(90)))
        statuses = [r.status_code for r in burst]
        assert 27 <= statuses.count(200) <= 33 and set(statuses) == {200, 429}, statuses  # within 10%
        assert statuses.count(200) == 30  # (margin 0 while Redis answers)
        refused = next(r for r in burst if r.status_code == 429)
        assert refused.headers["ratelimit-policy"] == '"api";q=30;w=60'
        assert refused.headers["ratelimit"].startswith('"api";r=0;')
        left = sorted(int(r.headers["ratelimit"].split("r=")[1].split(";")[0]) for r in burst if r.status_code == 200)
        assert left == list(range(30)), left  # each admitted request says what was left after it
        # the address's own budget was not touched by the token: its registration only
        assert (await b.get("/v1/kinds")).headers["ratelimit"].startswith('"api";r=28;')


async def test_anonymous_traffic_that_spends_an_address_locks_no_new_player_out_of_any_replica(settings, games):
    replicas = two_replicas(settings, games, count=3, rate_limit=10)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b, \
            AsyncTestClient(replicas[2]) as c:
        ann = await player(a)
        anonymous = [(await (a, b, c)[i % 3].get("/v1/kinds")).status_code for i in range(12)]
        assert anonymous == [200] * 9 + [429] * 3  # the registration was the address's first request
        for replica in (b, c, a):  # b and c have never seen the token
            answer = await replica.get("/v1/players/me", headers=ann["headers"])
            assert answer.status_code == 200, answer.text


async def test_made_up_tokens_spend_their_addresses_budget_of_refused_credentials_not_fresh_budgets(settings, games):
    """Each made-up token would be a budget of its own: a token refused with 401 is counted against its
    address (apart from anonymous requests), and once that is spent a replica refuses tokens it has not
    authenticated itself from the address; the ones it has, and anonymous requests, go on."""
    replicas = two_replicas(settings, games, count=3, rate_limit=6)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b, \
            AsyncTestClient(replicas[2]) as c:
        ann = await player(a)
        assert (await a.get("/v1/players/me", headers=ann["headers"])).status_code == 200  # known to a
        made_up = [(await (a, b, c)[i % 3].get("/v1/players/me", headers={"Authorization": f"Bearer {uuid.uuid4()}"}))
                   for i in range(15)]
        statuses = [r.status_code for r in made_up]
        # 6 refused credentials, then each replica admits one more before it learns the budget is spent
        assert statuses.count(401) <= 6 + 3 and statuses[-3:] == [429] * 3, statuses
        refused = made_up[-1]
        assert refused.json()["code"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1
        assert refused.headers["ratelimit-policy"] == '"credentials";q=6;w=60'
        assert (await a.get("/v1/players/me", headers=ann["headers"])).status_code == 200
        assert (await b.get("/v1/kinds")).status_code == 200


async def test_two_replicas_admit_one_budget_between_them_one_at_a_time_and_in_a_burst(settings, games):
    one, two = two_replicas(settings, games, rate_limit=30)
    async with AsyncTestClient(one) as a, AsyncTestClient(two) as b:
        sequential = [(await (a if i % 2 else b).get("/v1/kinds")).status_code for i in range(40)]
        assert sequential.count(200) == 30 and sequential[30:] == [429] * 10, sequential
    one, two = two_replicas(settings, games, rate_limit=30)
    async with AsyncTestClient(one) as a, AsyncTestClient(two) as b:
        burst = await asyncio.gather(*((a if i % 2 else b).get("/v1/kinds") for i in range(60)))
        statuses = [r.status_code for r in burst]
        assert statuses.count(200) == 30 and statuses.count(429) == 30, statuses  # margin 0 while Redis answers


class Asked:
    """Counts a Counters' calls of its lease script (its Redis round trips for budgets)."""

    def __init__(self, counters: Counters) -> None:
        self.calls, script = 0, counters._scripts[0]

        async def counted(*args, **kwargs):
            self.calls += 1
            return await script(*args, **kwargs)

        counters._scripts = (counted, *counters._scripts[1:])


async def test_a_busy_client_asks_redis_once_per_lease_not_once_per_request():
    import redis.asyncio as aioredis

    prefix, now = f"test:{uuid.uuid4().hex}:", 1_800_000_030.0
    client = aioredis.from_url(REDIS_URL)
    try:
        counters = Counters(client, prefix)
        asked = Asked(counters)
        counts = [await counters.hit("r:p:busy", now, 10_000) for _ in range(1000)]
        assert counts == list(range(1, 1001))  # each request counted once, in order
        # leases of 1, 2, 4, ... 64, then 64 each: 7 + 14 calls for 1,000 requests (one per request before)
        assert asked.calls == 21, asked.calls
        # a spent budget is refused without asking again in the same window
        spent = Counters(client, prefix)
        asked = Asked(spent)
        counts = await asyncio.gather(*(spent.hit("r:p:small", now, 50) for _ in range(100)))
        assert sorted(counts)[:50] == list(range(1, 51)) and all(c > 50 for c in sorted(counts)[50:]), counts
        before = asked.calls
        assert [await spent.hit("r:p:small", now, 50) for _ in range(5)] == [101, 102, 103, 104, 105]
        assert asked.calls == before
        assert await spent.hit("r:p:small", now + 60, 50) == 1  # the next window starts afresh
    finally:
        await client.aclose()


async def test_four_replicas_in_a_burst_admit_the_budget_exactly():
    import random

    import redis.asyncio as aioredis

    prefix, now = f"test:{uuid.uuid4().hex}:", 1_800_000_030.0
    clients = [aioredis.from_url(REDIS_URL) for _ in range(4)]
    try:
        counters = [Counters(c, prefix) for c in clients]
        draw = random.Random(7)
        spread = [draw.randrange(4) for _ in range(400)]
        counts = await asyncio.gather(*(counters[i].hit("r:p:burst", now, 100) for i in spread))
        admitted = [c for c in counts if c <= 100]
        assert len(admitted) == 100, (len(admitted), counts)  # never more than the budget, and all of it used
        assert await clients[0].get(f"{prefix}rl:r:p:burst:{int(now // 60)}") == b"100"
    finally:
        for c in clients:
            await c.aclose()


async def test_the_open_stream_cap_holds_across_replicas_and_frees_when_a_stream_closes():
    import redis.asyncio as aioredis

    prefix = f"test:{uuid.uuid4().hex}:"
    app, send, release, statuses, _ = holding_app()
    clients = [aioredis.from_url(REDIS_URL) for _ in range(2)]
    counters = [Counters(c, prefix) for c in clients]
    replicas = [rate_limit(0, 0, 2, (), c, lambda _: None)(app) for c in counters]
    scope = {"type": "http", "method": "GET", "path": "/v1/games/g/stream", "client": ("192.0.2.1", 1), "headers": []}
    try:
        streams = [asyncio.create_task(replicas[0](dict(scope), None, send)) for _ in range(2)]
        await until(lambda: len(statuses) == 2)
        await replicas[1](dict(scope), None, send)  # the other replica sees both open streams
        assert statuses == [200, 200, 429]
        release.set()
        await asyncio.gather(*streams)
        statuses.clear()
        release.clear()
        third = asyncio.create_task(replicas[1](dict(scope), None, send))
        await until(lambda: statuses == [200])
        release.set()
        await third
    finally:
        for c in counters:
            await c.close()
        for c in clients:
            await c.aclose()


async def test_a_replica_killed_with_streams_open_frees_their_slots_when_the_leases_lapse(monkeypatch):
    import redis.asyncio as aioredis

    from service.edge import ratelimit

    monkeypatch.setattr(ratelimit, "LEASE", 1)
    prefix = f"test:{uuid.uuid4().hex}:"
    client = aioredis.from_url(REDIS_URL)
    dead, alive = Counters(client, prefix), Counters(client, prefix)
    try:
        assert await dead.open_stream("a:x", 1) is not None
        dead._renewer.cancel()  # the replica is gone: nobody renews or gives back its lease
        assert await alive.open_stream("a:x", 1) is None
        lease = None
        deadline = asyncio.get_running_loop().time() + 30
        while lease is None:
            assert asyncio.get_running_loop().time() < deadline, "the lease never lapsed"
            await asyncio.sleep(0.2)
            lease = await alive.open_stream("a:x", 1)
    finally:
        await alive.close()
        await client.aclose()


async def test_without_redis_each_replica_counts_alone_and_says_so(monkeypatch):
    import types

    import redis.asyncio as aioredis

    from service.edge import ratelimit

    said: list[str] = []
    monkeypatch.setattr(ratelimit, "log", types.SimpleNamespace(warning=lambda event, **_: said.append(event)))
    dead = aioredis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.25)
    counters = Counters(dead)
    assert [await counters.hit("k", 1_800_000_030.0, 2) for _ in range(3)] == [1, 2, 3]
    assert await counters.open_stream("a:x", 1) is not None
    assert await counters.open_stream("a:x", 1) is None
    assert "rate_limit_redis_unavailable" in said
    await dead.aclose()


async def test_a_budget_is_known_spent_here_without_asking_redis_once_this_process_counted_it_so():
    import redis.asyncio as aioredis

    prefix, now = f"test:{uuid.uuid4().hex}:", 1_800_000_030.0
    client = aioredis.from_url(REDIS_URL)
    try:
        for counters in (Counters(), Counters(client, prefix)):  # alone, and shared
            assert not counters.spent("r:x:a", now, 3)
            for _ in range(3):
                assert not counters.spent("r:x:a", now, 3)
                await counters.hit("r:x:a", now, 3)
            assert counters.spent("r:x:a", now, 3) and not counters.spent("r:x:b", now, 3)
            assert not counters.spent("r:x:a", now + 60, 3)  # the next window starts afresh
    finally:
        await client.aclose()
