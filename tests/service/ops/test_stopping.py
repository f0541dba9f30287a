"""A shutdown does not wait forever on a background task that ignores its cancellation."""

from __future__ import annotations

import asyncio

from service.ops import stopping
from service.ops.stopping import cancel_within


async def test_tasks_that_end_when_cancelled_are_waited_for_and_their_errors_retrieved():
    async def sleeper() -> None:
        await asyncio.sleep(3600)

    async def failing() -> None:
        raise RuntimeError("already failed")

    tasks = [asyncio.create_task(sleeper()), asyncio.create_task(failing())]
    await asyncio.sleep(0)
    assert await cancel_within(tasks, seconds=60)
    assert all(t.done() for t in tasks)


async def test_a_task_that_swallows_its_cancellation_is_logged_and_left_behind(monkeypatch):
    logged: list[dict] = []
    monkeypatch.setattr(stopping.log, "warning", lambda event, **kw: logged.append({"event": event, **kw}))
    release = asyncio.Event()

    async def stubborn() -> None:
        while not release.is_set():
            try:
                await release.wait()
            except asyncio.CancelledError:
                pass  # as a lost cancellation inside 3.11's wait_for would

    task = asyncio.create_task(stubborn(), name="stubborn")
    await asyncio.sleep(0)
    assert not await cancel_within([task], seconds=0.2)
    assert logged == [{"event": "task_did_not_stop", "tasks": ["stubborn"], "seconds": 0.2}]
    release.set()
    await task
