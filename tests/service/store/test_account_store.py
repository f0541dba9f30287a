"""One contract for the account store, run on memory and PostgreSQL: logins, credentials that expire and
are revoked, single-use codes, failure windows."""

from __future__ import annotations

import inspect
import uuid
from datetime import UTC, datetime, timedelta

from service.store.accounts import AuthCode, Credential, OAuthClient
from service.store.protocol import token_hash
from tests.service.store.test_store_contract import store  # noqa: F401 - the memory and PostgreSQL stores


def uid() -> str:
    return uuid.uuid4().hex


def credential(player_id: str, **fields) -> Credential:
    return Credential(**{"id": uid(), "digest": token_hash(uid()), "player_id": player_id, "kind": "personal",
                         "name": "t", "scopes": ["read"], **fields})


async def test_a_login_belongs_to_one_player(store):
    a, b, login = uid(), uid(), f"ann-{uid()}"
    for p in (a, b):
        await store.create_player(p, "Ann", token_hash(p))
    accounts = store.accounts()
    assert await accounts.set_password(a, login, "h1")
    assert await accounts.set_password(a, login, "h2")  # its own: changed
    assert not await accounts.set_password(b, login, "h3")
    assert (await accounts.account_by_login(login)).password_hash == "h2"


async def test_live_digests_are_first_tokens_and_credentials_neither_revoked_nor_expired(store):
    p = uid()
    await store.create_player(p, "Ann", token_hash(p))
    accounts = store.accounts()
    live, expired, revoked = credential(p), credential(p, expires_at=datetime.now(UTC) - timedelta(seconds=1)), credential(p)
    for c in (live, expired, revoked):
        await accounts.add_credential(c)
    assert await accounts.revoke(p, credential_id=revoked.id) == 1
    assert await accounts.revoke(p, credential_id=revoked.id) == 0
    digests = [token_hash(p), live.digest, expired.digest, revoked.digest, "unknown"]
    assert await accounts.live_digests(digests) == {token_hash(p), live.digest}
    assert sorted(await accounts.player_digests(p)) == sorted([token_hash(p), live.digest])
    assert [c.id for c in await accounts.credentials(p)] == [live.id]


async def test_revoking_an_app_revokes_its_tokens_only(store):
    p = uid()
    await store.create_player(p, "Ann", token_hash(p))
    accounts = store.accounts()
    mine, other = credential(p, kind="oauth", client_id="app_a"), credential(p, kind="oauth", client_id="app_b")
    for c in (mine, other):
        await accounts.add_credential(c)
    assert await accounts.revoke(p, client_id="app_a") == 1
    assert await accounts.live_digests([mine.digest, other.digest]) == {other.digest}


async def test_a_code_is_used_once(store):
    p = uid()
    await store.create_player(p, "Ann", token_hash(p))
    accounts = store.accounts()
    await accounts.add_client(OAuthClient(client_id="app_" + uid(), name="A", redirect_uris=["https://a/cb"],
                                          scopes=["read"], owner_id=p))
    code = AuthCode(digest=token_hash(uid()), client_id="c", player_id=p, redirect_uri="https://a/cb", scope="read",
                    challenge="x" * 43, method="S256", expires_at=datetime.now(UTC) + timedelta(minutes=1))
    await accounts.add_code(code)
    first, second = await accounts.use_code(code.digest), await accounts.use_code(code.digest)
    assert first.used_at is None and second.used_at is not None
    assert await accounts.use_code("missing") is None


async def test_attempts_are_counted_below_every_limit_and_not_at_all_when_one_key_is_at_its_limit(store):
    accounts, pair, login = store.accounts(), f"pair:{uid()}", f"login:{uid()}"
    limits = [(pair, 2), (login, 5)]
    assert [await accounts.take_attempt(limits, 60) for _ in range(3)] == [True, True, False]
    # the refused third attempt counted nowhere: the login key took two, so three more fit under its five
    assert [await accounts.take_attempt([(login, 5)], 60) for _ in range(4)] == [True, True, True, False]
    await accounts.forgive([login])
    assert await accounts.take_attempt([(login, 5)], 60)
    await accounts.clear_failures(pair)
    assert await accounts.take_attempt([(pair, 2)], 60)


async def test_a_burst_of_concurrent_attempts_takes_exactly_the_limit(store):
    import asyncio

    accounts, key = store.accounts(), f"pair:{uid()}"
    other = f"address:{uid()}"
    taken = await asyncio.gather(*(accounts.take_attempt([(key, 10), (other, 1000)], 60) for _ in range(100)))
    assert taken.count(True) == 10
    # the other key counted only the ten that went through: 990 more fit, not 900
    assert sum([await accounts.take_attempt([(other, 1000)], 60) for _ in range(991)]) == 990


async def test_a_window_that_is_over_starts_again(store):
    accounts, key = store.accounts(), f"pair:{uid()}"
    assert [await accounts.take_attempt([(key, 1)], 60) for _ in range(2)] == [True, False]
    await _age(store, key, seconds=61)  # as if a minute had passed: the window is over
    assert [await accounts.take_attempt([(key, 1)], 60) for _ in range(2)] == [True, False]


async def _age(store, key: str, seconds: float) -> None:
    """Move the start of `key`'s window `seconds` into the past, on either store."""
    if hasattr(store, "pool"):
        await store.pool.execute("UPDATE sign_in_failures SET window_start = window_start - make_interval(secs => $2)"
                                 " WHERE key = $1", key, seconds)
    else:
        start, count = store.accounts().windows[key]
        store.accounts().windows[key] = (start - timedelta(seconds=seconds), count)


def test_both_stores_implement_every_method_of_the_contract():
    from service.store.accounts import AccountStore, MemoryAccounts
    from service.store.accounts_pg import PostgresAccounts

    wanted = {n for n, _ in inspect.getmembers(AccountStore, inspect.isfunction) if not n.startswith("_")}
    for impl in (MemoryAccounts, PostgresAccounts):
        assert wanted <= {n for n, _ in inspect.getmembers(impl, inspect.isfunction)}, impl


async def test_live_until_names_each_working_token_with_its_expiry(store):
    p = uid()
    await store.create_player(p, "Ann", token_hash(p))
    accounts = store.accounts()
    ends = datetime.now(UTC) + timedelta(hours=1)
    lasting, expiring, revoked = credential(p), credential(p, expires_at=ends), credential(p)
    for c in (lasting, expiring, revoked):
        await accounts.add_credential(c)
    await accounts.revoke(p, credential_id=revoked.id)
    digests = [token_hash(p), lasting.digest, expiring.digest, revoked.digest, "unknown"]
    changes, live = await accounts.live_until(digests)
    assert set(live) == await accounts.live_digests(digests) == {token_hash(p), lasting.digest, expiring.digest}
    assert changes == await accounts.token_changes()
    if changes is not None:  # a store that counts changes says when each token expires
        assert live[token_hash(p)] is None and live[lasting.digest] is None
        assert abs(live[expiring.digest] - ends.timestamp()) < 0.01
    assert await accounts.live_until([]) == (changes, {})


async def test_the_count_of_token_changes_moves_with_every_change_that_can_stop_a_token(store):
    """Revoking a credential, rotating or revoking a first token, deleting a credential (by hand): each
    moves the count, in its own transaction; adding a credential or a player does not."""
    accounts = store.accounts()
    if await accounts.token_changes() is None:
        return  # the memory store keeps no count: every revocation check looks every token up
    before = await accounts.token_changes()
    p = uid()
    await store.create_player(p, "Ann", token_hash(p))
    c, d = credential(p), credential(p)
    await accounts.add_credential(c)
    await accounts.add_credential(d)
    assert await accounts.token_changes() == before  # nothing that can stop a token happened
    await accounts.revoke(p, credential_id=c.id)
    after_revoke = await accounts.token_changes()
    await store.set_token(p, token_hash(uid()))
    after_rotate = await accounts.token_changes()
    await store.set_token(p, None)
    after_revoking_first = await accounts.token_changes()
    await store.pool.execute("DELETE FROM credentials WHERE id = $1", d.id)
    after_delete = await accounts.token_changes()
    assert before < after_revoke < after_rotate < after_revoking_first < after_delete


async def test_attempt_rows_of_windows_that_are_over_are_pruned(store):
    if not hasattr(store, "pool"):
        return  # the memory store lives as long as its process
    accounts, old = store.accounts(), [f"pair:{uid()}" for _ in range(3)]
    for key in old:
        assert await accounts.take_attempt([(key, 5)], 60)
        await _age(store, key, seconds=3600)
    await accounts.take_attempt([(f"pair:{uid()}", 5)], 60)  # any attempt deletes up to 4 of the oldest
    assert await store.pool.fetchval("SELECT count(*) FROM sign_in_failures WHERE key = ANY($1::text[])", old) == 0
