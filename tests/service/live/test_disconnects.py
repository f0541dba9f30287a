"""Edges of a request's life: the client leaving mid-body, the server's drain ending mid-request."""

from __future__ import annotations

import asyncio

import msgspec
from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from service.store.memory import MemoryStore


def counted(app, status: int) -> float:
    return sum(s.value for m in app.state.metrics.requests.collect() for s in m.samples
               if s.name.endswith("_total") and s.labels["status"] == str(status))


def scope_for(app, path: str) -> dict:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
            "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [(b"content-type", b"application/json"), (b"content-length", b"100"), (b"host", b"t")],
            "client": ("192.0.2.1", 1), "server": ("t", 80), "state": {}}


async def test_a_client_leaving_mid_body_is_neither_an_error_nor_a_500(settings, games):
    app = create_app(msgspec.structs.replace(settings, database_url=None), games=games, store=MemoryStore())
    sent: list[dict] = []
    parts = iter([{"type": "http.request", "body": b'{"name": "A', "more_body": True}, {"type": "http.disconnect"}])

    async def receive():
        return next(parts)

    async def send(message):
        sent.append(message)

    async with AsyncTestClient(app):
        await app(scope_for(app, "/v1/players"), receive, send)
    assert counted(app, 500) == 0 and counted(app, 499) == 1


async def test_a_request_still_running_when_the_drain_ends_is_answered_503(settings, games):
    app = create_app(msgspec.structs.replace(settings, database_url=None), games=games, store=MemoryStore())
    sent: list[dict] = []
    waiting = asyncio.Event()

    async def receive():
        waiting.set()
        await asyncio.Event().wait()  # a body that never comes: the request runs until cancelled

    async def send(message):
        sent.append(message)

    async with AsyncTestClient(app):
        task = asyncio.create_task(app(scope_for(app, "/v1/players"), receive, send))
        await waiting.wait()
        task.cancel("Task cancelled, timeout graceful shutdown exceeded")  # what uvicorn does at the end
        await asyncio.gather(task, return_exceptions=True)
    start = next(m for m in sent if m["type"] == "http.response.start")
    assert start["status"] == 503 and (b"retry-after", b"1") in start["headers"]
    assert counted(app, 503) == 1
