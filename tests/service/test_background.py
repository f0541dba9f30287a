"""Background loops that keep failing back off: retried after growing delays, not at the rate of their wakes."""

from __future__ import annotations

import asyncio

from projections.runner import Backoff
from service import background
from service.background import Periodic


def test_the_backoff_doubles_from_its_first_delay_to_its_cap_and_starts_over_after_a_success():
    backoff = Backoff(first=0.25, most=5.0)
    assert [backoff.failed() for _ in range(7)] == [0.25, 0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    assert backoff.failures == 7
    backoff.succeeded()
    assert backoff.failed() == 0.25
    assert Backoff(first=1.0, most=5.0).failed() == 1.0
    many = Backoff(first=0.25, most=5.0)
    assert [many.failed() for _ in range(100)][-1] == 5.0  # no overflow however long it fails


async def test_a_failing_cycle_woken_all_the_time_is_retried_after_the_backoff_only(monkeypatch):
    calls: list[float] = []
    logged: list[dict] = []
    monkeypatch.setattr(background.log, "exception", lambda event, **kw: logged.append({"event": event, **kw}))
    loop = asyncio.get_running_loop()

    class Failing(Periodic):
        name = "failing"

        async def cycle(self) -> bool:
            calls.append(loop.time())
            if len(calls) <= 4:
                raise RuntimeError("the database is away")
            return False

    periodic = Failing(every=60, backoff=Backoff(first=0.05, most=0.2))
    await periodic.start()
    try:
        deadline = loop.time() + 60
        while len(calls) < 5:  # woken on every loop turn, as by a stream of appends
            periodic.wake()
            assert loop.time() < deadline, calls
            await asyncio.sleep(0)
    finally:
        await periodic.stop()
    # a busy machine can only make the gaps longer: each is at least its delay
    delays = [0.05, 0.1, 0.2, 0.2]
    assert [e["retry_in"] for e in logged] == delays
    assert [e["failures"] for e in logged] == [1, 2, 3, 4]
    assert {e["event"] for e in logged} == {"background_failed"}
    for gap, delay in zip([b - a for a, b in zip(calls, calls[1:])], delays):
        assert gap >= delay * 0.99, (calls, delays)
    assert periodic.backoff.failures == 0  # the fifth cycle succeeded
