"""An incremental Server-Sent Events parser (the WHATWG event-stream interpretation Stela's streams use).

Lines end in LF, CRLF or CR; `:` starts a comment; `data` lines accumulate joined by LF; `id` sets the
last event id (kept across messages, ignored if it contains NUL); `event` names the message (default
`message`); `retry` sets the reconnection delay in ms; a blank line dispatches the message, and a
message without data is not dispatched.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Message:
    """One dispatched SSE message (`id` is the last event id in force when it was dispatched)."""

    event: str
    data: str
    id: str | None


@dataclass
class SseParser:
    """Feed text chunks, get messages; comments go to `comments` (only the last `keep_comments`)."""

    last_id: str | None = None
    retry_ms: int | None = None
    comments: list[str] = field(default_factory=list)
    keep_comments: int = 16
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
            del self.comments[:-self.keep_comments]
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
