"""`SyncClient`: the same operations as the async `Client`, synchronous, over httpx's client.

    from stela_client import SyncClient

    with SyncClient("http://localhost:8000") as ann:
        ann.register("Ann")
        game = ann.create_game("coatl", seats=2, bots=[{"strategy": "greedy"}])
        for frame in ann.game_stream(game.id):
            ...

Every operation is `calls.py`'s, with the same name, parameters and answer as on `Client`; only `run`
(this module's loop: wait, send, retry) and the streams' reading (`for` instead of `async for`) differ.
"""

from __future__ import annotations

import random
import time
from typing import Any, TypeVar

from stela_client.calls import Api, Call, SyncRunner
from stela_client.errors import TransportError
from stela_client.retry import Backoff
from stela_client.transport import SyncHttpxTransport, SyncTransport

T = TypeVar("T")


class SyncClient(Api, SyncRunner):
    """One caller over one synchronous transport (an `httpx.Client` of its own unless `transport` is given)."""

    def __init__(self, base_url: str, token: str | None = None, *, transport: SyncTransport | None = None,
                 backoff: Backoff | None = None, timeout: float = 30.0, rng: random.Random | None = None,
                 pace: bool = False) -> None:
        super().__init__(base_url, token, backoff or Backoff(), timeout, pace, rng or random.Random())
        self.transport: SyncTransport = transport if transport is not None else SyncHttpxTransport()

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the streams still open, then the transport."""
        for stream in list(self.streams):
            stream.close()
        self.transport.close()

    def as_player(self, token: str | None) -> SyncClient:
        """Another caller on the same transport (and connections): sign in with `token`."""
        return SyncClient(self.base_url, token, transport=self.transport, backoff=self.backoff,
                          timeout=self.timeout, rng=self.counters.rng, pace=self.pace)

    def run(self, call: Call[T]) -> T:
        """One call, retried where that is safe (see `retry.py`); its answer read, else a typed error."""
        prepared = self.prepare(call)
        attempt = 0
        while True:
            attempt += 1
            time.sleep(self.pause())
            try:
                resp = self.transport.request(prepared.method, prepared.url, prepared.headers, prepared.data,
                                              self.timeout)
            except TransportError:
                wait = self.after_failure(prepared, attempt)
                if wait is None:
                    raise
                time.sleep(wait)
                continue
            again = self.verdict(prepared, resp, attempt)
            if again is None:
                return self.finish(call, resp)
            time.sleep(again)
