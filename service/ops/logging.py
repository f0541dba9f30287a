"""structlog configured for JSON lines; a middleware logs each request with its id and latency.

Tokens never reach the logs: only the path, method, status, player id and timings are logged.
The request path is kept cheap: lines are rendered by msgspec and written as bytes, the request
id is bound once, and nothing is formatted for a level that is filtered out. The access line
itself, one per request, skips structlog's processor chain: it is the same JSON object (the same
keys, with the request and game id the request bound) built and written directly, which costs
a fifth of a structlog call. Access lines are not written one by one (stderr is unbuffered: a
line, a system call): they are kept and written together within `ACCESS_FLUSH` seconds (0.1),
or as soon as about 64 KiB are kept or any other line is logged (which goes out after them, so
lines keep their order). A busy server answers hundreds of requests in 0.1 s, and one write for
all of them instead of one each saves about a twentieth of the CPU a command costs. The request
path keeps only the line's fields (a tuple); they are encoded, timestamp and all, when the lines
are written, off the request path (one `datetime` a second, not one a line). What this costs:
a process killed with SIGKILL loses the access lines of its last 0.1 s; a normal stop writes
them (`flush_access_lines`, called as the app stops).
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
import threading
import time
from datetime import UTC, datetime
from typing import Any

import msgspec
import structlog
from litestar.types import ASGIApp, Receive, Scope, Send

_encode = msgspec.json.Encoder()


def _render(_: Any, __: str, event: dict[str, Any]) -> bytes:
    return _encode.encode(event)


class JsonFormatter(logging.Formatter):
    """Standard-library records (asyncpg's pool, uvicorn, asyncio) as the same JSON lines, traceback inside."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"event": record.getMessage(), "level": record.levelname.lower(),
                                "logger": record.name,
                                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                                + f".{int(record.msecs):03d}Z"}
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = record.stack_info
        return _encode.encode(line).decode()


class _OrderedHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A standard-library line goes out after the access lines kept before it, to the stderr it was given or,
    once that is closed (a test's captured stderr, after the test), to the process's stderr as it is now (as
    structlog's lines do, `_output`): a line written to a closed stream is lost and its handler prints a
    traceback from whichever thread logged."""

    def emit(self, record: logging.LogRecord) -> None:
        flush_access_lines()
        if self.stream.closed:
            self.stream = sys.stderr  # not setStream: it would flush the closed one
        super().emit(record)


def configure(level: str = "info") -> None:
    """Every log line of the process as JSON on stderr (stdout stays for data: `stela export`)."""
    numeric = getattr(logging, level.upper(), 20)
    handler = _OrderedHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(handlers=[handler], level=numeric, force=True)
    logging.captureWarnings(True)  # a library's warning is a JSON line too (logger `py.warnings`)
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="iso"), structlog.processors.format_exc_info, _render],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=_stderr_logger, cache_logger_on_first_use=True)
    global _out
    flush_access_lines()  # the lines kept so far go where they were written
    _out = sys.stderr.buffer


_out: Any = sys.stderr.buffer  # where `configure` sends log lines (the access line writes there itself)


def _output() -> Any:
    """`_out`, or the process's stderr once `_out` is closed (a test's captured stderr, after the test)."""
    return sys.stderr.buffer if _out.closed else _out


class _Stderr:
    """structlog's output: writes to `_out` as it is *now*, so loggers cached on first use follow a later
    `configure` (a test's captured stderr, closed afterwards, is never written to again)."""

    def msg(self, message: bytes) -> None:
        flush_access_lines()
        out = _output()
        out.write(message + b"\n")
        out.flush()

    debug = info = warning = warn = error = critical = exception = fatal = failure = err = log = msg


def _stderr_logger(*_: Any) -> _Stderr:
    return _STDERR


_STDERR = _Stderr()


ACCESS_FLUSH = 0.1  # seconds an access line may be kept before it is written
ACCESS_BUFFER = 65_536  # bytes of access lines kept at most (estimated from their paths)
_LINE_BYTES = 240  # an access line's size without its path (an estimate, on the high side)
# access lines not written yet, oldest first: (time.time(), method, path, status, latency_ms, player_id,
# request_id, game_id)
_kept: list[tuple[float, str, str, int, float, str | None, str, str | None]] = []
_kept_bytes = 0
_kept_lock = threading.Lock()  # (tests serve apps on event loops in several threads of one process)
_flush_due: tuple[asyncio.AbstractEventLoop, asyncio.TimerHandle] | None = None  # the pending flush, on its loop


class _AccessLine(msgspec.Struct):
    """The access line's keys, in the order `log.info("request", ...)` renders them with the bound context."""

    method: str
    path: str
    status: int
    latency_ms: float
    player_id: str | None
    event: str
    request_id: str
    game_id: str | None
    level: str
    timestamp: str


_second: tuple[int, str] = (-1, "")  # the last whole second formatted, and its text


def _timestamp(at: float) -> str:
    """`at` (time.time()) as ISO 8601 in UTC with microseconds and `Z`, as structlog's TimeStamper writes it."""
    global _second
    whole = int(at)
    if whole != _second[0]:
        _second = (whole, datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    return f"{_second[1]}.{int((at - whole) * 1_000_000):06d}Z"


def _access(method: str, path: str, status: int, latency_ms: float, player_id: str | None, request_id: str,
            game_id: str | None) -> None:
    """Keep the access line's fields, written within ACCESS_FLUSH seconds (see the module docstring)."""
    global _flush_due, _kept_bytes
    with _kept_lock:
        _kept.append((time.time(), method, path, status, latency_ms, player_id, request_id, game_id))
        _kept_bytes += _LINE_BYTES + len(path)
        full = _kept_bytes >= ACCESS_BUFFER
    if full:
        flush_access_lines()
    elif _flush_due is None or _flush_due[0].is_closed():  # (a loop closed with the flush pending never runs it)
        loop = asyncio.get_running_loop()
        _flush_due = (loop, loop.call_later(ACCESS_FLUSH, flush_access_lines))


def flush_access_lines() -> None:
    """Write the access lines kept so far, in one write (on a timer, before any other line, as the app stops)."""
    global _flush_due, _kept_bytes
    if not _kept and _flush_due is None:
        return
    with _kept_lock:
        _flush_due = None  # (a timer still pending finds nothing, or the lines kept since)
        kept = _kept[:]
        _kept.clear()
        _kept_bytes = 0
    if kept:
        encode = _encode.encode
        data = b"\n".join(encode(_AccessLine(method, path, status, latency_ms, player_id, "request", request_id,
                                              game_id, "info", _timestamp(at)))
                          for at, method, path, status, latency_ms, player_id, request_id, game_id in kept) + b"\n"
        out = _output()
        out.write(data)
        out.flush()


log = structlog.get_logger("stela.http")
CLIENT_CLOSED = 499  # logged and counted for a request whose client went away before the answer


def _route(scope: Scope) -> str:
    """The matched operation (a low-cardinality metric label), or "unmatched"."""
    template = scope.get("path_template")
    if template:
        return str(template)
    handler = scope.get("route_handler")
    name = getattr(handler, "operation_id", None) or getattr(handler, "handler_name", None)
    return str(name) if name else "unmatched"


def _new_request_id() -> str:
    """24 random hex digits: an id to find a request's lines by, not a secret (so not `os.urandom`)."""
    return f"{random.getrandbits(96):024x}"


def _request_id(scope: Scope) -> str:
    for name, value in scope.get("headers") or ():
        if name == b"x-request-id":
            return value.decode("latin-1")[:64] or _new_request_id()
    return _new_request_id()


def _game_id(path: str) -> str | None:
    parts = path.split("/", 4)
    return parts[3] if len(parts) > 3 and parts[1] == "v1" and parts[2] == "games" else None


def request_logging(level: str = "info", metrics: Any = None, refuse: Any = None) -> Any:
    """ASGI middleware factory: request id (X-Request-ID in and out), access log line at `level`
    info or lower, counters on `metrics` (a `Metrics`); `refuse(scope, send)` answers a request the
    server's drain window cut short before it began its response (the edge's 503 problem)."""
    enabled = getattr(logging, level.upper(), 20) <= logging.INFO
    return lambda app: _request_logging(app, enabled, metrics, refuse)


def _request_logging(app: ASGIApp, enabled: bool, metrics: Any, refuse: Any) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        request_id = _request_id(scope)
        structlog.contextvars.clear_contextvars()
        path = scope.get("path", "")
        game_id = _game_id(path)
        structlog.contextvars.bind_contextvars(request_id=request_id, game_id=game_id)
        start = time.perf_counter()
        status, started, disconnected = 500, False, False
        extra = [(b"x-request-id", request_id.encode())]

        async def send_wrapper(message: Any) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = message["status"], True
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        async def receive_wrapper() -> Any:
            nonlocal disconnected
            message = await receive()
            disconnected = disconnected or (message["type"] == "http.disconnect" and not started)
            return message

        try:
            await app(scope, receive_wrapper, send_wrapper)
        except asyncio.CancelledError:
            # the server's drain window ended with this request still running: a clean 503
            if not started and refuse is not None:
                await refuse(scope, send_wrapper)
            raise
        finally:
            elapsed = time.perf_counter() - start
            if disconnected:
                status = CLIENT_CLOSED  # the client left (mid-body, say): neither an error nor a 500
            if metrics is not None:
                metrics.request(scope.get("method", ""), _route(scope), status, elapsed)
            if enabled:
                _access(scope.get("method", ""), path, status, round(elapsed * 1000, 2),
                        (scope.get("state") or {}).get("player_id"), request_id, game_id)

    return middleware
