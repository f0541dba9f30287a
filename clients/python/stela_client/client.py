"""`Client`: one caller of the Stela API (a bearer token, or none: a spectator), async and typed.

    async with Client("http://localhost:8000") as ann:
        await ann.register("Ann")                       # or Client(url, token=...) to sign in
        game = await ann.create_game("coatl", seats=2)
        ...
        legal = await ann.legal(game.id)
        result = await ann.command(game.id, legal.commands[0], legal.version)

Every write that the server deduplicates carries an `Idempotency-Key` (generated when not given), so
a lost answer is retried safely with the same key; rate limits and outages are waited out as
`retry.py` says; refusals raise the typed errors of `errors.py`. Streams: `game_stream`,
`personal_stream` and `stream` (many games and the personal notices on one connection), each
resuming by itself (`streams.py`).
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

import msgspec

from stela_client import models as m
from stela_client.codec import decode, encode, problem_of
from stela_client.errors import StelaError, TransportError, error_for
from stela_client.retry import Backoff, Counters, retry_after
from stela_client.streams import GameStream, MultiStream, PersonalStream, TournamentStream
from stela_client.transport import AiohttpTransport, Response, Transport

T = TypeVar("T")


def path_of(*parts: str) -> str:
    """A path from segments, each percent-encoded (an id cannot smuggle a `/` or a query)."""
    return "/" + "/".join(quote(p, safe="") for p in parts)


class Client:
    """One caller over one transport. `token` signs in; `register` signs in as the new player."""

    def __init__(self, base_url: str, token: str | None = None, *, transport: Transport | None = None,
                 backoff: Backoff | None = None, timeout: float = 30.0, rng: random.Random | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.transport: Transport = transport if transport is not None else AiohttpTransport()
        self.backoff = backoff or Backoff()
        self.timeout = timeout
        self.counters = Counters(rng=rng or random.Random())

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the transport (a transport shared with other clients: close it once, yourself)."""
        await self.transport.close()

    def as_player(self, token: str | None) -> Client:
        """Another caller on the same transport (and connections): sign in with `token`."""
        other = Client(self.base_url, token, transport=self.transport, backoff=self.backoff, timeout=self.timeout,
                       rng=self.counters.rng)
        other.counters = Counters(rng=self.counters.rng)
        return other

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        query = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        return self.base_url + path + ("?" + urlencode(query) if query else "")

    # ------------------------------------------------------------------------------------------ requests

    async def send(self, method: str, path: str, *, body: Any = None, params: Mapping[str, Any] | None = None,
                   key: str | None = None) -> Response:
        """One request, retried where that is safe (see `retry.py`); the 2xx answer, else a typed error."""
        headers = {"Accept": "application/json", **self.auth}
        if key is not None:
            headers["Idempotency-Key"] = key
        data = None if body is None else encode(body)
        if data is not None:
            headers["Content-Type"] = "application/json"
        safe = method in ("GET", "HEAD") or key is not None
        url, attempts = self.url(path, params), max(self.backoff.attempts, 1)
        for attempt in range(1, attempts + 1):
            try:
                resp = await self.transport.request(method, url, headers, data, self.timeout)
            except TransportError:
                if not safe or attempt == attempts:
                    raise
                self.counters.transport_retries += 1
                await asyncio.sleep(self.backoff.delay(attempt, None, self.counters.rng))
                continue
            told = retry_after(resp.headers.get("Retry-After"))
            if attempt < attempts and (resp.status == 429 or (resp.status == 503 and safe)):
                self.counters.throttled += 1
                await asyncio.sleep(self.backoff.delay(attempt, told, self.counters.rng))
                continue
            if resp.status >= 400:
                raise error_for(resp.status, problem_of(resp.body), told)
            return resp
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def call(self, method: str, path: str, type: type[T], *, body: Any = None,
                   params: Mapping[str, Any] | None = None, key: str | None = None) -> T:
        """`send`, its answer decoded as `type`."""
        return decode((await self.send(method, path, body=body, params=params, key=key)).body, type)

    async def json(self, method: str, path: str, *, body: Any = None, params: Mapping[str, Any] | None = None,
                   key: str | None = None) -> Any:
        """`send`, its answer as plain JSON (None for an empty body): for what has no model here."""
        resp = await self.send(method, path, body=body, params=params, key=key)
        return msgspec.json.decode(resp.body) if resp.body else None

    # ------------------------------------------------------------------------------------------ players

    async def register(self, name: str) -> m.Player:
        """A new player; this client then acts as that player (its `token` is set)."""
        player = await self.call("POST", "/v1/players", m.Player, body={"name": name})
        self.token = player.token
        return player

    async def me(self) -> m.Me:
        return await self.call("GET", "/v1/players/me", m.Me)

    async def rotate_token(self) -> str:
        """A new token for this player (the old one stops working); this client switches to it."""
        self.token = str((await self.json("POST", "/v1/players/me/token"))["token"])
        return self.token

    async def revoke_token(self) -> None:
        await self.send("DELETE", "/v1/players/me/token")
        self.token = None

    async def player_games(self, player_id: str, limit: int = 50, cursor: str | None = None) -> m.PlayerGamePage:
        return await self.call("GET", path_of("v1", "players", player_id, "games"), m.PlayerGamePage,
                               params={"limit": limit, "cursor": cursor})

    # ------------------------------------------------------------------------------------------ games

    async def kinds(self) -> list[dict[str, Any]]:
        """Every kind with its option, command, event and view schemas and rule-violation codes."""
        return await self.call("GET", "/v1/kinds", list[dict[str, Any]])

    async def create_game(self, kind: str, seats: int, options: Mapping[str, Any] | msgspec.Struct | None = None, *,
                          join: bool = True, time_control: Mapping[str, Any] | None = None,
                          key: str | None = None) -> m.Game:
        chosen = msgspec.to_builtins(options) if isinstance(options, msgspec.Struct) else dict(options or {})
        body: dict[str, Any] = {"kind": kind, "seats": seats, "options": chosen, "join": join}
        if time_control:
            body["time_control"] = dict(time_control)
        return await self.call("POST", "/v1/games", m.Game, body=body, key=key or _key())

    async def games(self, *, kind: str | None = None, status: str | None = None, player: str | None = None,
                    open_seats: bool | None = None, limit: int | None = None,
                    cursor: str | None = None) -> m.GamePage:
        """One page of the game list (a read model: a game shows up a moment after it changed)."""
        return await self.call("GET", "/v1/games", m.GamePage, params={
            "kind": kind, "status": status, "player": player, "open_seats": open_seats, "limit": limit,
            "cursor": cursor})

    async def game(self, game_id: str) -> m.Game:
        return await self.call("GET", path_of("v1", "games", game_id), m.Game)

    async def join(self, game_id: str, seat: int | None = None, *, key: str | None = None) -> m.Game:
        return await self.call("POST", path_of("v1", "games", game_id, "join"), m.Game, body={"seat": seat},
                               key=key or _key())

    async def leave(self, game_id: str, *, key: str | None = None) -> m.Game:
        return await self.call("POST", path_of("v1", "games", game_id, "leave"), m.Game, key=key or _key())

    async def start(self, game_id: str, *, key: str | None = None) -> m.Game:
        return await self.call("POST", path_of("v1", "games", game_id, "start"), m.Game, key=key or _key())

    async def legal(self, game_id: str) -> m.Legal:
        return await self.call("GET", path_of("v1", "games", game_id, "legal"), m.Legal)

    async def command(self, game_id: str, command: Mapping[str, Any] | msgspec.Struct,
                      expected_version: int | None = None, *,
                      key: str | None = None, include: Iterable[str] = (), dry_run: bool = False) -> m.CommandResult:
        """Post one command as decided at `expected_version` (a different version: `VersionConflict`).

        The `Idempotency-Key` (`key`, else a fresh one) makes a retry after a lost answer safe: the
        server replays the first result. `include` asks for `"legal"` and/or `"view"` after the command.
        `command` is a JSON object (as `legal` lists them) or a typed command of `stela_client.kinds`.
        """
        sent = command if isinstance(command, msgspec.Struct) else dict(command)
        params = {"include": ",".join(include) or None, "dry_run": True if dry_run else None}
        return await self.call("POST", path_of("v1", "games", game_id, "commands"), m.CommandResult,
                               body={"command": sent, "expected_version": expected_version},
                               params=params, key=key or _key())

    async def resign(self, game_id: str, *, key: str | None = None) -> m.CommandResult:
        return await self.command(game_id, {"type": "table.Resign"}, key=key)

    async def events(self, game_id: str, after: int = 0, limit: int | None = None) -> m.EventPage:
        return await self.call("GET", path_of("v1", "games", game_id, "events"), m.EventPage,
                               params={"after": after, "limit": limit})

    async def export(self, game_id: str) -> bytes:
        """The full log as NDJSON (after the end)."""
        return (await self.send("GET", path_of("v1", "games", game_id, "export"))).body

    # ------------------------------------------------------------------------------------------ streams

    async def game_ticket(self, game_id: str) -> m.Ticket:
        return await self.call("POST", path_of("v1", "games", game_id, "stream-tickets"), m.Ticket)

    async def personal_ticket(self) -> m.Ticket:
        return await self.call("POST", "/v1/players/me/stream-tickets", m.Ticket)

    async def stream_ticket(self) -> m.Ticket:
        """A ticket for the multiplexed stream (`GET /v1/stream`)."""
        return await self.call("POST", "/v1/stream-tickets", m.Ticket)

    def game_stream(self, game_id: str, *, last_event_id: str | None = None, ticket: bool = False,
                    read_timeout: float = 60.0) -> GameStream:
        """The game's frames (`Snapshot`, then `EventFrame`s) as this caller may see them, resuming by itself."""
        return GameStream(self, game_id, last_event_id=last_event_id, ticket=ticket, read_timeout=read_timeout)

    def personal_stream(self, *, legal: bool = False, last_event_id: str | None = None, ticket: bool = False,
                        read_timeout: float = 60.0) -> PersonalStream:
        """Notices (`GameState`, `GameStarted`, `YourTurn`, `GameEnded`) about every game of this player;
        with `legal`, a notice of this player's turn carries the seat's legal commands."""
        return PersonalStream(self, legal=legal, last_event_id=last_event_id, ticket=ticket,
                              read_timeout=read_timeout)

    def stream(self, games: Iterable[str] = (), *, personal: bool = False, legal: bool = False,
               ticket: bool = False, read_timeout: float = 60.0) -> MultiStream:
        """Several games (and with `personal` this player's notices) on one connection, each resuming exactly."""
        return MultiStream(self, list(games), personal=personal, legal=legal, ticket=ticket,
                           read_timeout=read_timeout)

    def tournament_stream(self, tournament_id: str, *, read_timeout: float = 60.0) -> TournamentStream:
        """A tournament's events (public), as `(event type, data)` pairs, resuming by itself."""
        return TournamentStream(self, tournament_id, read_timeout=read_timeout)

    # ------------------------------------------------------------------------------------------ tournaments
    # (the tournament endpoints take no Idempotency-Key: their writes are not retried after a lost answer)

    async def create_tournament(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A tournament organised by this player (`fields` as `TournamentCreate`: seats, rounds, options...)."""
        out: dict[str, Any] = await self.json("POST", "/v1/tournaments", body={"kind": kind, **fields})
        return out

    async def tournament(self, tournament_id: str) -> dict[str, Any]:
        out: dict[str, Any] = await self.json("GET", path_of("v1", "tournaments", tournament_id))
        return out

    async def register_for(self, tournament_id: str) -> dict[str, Any]:
        out: dict[str, Any] = await self.json("POST", path_of("v1", "tournaments", tournament_id, "register"),
                                              body={})
        return out

    async def start_tournament(self, tournament_id: str) -> dict[str, Any]:
        out: dict[str, Any] = await self.json("POST", path_of("v1", "tournaments", tournament_id, "start"))
        return out


def _key() -> str:
    return uuid.uuid4().hex


def _param(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


__all__ = ["Client", "StelaError", "decode", "path_of", "problem_of"]
