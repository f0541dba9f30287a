"""A real HTTP server (uvicorn in a thread) for SSE, replica and benchmark tests, and an ASGI app's lifespan
run on the caller's event loop (`lifespan`) for an app called in process."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: Any = None, timeout: float = 60) -> None:
    """Wait until `url`/healthz answers 200 (AssertionError on timeout, or when `proc` has exited)."""
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        assert proc is None or proc.poll() is None, f"the server exited with {proc.returncode}"
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"{url} did not start"
        time.sleep(0.1)


@contextlib.contextmanager
def serving(app: Any, port: int | None = None) -> Iterator[str]:
    """Serve `app` on `port` (default a free loopback port) until the block ends; yields the base URL. An app
    whose public URL matters (the OAuth metadata's issuer and endpoints) is built with
    `public_url=f"http://127.0.0.1:{port}"` for a `port` from `free_port()`."""
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="on", timeout_graceful_shutdown=3))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


async def sse_events(response: Any) -> Any:
    """Parse a text/event-stream response into dicts {event, id, data, comment}."""
    current: dict[str, Any] = {}
    async for line in response.aiter_lines():
        if line == "":
            if current:
                yield current
            current = {}
        elif line.startswith(":"):
            yield {"comment": line[1:].strip()}
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            current[field] = current.get(field, "") + value if field == "data" else value


@contextlib.contextmanager
def static_files(directory: Any) -> Iterator[str]:
    """`directory`'s files served over HTTP in a thread, on an origin of their own (a free port): a page of
    another site than the API's. Yields the origin."""
    import functools
    import http.server

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """`app` started (its ASGI lifespan, on this event loop) for the block, then stopped."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    life = asyncio.ensure_future(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}},
                                     inbox.get, outbox.put))
    await inbox.put({"type": "lifespan.startup"})
    assert (await outbox.get())["type"] == "lifespan.startup.complete"
    try:
        yield
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await outbox.get()
        await life
