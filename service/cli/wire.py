"""The HTTP protocol `stela serve` runs under uvicorn: uvicorn's httptools protocol whose writes within
one turn of the event loop leave in one system call.

uvicorn writes a response's status line and headers when the app sends `http.response.start`, and
its body when the app sends `http.response.body`: two `write` calls, two segments on the wire, for
every small JSON answer. On a loopback or virtualised network a `write` costs tens of microseconds
(the kernel delivers the segment and wakes the reader within the call), so the second one was about
a twentieth of the CPU a command costs. Here the transport keeps what is written during one turn and
sends it together at the end of that turn (`loop.call_soon`), in order; `close()` sends what is kept
first, and `abort()` drops it as the real transport drops its own buffer.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class CoalescingTransport:
    """`transport` whose `write`s within one event-loop turn reach it as one `write`."""

    __slots__ = ("_transport", "_loop", "_pending")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(data)

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def flush(self) -> None:
        """Send what was written since the last flush (nothing if the connection is closing)."""
        pending = self._pending
        if not pending:
            return
        data = pending[0] if len(pending) == 1 else b"".join(pending)
        pending.clear()
        if not self._transport.is_closing():
            self._transport.write(data)

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(len(d) for d in self._pending)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending.clear()
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:  # everything else is the real transport's
        return getattr(self._transport, name)


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol over a `CoalescingTransport`."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]
