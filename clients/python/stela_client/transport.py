"""How bytes reach the server: the `Transport` protocol, over aiohttp (default) or an httpx client you own.

The client needs two things of HTTP: a whole request (`request`: status, headers, body) and a streamed
response for SSE (`stream`: status, headers, then the body in chunks as they arrive). Every transport
failure (refused, reset, timed out, truncated) is raised as `TransportError`, whatever the library,
so the retry rules do not depend on it.

`AiohttpTransport` is the default: one `aiohttp.ClientSession` (HTTP/1.1 keep-alive), created lazily
inside the running loop; it costs a fraction of httpx's CPU per request, which matters for a thousand
bots on one machine. `HttpxTransport` drives an `httpx.AsyncClient` the caller owns (and closes).
`SyncHttpxTransport` is the synchronous client's (`SyncClient`): an `httpx.Client`, its own unless given.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp

from stela_client.errors import TransportError

import httpx


@dataclass(frozen=True)
class Response:
    """A whole answer."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class StreamResponse(Protocol):
    """An answer whose body is read as it arrives."""

    status: int
    headers: Mapping[str, str]

    async def read(self) -> bytes: ...

    def chunks(self) -> AsyncIterator[bytes]: ...


class Transport(Protocol):
    """What `Client` needs of an HTTP library (URLs are absolute)."""

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                      timeout: float) -> Response: ...

    def stream(self, url: str, headers: Mapping[str, str],
               read_timeout: float) -> contextlib.AbstractAsyncContextManager[StreamResponse]: ...

    async def close(self) -> None: ...


_AIO_FAILURES = (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError)


class _AioStream:
    def __init__(self, resp: aiohttp.ClientResponse) -> None:
        self._resp = resp
        self.status = resp.status
        self.headers: Mapping[str, str] = resp.headers

    async def read(self) -> bytes:
        try:
            return await self._resp.read()
        except _AIO_FAILURES as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._resp.content.iter_any():
                yield chunk
        except _AIO_FAILURES as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc


class AiohttpTransport:
    """One aiohttp session; `connections` caps its open connections (0: no cap)."""

    def __init__(self, connections: int = 0, connect_timeout: float = 10.0) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._connections, self._connect = connections, connect_timeout

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:  # created lazily, inside the running loop
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._connections, ttl_dns_cache=None),
                skip_auto_headers=("User-Agent",), cookie_jar=aiohttp.DummyCookieJar())
        return self._session

    def _timeout(self, read: float | None, total: float | None = None) -> aiohttp.ClientTimeout:
        return aiohttp.ClientTimeout(total=total, connect=self._connect, sock_read=read)

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                      timeout: float) -> Response:
        try:
            async with self._open().request(method, url, data=body, headers=dict(headers),
                                            timeout=self._timeout(timeout, timeout + self._connect)) as resp:
                return Response(resp.status, resp.headers, await resp.read())
        except _AIO_FAILURES as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc

    @contextlib.asynccontextmanager
    async def stream(self, url: str, headers: Mapping[str, str], read_timeout: float) -> AsyncIterator[StreamResponse]:
        try:
            async with self._open().get(url, headers=dict(headers), timeout=self._timeout(read_timeout)) as resp:
                yield _AioStream(resp)
        except _AIO_FAILURES as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class _HttpxStream:
    def __init__(self, resp: httpx.Response, failures: tuple[type[BaseException], ...]) -> None:
        self._resp, self._failures = resp, failures
        self.status = resp.status_code
        self.headers: Mapping[str, str] = resp.headers

    async def read(self) -> bytes:
        try:
            return await self._resp.aread()
        except self._failures as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._resp.aiter_bytes():
                yield chunk
        except self._failures as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc


class HttpxTransport:
    """Requests through `http`, an `httpx.AsyncClient` the caller opened (and closes: `close` does not)."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self._failures: tuple[type[BaseException], ...] = (httpx.TransportError,)
        self._httpx: Any = httpx

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                      timeout: float) -> Response:
        try:
            resp = await self.http.request(method, url, content=body, headers=dict(headers),
                                           timeout=self._httpx.Timeout(timeout))
        except self._failures as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc
        return Response(resp.status_code, resp.headers, resp.content)

    @contextlib.asynccontextmanager
    async def stream(self, url: str, headers: Mapping[str, str], read_timeout: float) -> AsyncIterator[StreamResponse]:
        timeout = self._httpx.Timeout(10.0, read=read_timeout)
        try:
            async with self.http.stream("GET", url, headers=dict(headers), timeout=timeout) as resp:
                yield _HttpxStream(resp, self._failures)
        except self._failures as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc

    async def close(self) -> None:
        return None


class SyncStreamResponse(Protocol):
    """A synchronous answer whose body is read as it arrives."""

    status: int
    headers: Mapping[str, str]

    def read(self) -> bytes: ...

    def chunks(self) -> Iterator[bytes]: ...


class SyncTransport(Protocol):
    """What `SyncClient` needs of an HTTP library (URLs are absolute)."""

    def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                timeout: float) -> Response: ...

    def stream(self, url: str, headers: Mapping[str, str],
               read_timeout: float) -> contextlib.AbstractContextManager[SyncStreamResponse]: ...

    def close(self) -> None: ...


_HTTPX_FAILURES = (httpx.TransportError,)


class _SyncHttpxStream:
    def __init__(self, resp: httpx.Response) -> None:
        self._resp = resp
        self.status = resp.status_code
        self.headers: Mapping[str, str] = resp.headers

    def read(self) -> bytes:
        try:
            return self._resp.read()
        except _HTTPX_FAILURES as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc

    def chunks(self) -> Iterator[bytes]:
        try:
            yield from self._resp.iter_bytes()
        except _HTTPX_FAILURES as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc


class SyncHttpxTransport:
    """Requests through an `httpx.Client`: `http` if given (the caller closes it), else one of its own."""

    def __init__(self, http: httpx.Client | None = None, connect_timeout: float = 10.0) -> None:
        self._own = http is None
        self.http = http if http is not None else httpx.Client()
        self._connect = connect_timeout

    def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                timeout: float) -> Response:
        try:
            resp = self.http.request(method, url, content=body, headers=dict(headers),
                                     timeout=httpx.Timeout(timeout, connect=self._connect))
        except _HTTPX_FAILURES as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc
        return Response(resp.status_code, resp.headers, resp.content)

    @contextlib.contextmanager
    def stream(self, url: str, headers: Mapping[str, str], read_timeout: float) -> Iterator[SyncStreamResponse]:
        timeout = httpx.Timeout(self._connect, read=read_timeout)
        try:
            with self.http.stream("GET", url, headers=dict(headers), timeout=timeout) as resp:
                yield _SyncHttpxStream(resp)
        except _HTTPX_FAILURES as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        if self._own:
            self.http.close()
