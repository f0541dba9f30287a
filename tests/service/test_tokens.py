"""A player's own token: who am I, rotate it, revoke it; a revoked token never works again."""

from __future__ import annotations

from tests.support.api import player


async def test_me_is_the_caller_s_id_and_name(client):
    ann = await player(client, "Ann")
    me = await client.get("/v1/players/me", headers=ann["headers"])
    assert me.json() == {"id": ann["id"], "name": "Ann"}
    assert (await client.get("/v1/players/me")).status_code == 401


async def test_rotating_gives_a_new_token_and_revokes_the_old_one(client):
    ann = await player(client)
    assert (await client.get("/v1/players/me", headers=ann["headers"])).status_code == 200  # cached now
    rotated = await client.post("/v1/players/me/token", headers=ann["headers"])
    assert rotated.status_code == 201 and rotated.json()["id"] == ann["id"]
    new = {"Authorization": f"Bearer {rotated.json()['token']}"}
    assert (await client.get("/v1/players/me", headers=ann["headers"])).status_code == 401
    assert (await client.get("/v1/players/me", headers=new)).json()["id"] == ann["id"]


async def test_a_revoked_token_is_refused_at_once(client):
    ann = await player(client)
    assert (await client.get("/v1/players/me", headers=ann["headers"])).status_code == 200
    assert (await client.delete("/v1/players/me/token", headers=ann["headers"])).status_code == 204
    refused = await client.get("/v1/players/me", headers=ann["headers"])
    assert refused.status_code == 401 and refused.json()["code"] == "unauthorized"


async def test_another_replica_stops_accepting_a_revoked_token_within_the_cache_time(settings, games):
    from litestar.testing import AsyncTestClient

    from service.edge.app import create_app
    from service.commands.players import CACHE_SECONDS

    async with AsyncTestClient(create_app(settings, games=games)) as one, \
            AsyncTestClient(create_app(settings, games=games)) as two:
        ann = await player(one)
        assert (await two.get("/v1/players/me", headers=ann["headers"])).status_code == 200  # cached there
        assert (await one.delete("/v1/players/me/token", headers=ann["headers"])).status_code == 204
        cache = two.app.state.services.players
        cache._by_digest = {k: (p, 0.0) for k, (p, _) in cache._by_digest.items()}  # CACHE_SECONDS pass
        assert CACHE_SECONDS <= 5
        assert (await two.get("/v1/players/me", headers=ann["headers"])).status_code == 401
