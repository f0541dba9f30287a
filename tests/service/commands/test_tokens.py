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


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _account(client, password: str = "first password") -> tuple[dict, str]:
    """A player with a password, and its login."""
    import uuid

    who = await player(client, f"Cy-{uuid.uuid4().hex[:8]}")
    resp = await client.post("/v1/players/me/password", json={"password": password}, headers=who["headers"])
    assert resp.status_code == 200 and resp.json()["ended_tokens"] == 0, resp.text  # a first password ends nothing
    return who, resp.json()["login"]


async def _works(client, token: str) -> bool:
    return (await client.get("/v1/players/me", headers=_bearer(token))).status_code == 200


async def test_changing_a_password_needs_the_current_one_and_ends_every_other_token(client):
    who, login = await _account(client)
    session = (await client.post("/v1/sessions", json={"login": login, "password": "first password"})).json()
    personal = (await client.post("/v1/players/me/tokens", json={"name": "ci", "scopes": ["read"]},
                                  headers=who["headers"])).json()
    refused = [await client.post("/v1/players/me/password", json=body, headers=who["headers"])
               for body in ({"password": "second password"},
                            {"password": "second password", "current_password": "not the password"})]
    assert [(r.status_code, r.json()["code"]) for r in refused] == [(403, "reauthentication_required")] * 2
    changed = await client.post("/v1/players/me/password", headers=who["headers"],
                                json={"password": "second password", "current_password": "first password"})
    assert changed.status_code == 200 and changed.json() == {"login": login, "ended_tokens": 2}, changed.text
    assert await _works(client, who["token"])  # the token that changed it
    assert not await _works(client, session["token"]) and not await _works(client, personal["token"])
    old = await client.post("/v1/sessions", json={"login": login, "password": "first password"})
    new = await client.post("/v1/sessions", json={"login": login, "password": "second password"})
    assert (old.status_code, new.status_code) == (401, 201)


async def test_a_fresh_session_changes_the_password_without_the_current_one_and_may_keep_the_other_tokens(client):
    who, login = await _account(client)
    session = (await client.post("/v1/sessions", json={"login": login, "password": "first password"})).json()
    kept = await client.post("/v1/players/me/password", headers=_bearer(session["token"]),
                             json={"password": "second password", "keep_tokens": True})
    assert kept.status_code == 200 and kept.json()["ended_tokens"] == 0, kept.text
    assert await _works(client, who["token"])
    ended = await client.post("/v1/players/me/password", headers=_bearer(session["token"]),
                              json={"password": "third password"})
    assert ended.json()["ended_tokens"] == 1  # the first token
    assert not await _works(client, who["token"]) and await _works(client, session["token"])


async def test_an_old_session_cannot_change_the_password_without_the_current_one(pg_client):
    from service.commands import accounts

    who, login = await _account(pg_client)
    session = (await pg_client.post("/v1/sessions", json={"login": login, "password": "first password"})).json()
    store = pg_client.app.state.services.store.accounts()
    credential = next(c for c in await _in_app(pg_client, store.credentials, who["id"]) if c.id == session["id"])
    aged = credential.created_at - timedelta(seconds=accounts.FRESH_SECONDS + 1)
    await _in_app(pg_client, store.pool.execute, "UPDATE credentials SET created_at = $2 WHERE id = $1",
                  credential.id, aged)
    stale = await pg_client.post("/v1/players/me/password", headers=_bearer(session["token"]),
                              json={"password": "second password"})
    assert (stale.status_code, stale.json()["code"]) == (403, "reauthentication_required")


async def _in_app(client, call, *args):
    """`await call(*args)` on the app's own event loop (its pool lives there), from the test's."""
    return await asyncio.wrap_future(client.blocking_portal.start_task_soon(call, *args))
