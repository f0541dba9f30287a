"""The lifespan's stop hooks: each is bounded, and one that fails or holds the shutdown is logged."""

from __future__ import annotations

import asyncio
import contextlib

from litestar.testing import AsyncTestClient

from service.ops import stopping
from service.edge.app import create_app


async def test_a_failed_or_stuck_stop_hook_is_logged_and_the_others_still_run(settings, games, monkeypatch):
    monkeypatch.setattr(stopping, "STOP_HOOK_SECONDS", 0.5)
    monkeypatch.setattr(stopping, "SLOW_STOP_HOOK", 0.2)  # below the bound: the stuck hook always passes it
    ran: list[str] = []

    async def failing(_app):
        ran.append("failing")
        raise RuntimeError("boom")

    async def stuck(_app):  # swallows the bound's cancellation and returns, as Periodic.stop did when stuck
        ran.append("stuck")
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.Event().wait()

    async def last(_app):
        ran.append("last")

    logs: list[dict] = []

    class Recorder:  # (structlog's capture_logs misses a logger cached by an earlier test in the process)
        def __getattr__(self, level):
            return lambda event, **kw: logs.append({"event": event, "level": level, **kw})

    monkeypatch.setattr(stopping, "log", Recorder())
    app = create_app(settings, games=games)
    app.state.on_stop[:0] = [last, stuck, failing]  # run in reverse: failing, stuck, ..., last
    async with AsyncTestClient(app, timeout=30) as client:
        assert (await client.get("/healthz")).status_code == 200
    assert ran == ["failing", "stuck", "last"]
    failed = [e for e in logs if e["event"] == "stop_hook_failed"]
    slow = [e for e in logs if e["event"] == "stop_hook_slow"]
    assert [(e["hook"].rpartition(".")[2], e["error_type"]) for e in failed] == [("failing", "RuntimeError")]
    assert [e["hook"].rpartition(".")[2] for e in slow] == ["stuck"]
    assert slow[0]["seconds"] >= 0.5
