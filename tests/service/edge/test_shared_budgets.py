"""Budgets shared by every replica: two apps on one Redis admit one budget between them, however the
requests are spread; a player's tokens share one budget that every replica finds from the tokens' issue;
tokens no replica knows cost their address and cannot lock real ones out; open-stream caps hold across
replicas; without Redis each counts alone, logged."""

from __future__ import annotations

import asyncio
import uuid

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from service.edge.ratelimit import Counters, rate_limit
from tests.conftest import REDIS_URL, fresh_database
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


async def test_made_up_tokens_spend_their_addresses_budget_for_unknown_tokens_not_fresh_budgets(settings, games):
    """Each made-up token would be a budget of its own: a token no replica knows draws from its address's
    budget for unknown tokens, before the app looks it up, and that budget holds across replicas; a
    player's token and anonymous requests never touch it."""
    replicas = two_replicas(settings, games, count=3, rate_limit=6)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b, \
            AsyncTestClient(replicas[2]) as c:
        ann = await player(a)
        made_up = [(await (a, b, c)[i % 3].get("/v1/players/me", headers={"Authorization": f"Bearer {uuid.uuid4()}"}))
                   for i in range(15)]
        statuses = [r.status_code for r in made_up]
        assert statuses == [401] * 6 + [429] * 9, statuses  # margin 0 while Redis answers
        assert made_up[0].headers["ratelimit"].startswith('"credentials";r=5;')
        refused = made_up[-1]
        assert refused.json()["code"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1
        assert refused.headers["ratelimit-policy"] == '"credentials";q=6;w=60'
        assert refused.headers["ratelimit"].startswith('"credentials";r=0;')
        mine = await c.get("/v1/players/me", headers=ann["headers"])  # c never saw ann's token
        assert mine.status_code == 200 and mine.headers["ratelimit"].startswith('"api";r=5;'), mine.headers
        assert (await b.get("/v1/kinds")).headers["ratelimit"].startswith('"api";r=4;')  # 2 of the address's


async def test_made_up_tokens_that_spend_an_address_lock_no_newly_signed_in_player_out_of_any_replica(
        settings, games):
    """Once an address's budget of refused tokens was spent, a replica refused every token it had not
    authenticated itself from that address: bogus tokens from a shared address (a NAT, the proxy) locked
    newly signed-in players out of the replicas that had not met their tokens yet. A token issued on any
    replica is known to all before its client holds it."""
    replicas = two_replicas(settings, games, count=3, rate_limit=6)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b, \
            AsyncTestClient(replicas[2]) as c:
        ann = await player(a)
        login, password = f"ann-{uuid.uuid4().hex[:8]}", "correct horse battery staple"
        assert (await a.post("/v1/players/me/password", json={"login": login, "password": password},
                             headers=ann["headers"])).status_code in (200, 201)
        made_up = [(await (a, b, c)[i % 3].get("/v1/players/me", headers={"Authorization": f"Bearer {uuid.uuid4()}"}))
                   .status_code for i in range(12)]
        assert made_up[-3:] == [429] * 3, made_up  # the address's budget is spent, as every replica knows
        session = await a.post("/v1/sessions", json={"login": login, "password": password})
        assert session.status_code == 201, session.text
        signed_in = {"Authorization": f"Bearer {session.json()['token']}"}
        bob = await player(c)  # signed up on c
        for replica in (b, c, a):  # b has met neither token, c not the session, a not bob's
            for headers in (signed_in, bob["headers"]):
                answer = await replica.get("/v1/players/me", headers=headers)
                assert answer.status_code == 200, answer.text
                assert answer.headers["ratelimit-policy"] == '"api";q=6;w=60'


async def test_a_player_signed_in_on_one_process_is_not_locked_out_by_made_up_tokens_without_redis(settings, games):
    app = create_app(msgspec.structs.replace(settings, rate_limit=4), games=games)
    async with AsyncTestClient(app) as client:
        made_up = [(await client.get("/v1/players/me", headers={"Authorization": f"Bearer {uuid.uuid4()}"}))
                   .status_code for _ in range(6)]
        assert made_up == [401] * 4 + [429] * 2, made_up
        ann = await player(client)  # a token this process never authenticated yet
        assert (await client.get("/v1/players/me", headers=ann["headers"])).status_code == 200


async def test_two_tokens_of_one_player_share_one_budget_over_three_replicas(settings, games):
    """A budget per token let a player with k tokens through k times its budget: the tokens of one player,
    whichever replica issued them, draw from the player's one budget, within 10% across three replicas."""
    replicas = two_replicas(settings, games, count=3, rate_limit=30)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b, \
            AsyncTestClient(replicas[2]) as c:
        ann = await player(a)
        made = await b.post("/v1/players/me/tokens", json={"name": "my bot", "scopes": ["read"]},
                            headers=ann["headers"])  # 1 of ann's budget
        assert made.status_code == 201, made.text
        tokens = (ann["headers"], {"Authorization": f"Bearer {made.json()['token']}"})
        burst = await asyncio.gather(*((a, b, c)[i % 3].get("/v1/players/me", headers=tokens[i % 2])
                                       for i in range(120)))
        statuses = [r.status_code for r in burst]
        admitted = 1 + statuses.count(200)
        assert 27 <= admitted <= 33 and set(statuses) == {200, 429}, (admitted, statuses)  # within 10%
        assert admitted == 30  # (margin 0 while Redis answers)
        assert all(r.headers["ratelimit-policy"] == '"api";q=30;w=60' for r in burst)


async def test_an_apps_token_draws_from_its_players_budget_on_every_replica_from_its_issue(settings, games):
    from tests.service.edge.test_oauth import granted

    replicas = two_replicas(settings, games, rate_limit=10)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b:
        _, who, tokens = await granted(a)  # the consent was 1 of the player's budget
        answer = await b.get("/v1/players/me", headers={"Authorization": f"Bearer {tokens['access_token']}"})
        assert answer.status_code == 200 and answer.json()["id"] == who["id"]
        assert answer.headers["ratelimit"].startswith('"api";r=8;'), answer.headers
        assert (await b.get("/v1/players/me", headers=who["headers"])).headers["ratelimit"].startswith('"api";r=7;')


@pytest.fixture
def own_database():
    """A database of this test's own: bots other tests left in the shared one would fill a worker's lease."""
    with fresh_database("stela_budget_bots") as dsn:
        yield dsn


async def test_a_bots_token_from_a_lease_draws_from_the_bots_budget_on_every_replica(settings, games, own_database):
    replicas = two_replicas(msgspec.structs.replace(settings, database_url=own_database), games, rate_limit=10)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b:
        who = await player(a)
        made = await a.post("/v1/games", headers=who["headers"], json={
            "kind": "tally", "seats": 2, "options": {"target": 12}, "join": True, "bots": [{"strategy": "random"}]})
        assert made.status_code == 201, made.text
        leases = await a.post("/v1/bots/leases", json={"worker": "w"},
                              headers={"Authorization": f"Bearer {settings.admin_token}"})
        lease = next(lease for lease in leases.json() if lease["token"])
        answer = await b.get("/v1/players/me", headers={"Authorization": f"Bearer {lease['token']}"})
        assert answer.status_code == 200 and answer.json()["id"] == lease["player_id"]
        assert answer.headers["ratelimit"].startswith('"api";r=9;'), answer.headers


async def test_a_token_issued_before_the_directory_kept_it_is_learned_where_it_is_first_authenticated(
        settings, games):
    replicas = two_replicas(settings, games, rate_limit=6)
    unlimited = create_app(settings, games=games)  # (no budgets: it keeps no entries)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b, AsyncTestClient(unlimited) as u:
        old = (await player(u, "Old"))["headers"]
        first = await a.get("/v1/players/me", headers=old)
        assert first.status_code == 200 and first.headers["ratelimit-policy"] == '"credentials";q=6;w=60'
        then = await b.get("/v1/players/me", headers=old)  # b learns it from the entry a made
        assert then.status_code == 200 and then.headers["ratelimit"].startswith('"api";r=5;'), then.headers


async def test_a_revoked_token_leaves_the_directory_and_its_next_requests_cost_its_address(settings, games):
    """A token's entry outlives its revocation only until a replica is refused it: then the entry goes, and
    the token is drawn from its address's budget for unknown tokens like any other."""
    replicas = two_replicas(settings, games, count=2, rate_limit=6)
    async with AsyncTestClient(replicas[0]) as a, AsyncTestClient(replicas[1]) as b:
        ann = await player(a)
        assert (await a.delete("/v1/players/me/token", headers=ann["headers"])).status_code == 204
        first = await b.get("/v1/players/me", headers=ann["headers"])  # b still finds the entry
        assert first.status_code == 401 and first.headers["ratelimit-policy"] == '"api";q=6;w=60'
        again = await b.get("/v1/players/me", headers=ann["headers"])
        assert again.status_code == 401 and again.headers["ratelimit-policy"] == '"credentials";q=6;w=60'
        # the refusal cost the address one request of that budget, and this one another
        assert again.headers["ratelimit"].startswith('"credentials";r=4;'), again.headers


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
    said.clear()
    alone = Counters(dead)
    assert await alone.subject("t:new", 1_800_000_030.0) is None and said == ["rate_limit_redis_unavailable"]
    await alone.record("t:new", "p1", None)  # kept here while Redis is away
    assert await alone.subject("t:new", 1_800_000_030.0) == "p1"
    await dead.aclose()


async def test_with_the_api_budget_off_a_token_no_replica_knows_still_opens_streams_from_the_stream_budget():
    from tests.service.edge.test_front_door import answering_ok

    app, send, seen = answering_ok()
    limited = rate_limit(0, 2, 0, (), Counters(), lambda _: None)(app)
    for _ in range(3):
        await limited({"type": "http", "method": "GET", "path": "/v1/games/g/stream", "client": ("192.0.2.1", 1),
                       "headers": [(b"authorization", f"Bearer {uuid.uuid4()}".encode())]}, None, send)
    assert seen == [200, 200, 429]
