"""A small raw-socket HTTP/1.1 load generator: one keep-alive connection per game.

httpx costs more CPU per request than the server under test on a 2-core machine, so the
benchmarks speak HTTP over asyncio streams directly: send one request, read the status line,
the headers and exactly `Content-Length` body bytes, and time the round trip.
"""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit


class Connection:
    """One keep-alive HTTP/1.1 connection that sends a request and waits for its whole response."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> "Connection":
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def post(self, path: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """POST `body` as JSON; returns (status, response body)."""
        head = [f"POST {path} HTTP/1.1", f"Host: {self.host}:{self.port}", "Content-Type: application/json",
                f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in (headers or {}).items())]
        return await self._exchange(("\r\n".join(head) + "\r\n\r\n").encode() + body)

    async def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """GET `path`; returns (status, response body)."""
        head = [f"GET {path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                *(f"{k}: {v}" for k, v in (headers or {}).items())]
        return await self._exchange(("\r\n".join(head) + "\r\n\r\n").encode())

    async def _exchange(self, request: bytes) -> tuple[int, bytes]:
        assert self.reader is not None and self.writer is not None
        self.writer.write(request)
        status_line = await self.reader.readuntil(b"\r\n")
        length = 0
        while (line := await self.reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        return int(status_line.split(b" ", 2)[1]), await self.reader.readexactly(length)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass


async def timed(conn: Connection, path: str, body: bytes, headers: dict[str, str],
                latencies: list[float]) -> tuple[int, bytes]:
    start = time.perf_counter()
    status, data = await conn.post(path, body, headers)
    latencies.append(time.perf_counter() - start)
    return status, data
