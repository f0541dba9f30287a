"""The bots' caller: the Python SDK's `Client` (`clients/python`, package `stela_client`) and nothing else.

Every request, retry and stream of the bots goes through the SDK: bearer token, typed problems
(`stela_client.StelaError` with the stable `code`), 429/503 waited out after `Retry-After`, transport
failures retried only where that is safe (reads, and writes carrying an `Idempotency-Key`). The
bots' own loops (`play`, `bot`, `loadtest`) use its typed answers; `ApiClient` adds the JSON-shaped
answers (plain dicts, as the wire has them) that the strategies and the head-to-head read.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec
from stela_client import Client, HttpxTransport, StelaError

Json = dict[str, Any]
ApiError = StelaError  # a refusal: `.status`, `.code`, `.problem`


class ApiClient:
    """One player (or a spectator) of the bots: `sdk` does the work; the methods answer JSON objects.

    `http` is the SDK `Client` to use, or an `httpx.AsyncClient` with the service's base URL (driven
    through the SDK's `HttpxTransport`; the caller closes it).
    """

    def __init__(self, http: Client | httpx.AsyncClient, token: str | None = None,
                 rng: random.Random | None = None) -> None:
        if isinstance(http, Client):
            self.sdk = http
            if token is not None:
                self.sdk.token = token
        else:
            self.sdk = Client(str(http.base_url), token, transport=HttpxTransport(http), rng=rng)

    @property
    def token(self) -> str | None:
        return self.sdk.token

    @property
    def counters(self) -> Any:
        return self.sdk.counters

    async def register(self, name: str) -> Json:
        """A new player; this client then acts as that player."""
        return _json(await self.sdk.register(name))

    async def me(self) -> str | None:
        """The caller's player id, or None where the service cannot tell."""
        try:
            return (await self.sdk.me()).id
        except StelaError as exc:
            if exc.status in (400, 404, 405):
                return None
            raise

    async def player_games(self, player_id: str, limit: int = 50) -> list[Json]:
        return [_json(g) for g in (await self.sdk.player_games(player_id, limit)).items]

    async def games(self, **filters: Any) -> list[Json]:
        """One page of `GET /v1/games` with the given filters."""
        return [_json(g) for g in (await self.sdk.games(**filters)).items]

    async def create(self, kind: str, seats: int, options: dict[str, Any] | None = None, join: bool = True) -> Json:
        return _json(await self.sdk.create_game(kind, seats, options, join=join))

    async def join(self, game_id: str, seat: int | None = None) -> Json:
        return _json(await self.sdk.join(game_id, seat))

    async def start(self, game_id: str) -> Json:
        return _json(await self.sdk.start(game_id))

    async def game(self, game_id: str) -> Json:
        return _json(await self.sdk.game(game_id))

    async def legal(self, game_id: str) -> Json:
        return _json(await self.sdk.legal(game_id))

    async def request(self, method: str, path: str, json: Any = None, params: dict[str, Any] | None = None,
                      key: str | None = None) -> Any:
        """Any endpoint the SDK has no method for (the bot worker's leases): its decoded JSON answer."""
        return await self.sdk.json(method, path, body=json, params=params, key=key)

    @property
    def http(self) -> Reader:
        """Plain GETs through the SDK, answered as `content` bytes and `json()` (what `bench.tournament`'s
        audit reads)."""
        return Reader(self.sdk)


@dataclass(frozen=True)
class Fetched:
    content: bytes

    def json(self) -> Any:
        return msgspec.json.decode(self.content)


@dataclass(frozen=True)
class Reader:
    sdk: Client

    async def get(self, path: str, params: dict[str, Any] | None = None) -> Fetched:
        return Fetched((await self.sdk.send("GET", path, params=params)).body)


def _json(value: msgspec.Struct) -> Json:
    out: Json = msgspec.to_builtins(value)
    return out
