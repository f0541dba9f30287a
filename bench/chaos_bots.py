"""The fault suite's players: real games over HTTP, every POST with an Idempotency-Key, and a ledger.

Each request goes to a replica picked at random from the fleet's current addresses. A connection
error, a timeout, a 5xx or a 429 is retried (after a short backoff, on any replica) with the same
key and body until an answer is final or the request's deadline passes. The `Ledger` remembers, per
key, what was sent, by whom and how it ended: acknowledged (with the versions the answer names),
refused (a final 4xx), or given up (no final answer: whether it committed is unknown, and a
retry with the same key would explain a commit). Every 500 and any other 5xx except the
documented 503 is counted, whatever happened next. A replica answers reads from its cache when the
fan-out tells it nothing newer, so a read sent right after an acknowledged command may find the
version before it (the message is still on its way, or Redis is down): the bots note such a stale
read and ask again with `min_version`, the API's read-your-writes.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import httpx

KINDS = ["tikal", "coatl", "tobago", "goldmine"]
RETRIED = (429, 500, 502, 503, 504)


@dataclass
class Sent:
    """One keyed POST and how it ended."""

    key: str
    what: str  # create, join, start, command
    actor: str
    game_id: str | None
    body: Any
    outcome: str = "pending"  # acknowledged, refused, gave_up
    status: int | None = None
    versions: tuple[int, int] | None = None  # the event versions the answer showed (first, last)
    answered_version: int | None = None
    attempts: int = 0


@dataclass
class Ledger:
    sent: list[Sent] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)  # a 5xx other than 503, as "METHOD path status body"
    transport_errors: int = 0
    stale_reads: list[str] = field(default_factory=list)  # cached answers older than an acknowledged version
    acked_at: list[float] = field(default_factory=list)

    def acknowledged(self) -> int:
        return sum(s.outcome == "acknowledged" for s in self.sent)


class Client:
    """HTTP against whichever replicas are up, retrying what may be retried."""

    def __init__(self, urls: Callable[[], list[str]], ledger: Ledger, rnd: random.Random,
                 deadline_s: float = 180.0) -> None:
        self.urls, self.ledger, self.rnd, self.deadline_s = urls, ledger, rnd, deadline_s
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=3.0))

    async def close(self) -> None:
        await self.http.aclose()

    async def call(self, method: str, path: str, token: str | None = None, json: Any = None,
                   params: dict[str, str] | None = None, sent: Sent | None = None) -> httpx.Response | None:
        """The final answer (2xx or a 4xx other than 429), or None when the deadline passed first."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if sent is not None:
            headers["Idempotency-Key"] = sent.key
        deadline = time.monotonic() + self.deadline_s
        pause = 0.1
        while time.monotonic() < deadline:
            url = self.rnd.choice(self.urls()) + path
            if sent is not None:
                sent.attempts += 1
            try:
                resp = await self.http.request(method, url, headers=headers, json=json, params=params)
            except httpx.TransportError:
                self.ledger.transport_errors += 1
            else:
                self.ledger.statuses[resp.status_code] += 1
                if resp.status_code >= 500 and resp.status_code != 503:
                    self.ledger.server_errors.append(f"{method} {path} {resp.status_code} {resp.text[:300]}")
                if resp.status_code not in RETRIED:
                    return resp
            await asyncio.sleep(pause * (1 + self.rnd.random()))
            pause = min(pause * 2, 2.0)
        return None

    async def post(self, sent: Sent, path: str, token: str, params: dict[str, str] | None = None) -> dict | None:
        """A keyed POST recorded in the ledger; the answer's body when acknowledged."""
        self.ledger.sent.append(sent)
        resp = await self.call("POST", path, token, sent.body, params, sent)
        if resp is None:
            sent.outcome = "gave_up"
            return None
        sent.status = resp.status_code
        if resp.status_code >= 300:
            sent.outcome = "refused"
            return None
        body = resp.json()
        sent.outcome = "acknowledged"
        sent.answered_version = body.get("version")
        shown = [e["version"] for e in body.get("events") or []]
        sent.versions = (min(shown), max(shown)) if shown else None
        if sent.game_id is None:
            sent.game_id = body.get("id")
        self.ledger.acked_at.append(time.monotonic())
        return body


@dataclass
class Player:
    id: str
    token: str


async def register(client: Client, name: str) -> Player:
    """A new player (registration carries no key: a retried one may leave an unused player behind)."""
    while True:
        resp = await client.call("POST", "/v1/players", json={"name": name})
        if resp is not None and resp.status_code == 201:
            body = resp.json()
            return Player(body["id"], body["token"])


def key() -> str:
    return str(uuid.uuid4())


@dataclass
class Pace:
    """How a game is played: with a per-move clock, `dawdle` is the chance a seat waits out its deadline
    (so the timeout worker plays for it); `watch(game_id, host_token)` is told of each new game."""

    per_move_seconds: int | None = None
    dawdle: float = 0.0
    watch: Callable[[str, str], None] | None = None


async def play(client: Client, kind: str, seats: int, stop: asyncio.Event, rnd: random.Random,
               max_commands: int = 100_000, pace: Pace | None = None) -> str:
    """Create, fill, start and play one game with random legal commands until it ends or `stop` is set;
    returns how it ended (finished, stopped, or what prevented it)."""
    pace = pace or Pace()
    players = [await register(client, f"{kind}-{i}") for i in range(seats)]
    host = players[0]
    body: dict[str, Any] = {"kind": kind, "seats": seats, "options": {}}
    if pace.per_move_seconds:
        body["time_control"] = {"per_move_seconds": pace.per_move_seconds, "abandon_after": 3}
    created = await client.post(Sent(key(), "create", host.id, None, body), "/v1/games", host.token)
    if created is None:
        return "create_failed"
    game_id = created["id"]
    if pace.watch is not None:
        pace.watch(game_id, host.token)
    for p in players[1:]:
        if await client.post(Sent(key(), "join", p.id, game_id, {}), f"/v1/games/{game_id}/join", p.token) is None:
            return "join_failed"
    started = await client.post(Sent(key(), "start", host.id, game_id, None), f"/v1/games/{game_id}/start",
                                host.token)
    if started is None:
        return "start_failed"
    return await drive(client, game_id, dict(enumerate(players)), stop, rnd, max_commands, pace,
                       started.get("version") or 0)


async def read_game(client: Client, game_id: str, known: int) -> dict | None:
    """The game at `known` or later: a replica's cached answer older than a version already acknowledged
    is noted in the ledger as a stale read and asked again with `min_version` (read-your-writes)."""
    resp = await client.call("GET", f"/v1/games/{game_id}")
    if resp is not None and resp.status_code == 200 and resp.json()["version"] < known:
        client.ledger.stale_reads.append(f"{game_id}: read v{resp.json()['version']} after v{known} was acknowledged")
        resp = await client.call("GET", f"/v1/games/{game_id}", params={"min_version": str(known)})
    return resp.json() if resp is not None and resp.status_code == 200 else None


async def drive(client: Client, game_id: str, by_seat: dict[int, Player], stop: asyncio.Event, rnd: random.Random,
                max_commands: int = 100_000, pace: Pace | None = None, known: int = 0) -> str:
    """Play a started game's seats (`by_seat`) with random legal commands until it ends or `stop` is set;
    `known` is the last version acknowledged to the bots."""
    pace = pace or Pace()
    legal: dict[str, Any] | None = None  # the acting seat's legal commands, when an answer brought them
    for _ in range(max_commands):
        if stop.is_set():
            return "stopped"
        if legal is None:
            game = await read_game(client, game_id, known)
            if game is None:
                return "read_failed"
            known = max(known, game["version"])
            if game["status"] != "active":
                return game["status"]
            seat = rnd.choice(game["to_act"])
            resp = await client.call("GET", f"/v1/games/{game_id}/legal", by_seat[seat].token)
            if resp is None or resp.status_code != 200:
                return f"legal_failed_{resp.status_code if resp is not None else 'timeout'}"
            legal = resp.json()
        seat, commands = legal["seat"], legal["commands"]
        if seat is None or not commands:
            legal = None
            continue
        actor = by_seat[seat]
        if pace.per_move_seconds and rnd.random() < pace.dawdle:
            await asyncio.sleep(pace.per_move_seconds + 1)  # past the deadline: the timeout worker moves first
        envelope = {"command": rnd.choice(commands), "expected_version": legal["version"]}
        done = await client.post(Sent(key(), "command", actor.id, game_id, envelope),
                                 f"/v1/games/{game_id}/commands", actor.token, params={"include": "legal"})
        legal = None
        known = max(known, done["version"]) if done is not None else known
        if done is not None and done["status"] != "active":
            return done["status"]
        if done is not None and done.get("legal") and seat in done["to_act"]:
            # the same seat acts again: its legal commands came with the answer
            legal = {"seat": seat, "version": done["version"], "commands": done["legal"]}
    return "too_long"
