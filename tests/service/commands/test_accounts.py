"""Accounts over HTTP: a password, sign-in by login for a fresh token, personal access tokens with scopes,
and the security properties: no user enumeration (equal hash work, no answer that tells which names have
accounts), brute force throttled before any hash work (bursts included), no scope escalation, revoked
tokens and their tickets refused. Password changes: tests/service/commands/test_tokens.py."""

from __future__ import annotations

import uuid

import pytest
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from tests.service.store.test_store_contract import store  # noqa: F401 - the memory and PostgreSQL stores
from testkit.api import player


def unique(prefix: str = "Ann") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def with_password(client, password: str = "correct horse battery") -> dict:
    who = await player(client, unique())
    resp = await client.post("/v1/players/me/password", json={"password": password}, headers=who["headers"])
    assert resp.status_code == 200, resp.text
    assert resp.json()["login"] == who["name"].casefold()
    return who


@pytest.fixture
async def strict(settings, games):
    """An app that throttles after 3 failed sign-ins."""
    import msgspec

    app = create_app(msgspec.structs.replace(settings, sign_in_failures=3), games=games)
    async with AsyncTestClient(app, timeout=30) as c:
        yield c


async def test_a_player_with_a_password_signs_in_by_name_and_its_first_token_keeps_working(client):
    who = await with_password(client)
    resp = await client.post("/v1/sessions", json={"name": who["name"].upper(), "password": "correct horse battery"})
    assert resp.status_code == 201, resp.text
    session = resp.json()
    assert session["player_id"] == who["id"] and session["kind"] == "session" and session["token"] != who["token"]
    assert (await client.get("/v1/players/me", headers=bearer(session["token"]))).json()["id"] == who["id"]
    assert (await client.get("/v1/players/me", headers=who["headers"])).json()["id"] == who["id"]
    listed = (await client.get("/v1/players/me/tokens", headers=who["headers"])).json()
    assert [t["id"] for t in listed] == [session["id"]] and "token" not in listed[0]


async def test_a_wrong_password_and_an_unknown_name_are_refused_alike_after_equal_hash_work(client):
    who = await with_password(client)
    passwords = client.app.state.services.accounts.passwords
    answers, work = [], []
    for name in (who["name"], unique("Nobody")):
        before = passwords.verifications
        resp = await client.post("/v1/sessions", json={"name": name, "password": "wrong password!"})
        work.append(passwords.verifications - before)
        answers.append((resp.status_code, resp.json()["code"], resp.json()["detail"]))
    assert work == [1, 1]
    assert answers[0] == answers[1] == (401, "sign_in_failed", "the login and password do not match")


async def test_brute_force_on_a_name_is_throttled_known_or_not_and_costs_no_hash_work(strict):
    who = await with_password(strict)
    passwords = strict.app.state.services.accounts.passwords
    for name in (who["name"], unique("Nobody")):
        for _ in range(3):
            assert (await strict.post("/v1/sessions", json={"name": name, "password": "guess guess"})).status_code == 401
        before = passwords.verifications
        resp = await strict.post("/v1/sessions", json={"name": name, "password": "correct horse battery"})
        assert resp.status_code == 429 and resp.json()["code"] == "sign_in_throttled", resp.text
        assert int(resp.headers["retry-after"]) > 0
        assert passwords.verifications == before  # refused before any hash


async def test_a_personal_access_token_does_what_its_scopes_allow_and_nothing_more(client):
    who = await player(client, unique())
    resp = await client.post("/v1/players/me/tokens", json={"name": "reader", "scopes": ["read"]},
                             headers=who["headers"])
    assert resp.status_code == 201, resp.text
    reader = bearer(resp.json()["token"])
    assert resp.json()["scopes"] == ["read"]
    assert (await client.get("/v1/players/me", headers=reader)).status_code == 200
    refused = [
        await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {}}, headers=reader),
        await client.post("/v1/players/me/tokens", json={"name": "more", "scopes": ["play"]}, headers=reader),
        await client.post("/v1/players/me/token", headers=reader),  # a first token with every scope
        await client.post("/v1/players/me/password", json={"password": "taken over!"}, headers=reader),
        await client.post("/v1/games/any/commands", json={"command": {"type": "tally.Roll"}}, headers=reader),
    ]
    assert [(r.status_code, r.json()["code"]) for r in refused] == [(403, "insufficient_scope")] * 5


async def test_a_player_can_play_with_a_play_token(client):
    who = await player(client, unique())
    token = (await client.post("/v1/players/me/tokens", json={"name": "bot", "scopes": ["play", "read"]},
                               headers=who["headers"])).json()["token"]
    resp = await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {}}, headers=bearer(token))
    assert resp.status_code == 201, resp.text


async def test_tokens_are_revoked_one_by_one_and_their_tickets_with_them(client):
    who = await player(client, unique())
    made = [(await client.post("/v1/players/me/tokens", json={"name": f"t{i}", "scopes": ["read"]},
                               headers=who["headers"])).json() for i in range(2)]
    ticket = (await client.post("/v1/players/me/stream-tickets", headers=bearer(made[0]["token"]))).json()["ticket"]
    resp = await client.delete(f"/v1/players/me/tokens/{made[0]['id']}", headers=who["headers"])
    assert resp.status_code == 204
    assert (await client.get("/v1/players/me", headers=bearer(made[0]["token"]))).status_code == 401
    assert (await client.get("/v1/players/me", headers=bearer(made[1]["token"]))).status_code == 200
    refused = await client.get(f"/v1/players/me/stream?ticket={ticket}")
    assert refused.status_code == 401, refused.text
    again = await client.delete(f"/v1/players/me/tokens/{made[0]['id']}", headers=who["headers"])
    assert again.status_code == 404 and again.json()["code"] == "token_not_found"
    assert [t["id"] for t in (await client.get("/v1/players/me/tokens", headers=who["headers"])).json()] == [
        made[1]["id"]]


async def test_bad_account_input_is_refused_with_its_code(client):
    who = await player(client, unique())
    short = await client.post("/v1/players/me/password", json={"password": "short"}, headers=who["headers"])
    scope = await client.post("/v1/players/me/tokens", json={"name": "x", "scopes": ["admin"]}, headers=who["headers"])
    assert (short.status_code, short.json()["code"]) == (400, "invalid_request")
    assert (scope.status_code, scope.json()["code"]) == (400, "invalid_request")
    first = await with_password(client)
    twin = await player(client, first["name"].upper())  # names are display names: free
    taken = await client.post("/v1/players/me/password", json={"password": "another one", "login": first["name"]},
                              headers=twin["headers"])
    assert (taken.status_code, taken.json()["code"]) == (409, "login_taken")  # a login asked for by name


async def test_setting_a_password_answers_alike_whether_or_not_the_name_has_an_account(client):
    """Names are display names; the login is a handle. Without one asked for, a taken name's login gets a
    suffix instead of a 409, so registering with a password never says which names have accounts."""
    first = await with_password(client)
    twin = await player(client, first["name"].upper())
    resp = await client.post("/v1/players/me/password", json={"password": "another one"}, headers=twin["headers"])
    assert resp.status_code == 200, resp.text
    login = resp.json()["login"]
    assert login.startswith(first["name"].casefold() + "-") and login != first["name"].casefold()
    for who, name in ((twin, login), (first, first["name"])):
        password = "another one" if who is twin else "correct horse battery"
        signed = await client.post("/v1/sessions", json={"login": name, "password": password})
        assert signed.status_code == 201 and signed.json()["player_id"] == who["id"], signed.text
    chosen = await player(client, unique())
    handle = unique("handle")
    resp = await client.post("/v1/players/me/password", json={"password": "long enough", "login": handle.upper()},
                             headers=chosen["headers"])
    assert resp.json()["login"] == handle.casefold()
    old_client = await client.post("/v1/sessions", json={"name": handle, "password": "long enough"})  # `name`: read
    assert old_client.status_code == 201 and old_client.json()["player_id"] == chosen["id"]
    both = await client.post("/v1/sessions", json={"name": handle, "login": handle, "password": "long enough"})
    neither = await client.post("/v1/sessions", json={"password": "long enough"})
    assert [(r.status_code, r.json()["code"]) for r in (both, neither)] == [(422, "login_required")] * 2


@pytest.mark.parametrize("name", ["\u200b\u200b", "\u200d", " \u2060 ", "Ann\u202eevil", "\u2066Bob\u2069",
                                  "Ann\u200fx", "line\u2028break", "para\u2029graph", "\u00a0 \u3000",
                                  "private\ue000", "\u3164\u3164", "\u2800", "\ufe0f", "\u0301\u0301"])
async def test_a_name_with_nothing_visible_or_a_hiding_character_is_refused(client, name):
    resp = await client.post("/v1/players", json={"name": name})
    assert (resp.status_code, resp.json()["code"]) == (422, "invalid_name"), resp.text


async def test_names_are_nfc_and_one_login_however_it_is_spelled(client):
    suffix = uuid.uuid4().hex[:6]
    composed, decomposed = f"Zo\u00eb {suffix}", f"Zoe\u0308 {suffix}"
    who = await player(client, decomposed)
    assert who["name"] == composed  # NFD in, NFC kept
    emoji = await player(client, "\U0001f469\u200d\U0001f4bb Ada")  # a joiner inside an emoji is kept
    assert emoji["name"] == "\U0001f469\u200d\U0001f4bb Ada"
    resp = await client.post("/v1/players/me/password", json={"password": "correct horse battery"},
                             headers=who["headers"])
    assert resp.json()["login"] == composed.casefold()
    for spelling in (composed, decomposed, decomposed.upper()):
        signed = await client.post("/v1/sessions", json={"login": spelling, "password": "correct horse battery"})
        assert signed.status_code == 201 and signed.json()["player_id"] == who["id"], (spelling, signed.text)


def test_every_operation_that_reads_the_caller_names_the_scope_it_needs():
    import inspect

    from litestar.handlers import HTTPRouteHandler

    from service.edge.dependencies import SCOPES
    from service.ops.settings import Settings

    app = create_app(Settings(database_url="postgresql://unused", rate_limit=1))
    callers = {h.operation_id for r in app.routes for h in getattr(r, "route_handlers", ())
               if isinstance(h, HTTPRouteHandler) and ("viewer" in inspect.signature(h.fn).parameters
                                                       or h.operation_id == "sendCommand")}
    assert callers - set(SCOPES) == set()
    document = app.openapi_schema.to_schema()
    send = document["paths"]["/v1/games/{game_id}/commands"]["post"]["security"]
    assert send == [{"bearer": ["play"]}, {"oauth": ["play"]}]


async def test_rotating_from_a_session_replaces_the_first_token_and_ends_the_session(client):
    who = await with_password(client)
    session = (await client.post("/v1/sessions", json={"name": who["name"], "password": "correct horse battery"})).json()
    rotated = await client.post("/v1/players/me/token", headers=bearer(session["token"]))
    assert rotated.status_code == 201
    for old in (session["token"], who["token"]):
        assert (await client.get("/v1/players/me", headers=bearer(old))).status_code == 401
    fresh = bearer(rotated.json()["token"])
    assert (await client.get("/v1/players/me", headers=fresh)).json()["id"] == who["id"]
    other = (await client.post("/v1/sessions", json={"name": who["name"], "password": "correct horse battery"})).json()
    assert (await client.delete("/v1/players/me/token", headers=fresh)).status_code == 204
    assert (await client.get("/v1/players/me", headers=fresh)).status_code == 401
    assert (await client.get("/v1/players/me", headers=bearer(other["token"]))).status_code == 200  # only the one used


def test_the_documented_scopes_are_the_grantable_ones():
    from typing import get_args

    from service.commands.players import GRANTABLE
    from service.edge.routes.accounts import Scope

    assert get_args(Scope) == GRANTABLE


class CountingHasher:
    """Argon2id as the service uses it, counting every verification (from any worker thread)."""

    def __init__(self, hasher) -> None:
        import threading

        self.hasher, self.calls, self._lock = hasher, 0, threading.Lock()

    def hash(self, password: str) -> str:
        return self.hasher.hash(password)

    def verify(self, stored: str, password: str) -> bool:
        with self._lock:
            self.calls += 1
        return self.hasher.verify(stored, password)


async def counted_accounts(store, max_failures: int = 10):
    """Accounts on `store` whose hasher counts its verifications, and a player with a password, its login."""
    from argon2 import PasswordHasher

    from service.commands.accounts import Accounts, Passwords
    from service.commands.players import Players

    counting = CountingHasher(PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1))
    players = Players(store)
    accounts = Accounts(store, players, Passwords(counting), max_failures=max_failures)
    owner, _ = await players.register(unique())
    login = owner.name.casefold()
    assert await store.accounts().set_password(owner.id, login, counting.hash("correct horse battery"))
    return accounts, counting, owner


async def test_a_burst_of_200_concurrent_wrong_passwords_costs_at_most_the_limit_in_hashes(store):
    """Issue 45.2, on memory and PostgreSQL: each attempt is counted (atomically, shared by replicas) before
    its hash, so 200 concurrent wrong passwords check 10 (the limit per login and address) and refuse the
    other 190 without one. (Counted after the hash, as before, all 200 were checked.)"""
    import asyncio

    from service.commands.accounts import SignInFailed, SignInThrottled

    accounts, counting, owner = await counted_accounts(store)
    await accounts.passwords.verify_or_dummy(None, "warm the dummy hash")
    counting.calls = 0

    async def attempt(password: str) -> str:
        try:
            await accounts.sign_in(owner.name, password, "203.0.113.9")
        except (SignInFailed, SignInThrottled) as refused:
            return type(refused).__name__
        return "signed in"

    answers = await asyncio.gather(*(attempt(f"wrong {i}") for i in range(200)))
    assert counting.calls == 10, counting.calls
    assert sorted(answers) == ["SignInFailed"] * 10 + ["SignInThrottled"] * 190
    assert await attempt("correct horse battery") == "SignInThrottled" and counting.calls == 10


async def test_two_replicas_share_one_count(pg_dsn):
    """Two processes' worth of stores and accounts on one PostgreSQL: 100 concurrent wrong passwords at each
    still check 10 in all."""
    import asyncio

    from service.commands.accounts import Accounts, Passwords, SignInFailed, SignInThrottled
    from service.commands.players import Players
    from service.store.postgres import PostgresStore

    first = await PostgresStore.connect(pg_dsn, 8)
    second = await PostgresStore.connect(pg_dsn, 8)
    try:
        accounts, counting, owner = await counted_accounts(first)
        other = Accounts(second, Players(second), Passwords(counting))
        counting.calls = 0

        async def attempt(replica: Accounts, i: int) -> None:
            with pytest.raises((SignInFailed, SignInThrottled)):
                await replica.sign_in(owner.name, f"wrong {i}", "203.0.113.9")

        await asyncio.gather(*(attempt(replica, i) for i in range(100) for replica in (accounts, other)))
        assert counting.calls == 10
    finally:
        await first.close()
        await second.close()


async def test_a_throttled_sign_in_over_http_is_a_429_with_retry_after(strict):
    who = await with_password(strict)
    answers = [await strict.post("/v1/sessions", json={"login": who["name"], "password": "guess guess"})
               for _ in range(4)]
    assert [r.status_code for r in answers] == [401, 401, 401, 429]
    assert answers[-1].json()["code"] == "sign_in_throttled" and int(answers[-1].headers["retry-after"]) > 0


async def test_a_stranger_cannot_lock_the_owner_out_from_another_address_only_the_slower_global_cap_can(store):
    """On memory and PostgreSQL: the pair (login, address) has the limit, the login the slower global cap."""
    import asyncio

    from service.commands.accounts import LOGIN_FACTOR, SignInFailed, SignInThrottled

    accounts, counting, owner = await counted_accounts(store, max_failures=5)

    async def attempt(address: str, password: str = "wrong guess") -> str:
        try:
            await accounts.sign_in(owner.name, password, address)
        except (SignInFailed, SignInThrottled) as refused:
            return type(refused).__name__
        return "signed in"

    stranger = await asyncio.gather(*(attempt("203.0.113.9") for _ in range(50)))
    assert stranger.count("SignInFailed") == 5 and counting.calls == 5
    assert await attempt("198.51.100.7", "correct horse battery") == "signed in"  # the owner, elsewhere
    # strangers at many addresses reach the login's global cap (LOGIN_FACTOR times the pair's limit)
    spread = await asyncio.gather(*(attempt(f"203.0.113.{1 + i % 20}") for i in range(200)))
    assert stranger.count("SignInFailed") + spread.count("SignInFailed") == 5 * LOGIN_FACTOR
    assert counting.calls == 5 * LOGIN_FACTOR + 1
    assert await attempt("198.51.100.7", "correct horse battery") == "SignInThrottled"


def test_the_shipped_argon2_cost_is_rfc_9106s_and_the_settings_choose_another():
    """The defaults are argon2-cffi's own, RFC 9106's second recommendation (t=3, 64 MiB, 4 lanes); the suite
    runs at the least cost (tests/conftest.py), so only this test and the next pin what ships."""
    from argon2 import PasswordHasher

    from service.cli.serve import ConfigError, check
    from service.ops.settings import Settings

    rfc = PasswordHasher()
    shipped = Settings.from_env({})
    assert (shipped.argon2_time_cost, shipped.argon2_memory_kib, shipped.argon2_parallelism) == (3, 65536, 4)
    assert (rfc.time_cost, rfc.memory_cost, rfc.parallelism) == (3, 65536, 4)
    default = Settings()
    assert (default.argon2_time_cost, default.argon2_memory_kib, default.argon2_parallelism) == (3, 65536, 4)
    chosen = Settings.from_env({"STELA_ARGON2_TIME_COST": "2", "STELA_ARGON2_MEMORY_KIB": "4096",
                                "STELA_ARGON2_PARALLELISM": "2"})
    assert (chosen.argon2_time_cost, chosen.argon2_memory_kib, chosen.argon2_parallelism) == (2, 4096, 2)
    for bad in ({"STELA_ARGON2_TIME_COST": "0"}, {"STELA_ARGON2_PARALLELISM": "0"},
                {"STELA_ARGON2_PARALLELISM": "8", "STELA_ARGON2_MEMORY_KIB": "63"}):
        with pytest.raises(ConfigError, match="STELA_ARGON2"):
            check(Settings.from_env({"STELA_ADMIN_TOKEN": "f" * 64, **bad}))


async def test_new_hashes_take_the_configured_cost_and_old_ones_still_sign_in_after_a_change(memory_settings, games):
    """The app hashes at its settings' cost; a hash made at another cost keeps verifying at its own."""
    import msgspec

    from service.store.memory import MemoryStore

    store = MemoryStore()
    shipped = msgspec.structs.replace(memory_settings, argon2_time_cost=3, argon2_memory_kib=65536,
                                      argon2_parallelism=4)
    async with AsyncTestClient(create_app(memory_settings, games=games, store=store), timeout=30) as light:
        who = await with_password(light)
        account = await store.accounts().account_of(who["id"])
        assert account is not None and account.password_hash.startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    async with AsyncTestClient(create_app(shipped, games=games, store=store), timeout=30) as client:
        signed = await client.post("/v1/sessions", json={"login": who["name"], "password": "correct horse battery"})
        assert signed.status_code == 201, signed.text
        other = await with_password(client)
        account = await store.accounts().account_of(other["id"])
        assert account is not None and account.password_hash.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
