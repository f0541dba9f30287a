"""`Client`: one caller of the Stela API (a bearer token, or none: a spectator), async and typed.

    async with Client("http://localhost:8000") as ann:
        await ann.register("Ann")                       # or sign_in(login, password), or Client(url, token=...)
        game = await ann.create_game("coatl", seats=2)
        ...
        legal = await ann.legal(game.id)
        result = await ann.command(game.id, legal.commands[0], legal.version)

The operations themselves are defined once in `calls.py`, for this client and for the synchronous
`SyncClient` (`sync.py`) alike; this module runs them over an async transport. Every write that the server
deduplicates carries an `Idempotency-Key` (generated when not given), so a lost answer is retried safely
with the same key; rate limits and outages are waited out as `retry.py` says (and with `pace=True` the
known budget is spent without meeting 429: `ratelimit.py`); refusals raise the typed errors of `errors.py`.
Streams: `game_stream`, `personal_stream`, `stream` (many games and the personal notices on one
connection), `tournament_stream` and `arena_stream`, each resuming by itself (`streams.py`); `close()`
closes the streams still open.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

from stela_client.calls import Api, AsyncRunner, Call, path_of
from stela_client.codec import decode, problem_of
from stela_client.errors import StelaError, TransportError
from stela_client.retry import Backoff
from stela_client.transport import AiohttpTransport, Response, Transport

T = TypeVar("T")


def _response(resp: Response) -> Response:
    return resp


class Client(Api, AsyncRunner):
    """One caller over one async transport. `token` signs in; `register` and `sign_in` sign in as the player."""

    def __init__(self, base_url: str, token: str | None = None, *, transport: Transport | None = None,
                 backoff: Backoff | None = None, timeout: float = 30.0, rng: random.Random | None = None,
                 pace: bool = False) -> None:
        super().__init__(base_url, token, backoff or Backoff(), timeout, pace, rng or random.Random())
        self.transport: Transport = transport if transport is not None else AiohttpTransport()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the streams still open, then the transport (a transport shared with other clients: close it
        once, yourself)."""
        for stream in list(self.streams):
            await stream.aclose()
        await self.transport.close()

    def as_player(self, token: str | None) -> Client:
        """Another caller on the same transport (and connections): sign in with `token`."""
        return Client(self.base_url, token, transport=self.transport, backoff=self.backoff, timeout=self.timeout,
                      rng=self.counters.rng, pace=self.pace)

    # ------------------------------------------------------------------------------------------ requests

    async def run(self, call: Call[T]) -> T:
        """One call, retried where that is safe (see `retry.py`); its answer read, else a typed error."""
        prepared = self.prepare(call)
        attempt = 0
        while True:
            attempt += 1
            wait = self.pause()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                resp = await self.transport.request(prepared.method, prepared.url, prepared.headers, prepared.data,
                                                    self.timeout)
            except TransportError:
                wait_more = self.after_failure(prepared, attempt)
                if wait_more is None:
                    raise
                await asyncio.sleep(wait_more)
                continue
            again = self.verdict(prepared, resp, attempt)
            if again is None:
                return self.finish(call, resp)
            await asyncio.sleep(again)

    async def send(self, method: str, path: str, *, body: Any = None, params: Mapping[str, Any] | None = None,
                   key: str | None = None) -> Response:
        """Any request (for what has no method here), retried like the others; the 2xx answer."""
        return await self.run(Call(method, path, _response, params=params, body=body, key=key))

    async def call(self, method: str, path: str, type: type[T], *, body: Any = None,
                   params: Mapping[str, Any] | None = None, key: str | None = None) -> T:
        """`send`, its answer decoded as `type`."""
        return decode((await self.send(method, path, body=body, params=params, key=key)).body, type)

    async def json(self, method: str, path: str, *, body: Any = None, params: Mapping[str, Any] | None = None,
                   key: str | None = None) -> Any:
        """`send`, its answer as plain JSON (None for an empty body): for what has no model here."""
        resp = await self.send(method, path, body=body, params=params, key=key)
        return msgspec.json.decode(resp.body) if resp.body else None


__all__ = ["Client", "StelaError", "decode", "path_of", "problem_of"]
