"""An aiohttp transport for the bots' `ApiClient` and SSE `follow`: the load generator's lighter client.

`ApiClient` and `follow` need only a little of `httpx.AsyncClient`: `request` (method, path, JSON
body, query, headers) answering a response with `status_code`, `headers`, `content`, `text` and
`json()`, and `stream` (a context manager with `status_code`, `aread()` and `aiter_text()`).
`AioHttp` offers exactly that over one `aiohttp.ClientSession` and turns aiohttp's transport
failures into `httpx.TransportError`, so the retry rules of `ApiClient` and `follow` stay the same.

Why a second client: measured with py-spy in `bench.tournament`, about 60% of the bots' CPU
went to httpx/httpcore (URL merging, pool bookkeeping, anyio wrappers), more than the
service spent on a command. A thousand bots on the same two cores as the service make that the
benchmark's limit; aiohttp does the same HTTP/1.1 keep-alive work for a fraction of it.
`stela bot` keeps httpx (one player, no such budget).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json as jsonlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import httpx

FAILURES = (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError)


class AioResponse:
    """A whole response read into memory (what `ApiClient.request` needs of `httpx.Response`)."""

    def __init__(self, status: int, headers: Mapping[str, str], content: bytes) -> None:
        self.status_code, self.headers, self.content = status, headers, content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return jsonlib.loads(self.content)


class AioStream:
    """A streamed response (what `follow` needs of httpx's streamed response)."""

    def __init__(self, resp: aiohttp.ClientResponse) -> None:
        self._resp = resp
        self.status_code = resp.status

    async def aread(self) -> bytes:
        try:
            return await self._resp.read()
        except FAILURES as exc:
            raise httpx.TransportError(f"{type(exc).__name__}: {exc}") from exc

    async def aiter_text(self) -> AsyncIterator[str]:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            async for chunk in self._resp.content.iter_any():
                text = decoder.decode(chunk)
                if text:
                    yield text
        except FAILURES as exc:
            raise httpx.TransportError(f"{type(exc).__name__}: {exc}") from exc


class AioHttp:
    """One aiohttp session with a base URL, shaped like the part of `httpx.AsyncClient` the bots use."""

    def __init__(self, base_url: str, timeout: float = 60.0, connections: int = 0) -> None:
        self.base_url = base_url.rstrip("/")
        self._timeout = aiohttp.ClientTimeout(total=None, connect=10.0, sock_read=timeout)
        self._session: aiohttp.ClientSession | None = None
        self._connections = connections

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:  # created lazily, inside the running loop
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._connections, ttl_dns_cache=None),
                timeout=self._timeout, skip_auto_headers=("User-Agent",), cookie_jar=aiohttp.DummyCookieJar())
        return self._session

    async def request(self, method: str, path: str, json: Any = None, params: Mapping[str, Any] | None = None,
                      headers: Mapping[str, str] | None = None) -> AioResponse:
        body = None if json is None else jsonlib.dumps(json, separators=(",", ":")).encode()
        sent = dict(headers or {})
        if body is not None:
            sent["Content-Type"] = "application/json"
        try:
            async with self._open().request(method, self.base_url + path, data=body, params=params,
                                            headers=sent) as resp:
                return AioResponse(resp.status, resp.headers, await resp.read())
        except FAILURES as exc:
            raise httpx.TransportError(f"{type(exc).__name__}: {exc}") from exc

    async def get(self, path: str, headers: Mapping[str, str] | None = None) -> AioResponse:
        return await self.request("GET", path, headers=headers)

    @contextlib.asynccontextmanager
    async def stream(self, method: str, path: str, headers: Mapping[str, str] | None = None,
                     timeout: httpx.Timeout | None = None) -> AsyncIterator[AioStream]:
        read = timeout.read if timeout is not None else None
        limits = aiohttp.ClientTimeout(total=None, connect=10.0, sock_read=read)
        try:
            async with self._open().request(method, self.base_url + path, headers=dict(headers or {}),
                                            timeout=limits) as resp:
                yield AioStream(resp)
        except FAILURES as exc:
            raise httpx.TransportError(f"{type(exc).__name__}: {exc}") from exc

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
