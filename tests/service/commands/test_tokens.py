"""A player's own token: who am I, rotate it, revoke it; a revoked token never works again. The token cache:
refreshed by the stream revocation check, never past a token's expiry."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

from testkit.api import player


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
        cache._by_digest = {k: (p, 0.0, e) for k, (p, _, e) in cache._by_digest.items()}  # CACHE_SECONDS pass
        assert CACHE_SECONDS <= 5
        assert (await two.get("/v1/players/me", headers=ann["headers"])).status_code == 401


class CountingStore:
    """A store with one player and one expiring credential that counts the token lookups made."""

    def __init__(self, expires_in: float) -> None:
        from service.store.protocol import Player

        self.owner = Player(id="p1", name="Ann", created_at=datetime.now(UTC))
        self.expires = datetime.now(UTC) + timedelta(seconds=expires_in)
        self.lookups = 0

    async def player_by_token(self, digest: str):
        self.lookups += 1
        return self.owner if digest == "first" else None

    def accounts(self):
        return self

    async def credential(self, digest: str):
        from service.store.accounts import Credential

        return Credential(id="c1", digest=digest, player_id="p1", kind="personal", name="ci", scopes=["read"],
                          created_at=datetime.now(UTC), expires_at=self.expires) if digest == "pat" else None

    async def get_player(self, player_id: str):
        return self.owner


async def test_a_token_its_stream_check_finds_working_is_not_looked_up_again(monkeypatch):
    from service.commands import players as module

    monkeypatch.setattr(module, "CACHE_SECONDS", 0.05)
    store = CountingStore(expires_in=3600)
    players = module.Players(store)
    assert (await players.identify("first")).player.id == "p1" and store.lookups == 1
    deadline = time.monotonic() + 0.3
    while time.monotonic() < deadline:  # the revocation check confirms it working, again and again
        players.confirm({"first", "someone-else"}, set(), time.monotonic())
        assert (await players.identify("first")).player.id == "p1"
        await asyncio.sleep(0.01)
    assert store.lookups == 1
    stale = time.monotonic() + 0.1
    while time.monotonic() < stale:  # no more confirmations: looked up again once the cache time is over
        await players.identify("first")
        await asyncio.sleep(0.01)
    assert store.lookups >= 2
    players.confirm({"first"}, set(), time.monotonic() - 1.0)  # an answer older than the entry moves nothing back
    assert players._by_digest["first"][1] > time.monotonic() - 0.2
    assert "someone-else" not in players._by_digest  # a confirmation never adds an identity
    players.confirm(set(), {"first"}, time.monotonic())  # found revoked (on another replica, say): forgotten now
    assert "first" not in players._by_digest
    lookups = store.lookups
    await players.identify("first")
    assert store.lookups == lookups + 1


async def test_a_confirmation_never_keeps_a_token_past_its_expiry(monkeypatch):
    from service.commands import players as module

    monkeypatch.setattr(module, "CACHE_SECONDS", 60.0)
    store = CountingStore(expires_in=0.2)
    players = module.Players(store)
    assert (await players.identify("pat")).scopes == frozenset({"read"})
    players.confirm({"pat"}, set(), time.monotonic())
    _, until, expires = players._by_digest["pat"]
    assert until <= expires <= time.monotonic() + 0.2


async def test_each_revocation_check_reports_the_working_and_the_revoked_tokens_and_when_it_asked():
    from service.live.revocation import Revocations

    class Live:
        def accounts(self):
            return self

        async def live_digests(self, digests):
            return {d for d in digests if d != "gone"}

        async def token_changes(self):
            return None

        async def live_until(self, digests):
            return None, {d: None for d in await self.live_digests(digests)}

    heard: list[tuple[set[str], set[str], float]] = []
    closing = asyncio.Event()
    revocations = Revocations(Live(), type("Broker", (), {"wake_all": lambda self: None})(), closing,
                              confirmed=lambda live, gone, at: heard.append((live, gone, at)))
    ends = [revocations.watch("p1", "kept"), revocations.watch("p2", "gone")]
    before = time.monotonic()
    assert await revocations.check() == 1
    assert heard and heard[-1][:2] == ({"kept"}, {"gone"}) and before <= heard[-1][2] <= time.monotonic()
    assert not ends[0].is_set() and ends[1].is_set()
    await revocations.stop()


async def test_a_revocation_check_looks_tokens_up_again_only_when_something_may_have_changed():
    """While the store's count of token changes stands, every watched token was found working and none is
    near its expiry, a check reads that count only; a moved count, a new stream's token or a near expiry
    makes it look every watched token up again (and end what stopped working)."""
    from service.live import revocation as module

    class Counting:
        def __init__(self) -> None:
            self.changes, self.dead, self.expiry, self.asked = 0, set(), {}, []

        def accounts(self):
            return self

        async def token_changes(self):
            return self.changes

        async def live_until(self, digests):
            self.asked.append(sorted(digests))
            return self.changes, {d: self.expiry.get(d) for d in digests if d not in self.dead}

    store = Counting()
    revocations = module.Revocations(store, type("Broker", (), {"wake_all": lambda self: None})(), asyncio.Event())
    ann = revocations.watch("p1", "ann")
    assert await revocations.check() == 0 and store.asked == [["ann"]]
    for _ in range(3):
        assert await revocations.check() == 0
    assert store.asked == [["ann"]]  # nothing changed: one count read each time, no look-up

    bob = revocations.watch("p2", "bob")  # a token never looked up
    assert await revocations.check() == 0 and store.asked[-1] == ["ann", "bob"] and len(store.asked) == 2

    store.dead.add("bob")  # revoked somewhere: the count moves in the same transaction
    assert await revocations.check() == 0 and len(store.asked) == 2  # the count stood: not seen yet
    store.changes += 1
    assert await revocations.check() == 1 and bob.is_set() and not ann.is_set() and len(store.asked) == 3
    assert await revocations.check() == 0 and len(store.asked) == 3

    store.expiry["cat"] = time.time() + module.EXPIRY_MARGIN / 2  # a token that expires soon
    cat = revocations.watch("p3", "cat")  # noqa: F841 - watched while held
    await revocations.check()
    await revocations.check()
    assert len(store.asked) == 5  # near its expiry: looked up at every check
    assert revocations.lookups == 5
    await revocations.stop()
