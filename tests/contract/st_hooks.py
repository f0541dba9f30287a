"""Schemathesis hooks for tests/contract/test_schemathesis.py (`st` loads them through SCHEMATHESIS_HOOKS).

`filter_case` sizes the coverage phase by budget. That phase has no `max-examples`: it sends every case the
schema defines, 6,483 over 78 operations, two thirds of them for three bodies with a variant per game kind
(create a tournament, create a game, send a command), mostly an `incorrect_type` or a `valid_object` per
property of each variant. With STELA_COVERAGE_EVERY=n (the test sets it from tests/budget.py) every operation
keeps, of each kind of case it gets (scenario and place: a body of the wrong type, a value above the maximum,
an unexpected method, ...), the first one and every n-th after it, in schemathesis's own order, so no
operation and no kind of case is left out. Without it, or with 1, every case is sent.

`Tokens` (the run's auth provider; the test passes no `-H`) sends the run's token (STELA_ST_TOKEN) on every
case but those of the two operations that end the token they are called with: rotating (POST
/v1/players/me/token) or revoking (DELETE /v1/players/me/token) it. Sent the run's token, their first 2xx
revoked it and every authenticated operation after it got only 401 (38 operations were fuzzed only for their auth
refusal); each of their cases gets the token of a player registered for it at STELA_ST_URL instead.
Schemathesis leaves a case unauthenticated where it tests a missing or broken credential.
"""

from __future__ import annotations

import os
from collections import Counter

import httpx
import schemathesis
from schemathesis.generation.meta import CoveragePhaseData

EVERY = int(os.environ.get("STELA_COVERAGE_EVERY", "1"))
_seen: Counter = Counter()
RUN_TOKEN = os.environ["STELA_ST_TOKEN"]
URL = os.environ["STELA_ST_URL"]
TOKEN_ENDING = {"POST /v1/players/me/token", "DELETE /v1/players/me/token"}  # rotateToken, revokeToken


@schemathesis.hook
def filter_case(context, case) -> bool:
    data = case.meta.phase.data if case.meta is not None else None
    if EVERY <= 1 or not isinstance(data, CoveragePhaseData):
        return True  # the other phases are sized by --max-examples
    kind = (case.operation.label, data.scenario, data.parameter_location)
    _seen[kind] += 1
    return (_seen[kind] - 1) % EVERY == 0


@schemathesis.auth(refresh_interval=None, retry_on=[])  # fetched for each case; a 401 is an answer, not a cue
class Tokens:
    def get(self, case, context) -> str:
        if case.operation.label not in TOKEN_ENDING:
            return RUN_TOKEN
        spare = httpx.post(f"{URL}/v1/players", json={"name": "spare"}, timeout=30)
        return spare.raise_for_status().json()["token"]

    def set(self, case, data, context) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
