"""Pacing (`stela_client.ratelimit.Pacer`) on scripted transports that keep a real budget: an answer without
RateLimit fields does not bring back the last ones seen (the count goes on down), and a token's requests are
not paced by the anonymous budget its registration was answered from."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from scripted import ScriptedTransport, ok, problem

from stela_client import Backoff, Client, Response


@dataclass
class Budgeted(ScriptedTransport):
    """`quota` requests per `window` seconds (from a window's first request), every one counted; the answers
    whose index is in `bare` leave the fields out, as a route or server that does not send them."""

    script: list[Response | Exception] = field(default_factory=list)
    quota: int = 3
    window: float = 2.0
    bare: frozenset[int] = frozenset()
    ends_at: float = 0.0
    spent: int = 0
    refused: int = 0

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                      timeout: float) -> Response:
        now, index = time.monotonic(), len(self.sent)
        if now >= self.ends_at:
            self.ends_at, self.spent = now + self.window, 0
        t = math.ceil(self.ends_at - now)  # whole seconds left, rounded up
        fields = {"RateLimit-Policy": f'"api";q={self.quota};w={int(self.window)}'}
        if self.spent >= self.quota:
            self.refused += 1
            answer = problem(429, "rate_limited", str(t))
            self.script.append(Response(429, {**answer.headers, **fields, "RateLimit": f'"api";r=0;t={t}'},
                                        answer.body))
        else:
            self.spent += 1
            fields["RateLimit"] = f'"api";r={self.quota - self.spent};t={t}'
            answer = ok(ME)
            self.script.append(Response(200, {**answer.headers, **({} if index in self.bare else fields)}, answer.body))
        return await super().request(method, url, headers, body, timeout)


ME = {"id": "p1", "name": "Ann"}


async def test_after_an_answer_without_fields_the_pacer_counts_down_and_waits_instead_of_429():
    transport = Budgeted(bare=frozenset({1, 2}))
    api = Client("http://sdk.test", "tok", transport=transport, backoff=Backoff(attempts=1), pace=True)
    assert api.pacer is not None
    await api.me()  # r=2
    assert api.pacer.remaining == 2
    await api.me()  # no fields: spent one all the same
    assert api.pacer.remaining == 1, "the request without fields is counted, not told r=2 again"
    assert api.rate_limit is not None and api.rate_limit.remaining == 2  # the last fields an answer carried
    await api.me()  # no fields: the budget is spent
    assert api.pacer.remaining == 0
    await api.me()  # waits for the window instead of meeting 429 (one attempt: a 429 would be raised)
    assert api.pacer.waited > 0 and transport.refused == 0 and len(transport.sent) == 4


async def test_a_tokens_count_starts_unknown_not_from_the_registrations_anonymous_budget():
    spent = {"RateLimit": '"api";r=0;t=2', "RateLimit-Policy": '"api";q=600;w=60'}  # the address's: spent
    whole = {"RateLimit": '"api";r=599;t=60', "RateLimit-Policy": '"api";q=600;w=60'}  # the new player's
    registered, me = ok({**ME, "token": "t1"}, 201), ok(ME)
    transport = ScriptedTransport([Response(201, {**registered.headers, **spent}, registered.body),
                                   Response(200, {**me.headers, **whole}, me.body)])
    api = Client("http://sdk.test", transport=transport, pace=True)
    assert api.pacer is not None
    await api.register("Ann")
    await api.me()
    assert transport.sent[1].headers["Authorization"] == "Bearer t1"
    assert api.pacer.waited == 0, "the player's first request is not held for the address's window"
    assert api.pacer.remaining == 599
    assert api.pacer.before() == 0 and api.pacer.remaining is None  # anonymous again: not the player's count
