"""Schemathesis hooks for tests/contract/test_schemathesis.py (`st` loads them through SCHEMATHESIS_HOOKS).

`filter_case` sizes the coverage phase by budget. That phase has no `max-examples`: it sends every case the
schema defines, 6,483 over 78 operations, two thirds of them for three bodies with a variant per game kind
(create a tournament, create a game, send a command), mostly an `incorrect_type` or a `valid_object` per
property of each variant. With STELA_COVERAGE_EVERY=n (the test sets it from tests/budget.py) every operation
keeps, of each kind of case it gets (scenario and place: a body of the wrong type, a value above the maximum,
an unexpected method, ...), the first one and every n-th after it, in schemathesis's own order, so no
operation and no kind of case is left out. Without it, or with 1, every case is sent.

`filter_failure` counts 413 as a refusal of a schema-violating body: the front door answers 413 (documented
on every operation with a body) to a body over its 64 KiB limit before anything decodes it, and a generated
string over a `maxLength` can be that long; schemathesis's `negative_data_rejection` does not list 413.
"""

from __future__ import annotations

import os
from collections import Counter

import schemathesis
from schemathesis.core.failures import AcceptedNegativeData
from schemathesis.generation.meta import CoveragePhaseData

EVERY = int(os.environ.get("STELA_COVERAGE_EVERY", "1"))
_seen: Counter = Counter()


@schemathesis.hook
def filter_case(context, case) -> bool:
    data = case.meta.phase.data if case.meta is not None else None
    if EVERY <= 1 or not isinstance(data, CoveragePhaseData):
        return True  # the other phases are sized by --max-examples
    kind = (case.operation.label, data.scenario, data.parameter_location)
    _seen[kind] += 1
    return (_seen[kind] - 1) % EVERY == 0


@schemathesis.hook
def filter_failure(context, failure, case, response) -> bool:
    return not (isinstance(failure, AcceptedNegativeData) and response.status_code == 413)
