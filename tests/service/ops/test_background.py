"""`Periodic`: a failing cycle backs off instead of retrying at the rate of its wakes, and a wake that
lands together with `stop()` does not keep the loop running."""

from __future__ import annotations

import asyncio

import pytest

from projections.runner import Backoff
from service.ops import background
from service.ops.background import Periodic


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
async def test_a_stream_held_by_another_transaction_is_retried_with_a_warning_and_no_traceback(monkeypatch):
    from service.store.protocol import StreamLocked

    warned: list[dict] = []
    traced: list[str] = []
    monkeypatch.setattr(background.log, "warning", lambda event, **kw: warned.append({"event": event, **kw}))
    monkeypatch.setattr(background.log, "exception", lambda event, **kw: traced.append(event))
    done = asyncio.Event()

    class Held(Periodic):
        name = "held"
        calls = 0

        async def cycle(self) -> bool:
            self.calls += 1
            if self.calls == 1:
                raise StreamLocked("arena-1 is held by another transaction")
            done.set()
            return False

    periodic = Held(every=60, backoff=Backoff(first=0.01, most=0.02))
    await periodic.start()
    try:
        await asyncio.wait_for(done.wait(), 60)
    finally:
        await periodic.stop()
    assert [w["event"] for w in warned] == ["background_stream_locked"] and not traced, (warned, traced)
    assert periodic.backoff.failures == 0  # retried, and the retry succeeded


DEADLINE = 10.0  # seconds; a stop is immediate, the lifespan gives a stuck one 15 s


class Idle(Periodic):
    """Nothing to do: each cycle reports no more work, so the loop waits for a wake or `every`."""

    name = "idle"

    def __init__(self) -> None:
        super().__init__(every=3600)  # only a wake or a stop ends the wait
        self.cycles = 0

    async def cycle(self) -> bool:
        self.cycles += 1
        return False


async def parked(periodic: Idle) -> None:
    """Until the loop has run a cycle and waits on its wake event."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while not (periodic.cycles and periodic._wake._waiters):  # (Event's waiting futures: it is waiting)
        assert loop.time() < deadline, "the loop never started waiting"
        await asyncio.sleep(0)


async def stop(periodic: Idle) -> None:
    """`periodic.stop()`, failing the test if it has not returned within `DEADLINE`."""
    stopping = asyncio.create_task(periodic.stop())
    done, _ = await asyncio.wait({stopping}, timeout=DEADLINE)  # (does not cancel `stopping`)
    if not done:
        stopping.cancel()
        await asyncio.gather(stopping, return_exceptions=True)
    assert done, f"stop() still waiting after {DEADLINE} s ({periodic.cycles} cycles)"
    stopping.result()


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
async def test_stop_is_not_lost_to_a_wake_of_the_same_moment(turns):
    """A wake (a burst of appends, coalesced) that fires just before `stop()` cancels the loop: with
    `asyncio.wait_for` around the wait, Python 3.11 returns the finished wait's result instead of the
    cancellation, the loop runs on, and `stop()` waited until the lifespan's 15 s bound gave up."""
    periodic = Idle()
    await periodic.start()
    await parked(periodic)
    periodic.wake()
    for _ in range(turns):  # (event-loop turns between the wake and the cancellation)
        await asyncio.sleep(0)
    await stop(periodic)

