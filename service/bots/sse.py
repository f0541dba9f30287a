"""A small Server-Sent Events reader: the parser and a follower that reconnects with `Last-Event-ID`.

`SseParser` implements the WHATWG event-stream interpretation that Stela's streams use: lines end
in LF, CRLF or CR; `:` starts a comment; `data` lines accumulate joined by LF; `id` sets the last
event id (kept across messages, ignored if it contains NUL); `event` names the message (default
`message`); `retry` sets the reconnection delay in ms; a blank line dispatches the message, and a
message without data is not dispatched. `follow` opens the stream with httpx and, when the
connection drops or idles past its read timeout, reconnects sending the last id it saw, so the
server replays exactly what was missed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field

import httpx


@dataclass(frozen=True)
class Message:
    """One dispatched SSE message (`id` is the last event id in force when it was dispatched)."""

    event: str
    data: str
    id: str | None


@dataclass
class SseParser:
    """Incremental parser: feed text chunks, get messages; comments go to `comments`."""

    last_id: str | None = None
    retry_ms: int | None = None
    comments: list[str] = field(default_factory=list)
    _buffer: str = ""
    _event: str = ""
    _data: list[str] = field(default_factory=list)
    _pending_cr: bool = False

    def feed(self, chunk: str) -> Iterator[Message]:
        """The messages completed by `chunk`."""
        if self._pending_cr and chunk.startswith("\n"):
            chunk = chunk[1:]  # the LF of a CRLF split across chunks
        self._pending_cr = chunk.endswith("\r")
        self._buffer += chunk
        lines = self._buffer.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self._buffer = lines.pop()
        for line in lines:
            message = self._line(line)
            if message is not None:
                yield message

    def restart(self) -> None:
        """Forget a partial message (a new connection starts clean; `last_id` and `retry` stay)."""
        self._buffer, self._event, self._data, self._pending_cr = "", "", [], False

    def _line(self, line: str) -> Message | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            self.comments.append(line[1:].lstrip(" "))
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self.last_id = value
        elif name == "retry" and value.isdigit():
            self.retry_ms = int(value)
        return None

    def _dispatch(self) -> Message | None:
        event, data = self._event or "message", self._data
        self._event, self._data = "", []
        if not data:
            return None
        return Message(event=event, data="\n".join(data), id=self.last_id)


class StreamGone(Exception):
    """The server refused the stream for good (a 4xx other than 408/429)."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"stream refused with {status}: {body[:200]}")
        self.status = status


async def follow(http: httpx.AsyncClient, url: str, headers: dict[str, str], last_id: str | None = None,
                 read_timeout: float = 60.0, max_retries: int = 20,
                 on_connect: Callable[[], None] | None = None) -> AsyncIterator[Message]:
    """Messages of the stream at `url`, across reconnections (resuming after the last id seen).

    Gives up after `max_retries` consecutive failed connections; a connection that delivered a
    message resets the count. The caller ends the iteration by breaking out of it.
    """
    parser = SseParser(last_id=last_id)
    failures = 0
    while True:
        sent = dict(headers, Accept="text/event-stream")
        if parser.last_id is not None:
            sent["Last-Event-ID"] = parser.last_id
        try:
            timeout = httpx.Timeout(10.0, read=read_timeout)
            async with http.stream("GET", url, headers=sent, timeout=timeout) as resp:
                if resp.status_code != 200:
                    body = (await resp.aread()).decode(errors="replace")
                    if 400 <= resp.status_code < 500 and resp.status_code not in (408, 429):
                        raise StreamGone(resp.status_code, body)
                    raise httpx.TransportError(f"stream answered {resp.status_code}")
                parser.restart()
                if on_connect is not None:
                    on_connect()
                async for chunk in resp.aiter_text():
                    for message in parser.feed(chunk):
                        failures = 0
                        yield message
        except httpx.TransportError:
            failures += 1
            if failures > max_retries:
                raise
        delay = (parser.retry_ms or 1000) / 1000
        await asyncio.sleep(min(delay * max(failures, 1), 10.0))
