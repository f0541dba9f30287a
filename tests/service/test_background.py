"""`Periodic`: a wake that lands together with `stop()` must not keep the loop running."""

from __future__ import annotations

import asyncio

import pytest

from service.background import Periodic

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

