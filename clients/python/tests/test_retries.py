"""The retry rules (`stela_client.retry`), against a scripted transport: what is retried, with which key,
how long the client waits, and what is raised."""

from __future__ import annotations

import time

import pytest
from scripted import ScriptedTransport, ok, problem

from stela_client import (
    Backoff, Client, Forbidden, InvalidRequest, NotFound, RateLimited, RuleViolation, ServerError, TransportError,
    Unauthorized, Unavailable, VersionConflict, error_for, retry_after,
)

RESULT = {"version": 9, "status": "active", "to_act": [1], "events": []}
FAST = Backoff(base=0.01, cap=0.05)


def client(*script: object, backoff: Backoff = FAST) -> tuple[Client, ScriptedTransport]:
    transport = ScriptedTransport(list(script))  # type: ignore[arg-type]
    return Client("http://sdk.test", "tok", transport=transport, backoff=backoff), transport


async def test_a_command_is_resent_with_the_same_key_after_429_503_and_a_lost_answer():
    api, sent = client(problem(429, "rate_limited", "0"), problem(503, "database_unavailable", "0"),
                       TransportError("reset"), ok(RESULT))
    result = await api.command("g1", {"type": "coatl.EndTurn"}, 8)
    assert result.version == 9
    keys = {s.headers["Idempotency-Key"] for s in sent.sent}
    assert len(sent.sent) == 4 and len(keys) == 1 and all(keys)
    assert api.counters.throttled == 2 and api.counters.transport_retries == 1


async def test_a_version_conflict_is_raised_at_once_with_the_current_version():
    api, sent = client(problem(409, "version_conflict", current_version=12), ok(RESULT))
    with pytest.raises(VersionConflict) as refused:
        await api.command("g1", {"type": "coatl.EndTurn"}, 8)
    assert refused.value.current_version == 12 and refused.value.status == 409 and len(sent.sent) == 1
    assert refused.value.problem["code"] == "version_conflict"


async def test_a_registration_is_not_resent_after_a_lost_answer_or_a_503():
    for failure in (TransportError("reset"), problem(503, "database_unavailable", "0")):
        api, sent = client(failure, ok({"id": "p", "name": "Ann", "token": "t"}))
        with pytest.raises((TransportError, Unavailable)):
            await api.register("Ann")
        assert len(sent.sent) == 1  # no key: a second player could be created


async def test_a_registration_is_resent_after_429_which_did_nothing():
    api, sent = client(problem(429, "rate_limited", "0"), ok({"id": "p", "name": "Ann", "token": "t2"}))
    assert (await api.register("Ann")).token == "t2" and api.token == "t2" and len(sent.sent) == 2


async def test_retry_after_is_waited_out():
    api, _ = client(problem(429, "rate_limited", "1"), ok({"id": "p", "name": "A"}))
    began = time.monotonic()
    assert (await api.me()).id == "p"
    assert time.monotonic() - began >= 1.0


async def test_when_the_attempts_are_spent_the_429_is_raised_with_its_retry_after():
    api, sent = client(*[problem(429, "rate_limited", "0")] * 3, backoff=Backoff(attempts=3, base=0.01))
    with pytest.raises(RateLimited) as refused:
        await api.me()
    assert refused.value.retry_after == 0.0 and refused.value.code == "rate_limited" and len(sent.sent) == 3


async def test_a_retry_after_longer_than_the_client_waits_is_raised_at_once_a_sign_in_throttle_among_them():
    """A sign-in throttle answers Retry-After: 900 (its window): waiting 65 s and signing in again would only
    spend another attempt of the spent window, and keep the caller waiting minutes. Raised at once instead,
    as any Retry-After beyond `max_wait`."""
    session = {"id": "c", "kind": "session", "name": "sign-in", "scopes": [], "client_id": None,
               "created_at": "2026-11-29T00:00:00Z", "expires_at": None, "token": "s", "player_id": "p"}
    api, sent = client(problem(429, "sign_in_throttled", "900"), ok(session), backoff=Backoff())
    with pytest.raises(RateLimited) as refused:
        await api.sign_in("ann", "a wrong passphrase")
    assert refused.value.code == "sign_in_throttled" and refused.value.retry_after == 900 and len(sent.sent) == 1
    api, sent = client(problem(429, "rate_limited", "70"), ok({"id": "p", "name": "A"}), backoff=Backoff(max_wait=65))
    with pytest.raises(RateLimited):
        await api.me()
    assert len(sent.sent) == 1


def test_retry_after_reads_seconds_and_http_dates():
    assert retry_after("2") == 2.0 and retry_after(None) is None and retry_after("soon") is None
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past: now
    assert Backoff(max_wait=30).delay(1, 3600, __import__("random").Random(1)) <= 30 * 1.25


@pytest.mark.parametrize(("status", "code", "cls"), [
    (400, "invalid_request", InvalidRequest), (422, "idempotency_key_reused", InvalidRequest),
    (422, "coatl.bad_option", InvalidRequest), (401, "unauthorized", Unauthorized), (403, "not_seated", Forbidden),
    (403, "deal_sealed", Forbidden), (404, "game_not_found", NotFound), (409, "version_conflict", VersionConflict),
    (412, "precondition_failed", VersionConflict), (409, "tikal.no_path", RuleViolation),
    (409, "table.not_open", RuleViolation), (429, "rate_limited", RateLimited), (503, "shutting_down", Unavailable),
    (500, "internal_error", ServerError),
])
def test_each_problem_code_raises_its_family(status, code, cls):
    error = error_for(status, {"code": code, "detail": "d", "status": status})
    assert type(error) is cls and error.code == code and error.status == status and error.problem["detail"] == "d"


async def test_an_unknown_id_cannot_escape_its_path_segment():
    api, sent = client(ok({"seat": 0, "version": 1, "commands": []}))
    await api.legal("../players/me?x=1")
    assert sent.sent[0].url == "http://sdk.test/v1/games/..%2Fplayers%2Fme%3Fx%3D1/legal"
