"""A small async client of Stela's public HTTP API, as a third-party author would write it.

It speaks only HTTP and JSON: bearer token, RFC 9457 problems turned into `ApiError` (with the
stable `code`), 429/503 retried after `Retry-After`, and transport failures retried only where a
retry is safe (reads, and commands carrying an `Idempotency-Key`, which the server deduplicates).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
from typing import Any

import httpx

from service.bots.sse import Message, follow

MAX_BACKOFF = 30.0


class ApiError(Exception):
    """A problem response: `status`, the stable `code` and the whole body."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status, self.body = status, body
        self.code = str(body.get("code", ""))
        super().__init__(f"{status} {self.code}: {body.get('detail', '')}")


def retry_after(value: str | None, default: float = 1.0) -> float:
    """Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date), capped."""
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds()
        except (TypeError, ValueError):
            return default
    return min(max(seconds, 0.0), MAX_BACKOFF)


@dataclass
class Counters:
    """What the client had to absorb: throttled (429/503) and transport retries."""

    throttled: int = 0
    transport_retries: int = 0


@dataclass
class ApiClient:
    """One caller (a token, or none) over a shared `httpx.AsyncClient` with the service's base URL."""

    http: httpx.AsyncClient
    token: str | None = None
    attempts: int = 8
    counters: Counters = field(default_factory=Counters)
    rng: random.Random = field(default_factory=random.Random)

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def request(self, method: str, path: str, json: Any = None, params: dict[str, Any] | None = None,
                      key: str | None = None) -> Any:
        """The decoded JSON body of a 2xx answer; raises `ApiError` for any other final answer."""
        headers = dict(self.auth)
        if key is not None:
            headers["Idempotency-Key"] = key
        safe = method == "GET" or key is not None
        for attempt in range(self.attempts):
            last = attempt == self.attempts - 1
            try:
                resp = await self.http.request(method, path, json=json, params=params, headers=headers)
            except httpx.TransportError:
                if not safe or last:
                    raise
                self.counters.transport_retries += 1
                await asyncio.sleep(min(0.1 * 2 ** attempt, MAX_BACKOFF))
                continue
            if resp.status_code in (429, 503) and not last:
                self.counters.throttled += 1
                wait = retry_after(resp.headers.get("Retry-After"), 0.2 * 2 ** attempt)
                await asyncio.sleep(wait * (1 + self.rng.random() / 4))  # jitter spreads the herd
                continue
            if resp.status_code >= 400:
                try:
                    body = resp.json()
                except ValueError:
                    body = {"detail": resp.text[:500]}
                raise ApiError(resp.status_code, body if isinstance(body, dict) else {"detail": body})
            return resp.json() if resp.content else None
        raise AssertionError("unreachable: the last attempt returns or raises")

    # -- players -----------------------------------------------------------
    async def register(self, name: str) -> dict[str, Any]:
        """A new player (`id`, `name`, `token`); this client then acts as that player."""
        body = await self.request("POST", "/v1/players", json={"name": name})
        self.token = body["token"]
        return body

    async def me(self) -> str | None:
        """The caller's player id from `GET /v1/players/me`, or None where the service lacks it."""
        try:
            body = await self.request("GET", "/v1/players/me")
        except ApiError as exc:
            if exc.status in (400, 404, 405):
                return None
            raise
        return body.get("id") if isinstance(body, dict) else None

    async def player_games(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        return (await self.request("GET", f"/v1/players/{player_id}/games", params={"limit": limit}))["items"]

    # -- games -------------------------------------------------------------
    async def games(self, **filters: Any) -> list[dict[str, Any]]:
        """One page of `GET /v1/games` with the given filters (booleans sent as true/false)."""
        params = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in filters.items() if v is not None}
        return (await self.request("GET", "/v1/games", params=params))["items"]

    async def create(self, kind: str, seats: int, options: dict[str, Any] | None = None,
                     join: bool = True) -> dict[str, Any]:
        return await self.request("POST", "/v1/games", json={"kind": kind, "seats": seats,
                                                              "options": options or {}, "join": join})

    async def join(self, game_id: str, seat: int | None = None) -> dict[str, Any]:
        return await self.request("POST", f"/v1/games/{game_id}/join", json={"seat": seat})

    async def start(self, game_id: str) -> dict[str, Any]:
        return await self.request("POST", f"/v1/games/{game_id}/start")

    async def game(self, game_id: str) -> dict[str, Any]:
        return await self.request("GET", f"/v1/games/{game_id}")

    async def legal(self, game_id: str) -> dict[str, Any]:
        return await self.request("GET", f"/v1/games/{game_id}/legal")

    async def command(self, game_id: str, command: dict[str, Any], expected_version: int | None,
                      key: str | None = None, dry_run: bool = False, legal: bool = False) -> dict[str, Any]:
        """Post one command; a dry run asks for the resulting `view` too, `legal` for the seat's legal commands
        after it (`legal` in the answer, so a seat that acts again needs no `GET /legal`; older servers ignore
        both)."""
        params = {"dry_run": "true", "include": "view"} if dry_run else {"include": "legal"} if legal else None
        return await self.request("POST", f"/v1/games/{game_id}/commands", params=params, key=key,
                                  json={"command": command, "expected_version": expected_version})

    def stream(self, game_id: str, last_id: str | None = None, read_timeout: float = 60.0) -> AsyncIterator[Message]:
        """The game's SSE messages as this caller may see them, resuming across reconnections."""
        return follow(self.http, f"/v1/games/{game_id}/stream", self.auth, last_id, read_timeout)
