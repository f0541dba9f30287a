"""The framework-free anchors of `bench.http` (see bench.anchor): raw ASGI apps on the same server.

`bare` does the litestar anchor's work (one insert a command, `GET /legal` from memory) with nothing but
the ASGI calls, so the framework's own share of a request shows beside it. `game` plays the real games of
bench.steps' mix: a game it has not seen is started as a `STELA_BENCH_SEED` server starts it (its kind is
in its id, `anchor-<kind>-...`), and its platform events are appended then; a command is decoded by the
kind's decoder, decided and folded by the game's own rules through the catalogue (`Table.play_folded`)
for the seat to act, and its events appended with the head check and the hash chain in one statement
(inserted only if the stream's head is the version and hash this process holds), held in a pool as the
event store holds its own. It answers as Stela does: the events as that seat sees them, the status, the
seats to act and, with `include`, the seat's view and legal commands; `GET /legal` from memory, encoded
once a version.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

import msgspec

from bench.anchor import _DDL, _INDEX, _INSERT, Body, Listed, Result, Shown, open_pool
from bench.steps import MIX, SEED
from domain.catalog import GAMES
from domain.simulate import start_table
from domain.table import Table
from service.store.protocol import GENESIS_HASH, event_hash

Handler = Callable[[str, str, bytes, bytes], Awaitable[tuple[int, bytes]]]
_JSON = [(b"content-type", b"application/json")]
_HEALTHY = msgspec.json.encode({"status": "ok"})
_encode = msgspec.json.Encoder()
_GAME_DDL = """CREATE TABLE IF NOT EXISTS game_anchor_events (
    position bigserial PRIMARY KEY, stream_id text NOT NULL, version integer NOT NULL, type text NOT NULL,
    data jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now(), prev_hash text NOT NULL, hash text NOT NULL,
    UNIQUE (stream_id, version))"""
# the batch goes in only if the stream's head is the version and hash this process holds (none for a new
# stream): one statement, one round trip, as the event store's append
_APPEND = """INSERT INTO game_anchor_events (stream_id, version, type, data, prev_hash, hash)
SELECT $1, u.v, u.t, u.d::jsonb, u.p, u.h FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[])
    AS u(v, t, d, p, h)
WHERE CASE WHEN $7::int = 0 THEN NOT EXISTS (SELECT 1 FROM game_anchor_events WHERE stream_id = $1)
      ELSE EXISTS (SELECT 1 FROM game_anchor_events WHERE stream_id = $1 AND version = $7 AND hash = $8) END
RETURNING at"""


def serve(dsn: str, ddl: list[str], handle: Callable[[Any], Handler]) -> Callable[..., Awaitable[None]]:
    """An ASGI app: a pool opened at start-up (`ddl` run once), `/healthz`, and every other request answered
    by `handle(pool)(method, path, query, body)` as (status, JSON body)."""
    held: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                held["pool"] = await open_pool(dsn)
                for statement in ddl:
                    await held["pool"].execute(statement)
                held["handler"] = handle(held["pool"])
                await send({"type": "lifespan.startup.complete"})
            await held["pool"].close()
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if scope["path"] == "/healthz":
            status, answer = 200, _HEALTHY
        else:
            status, answer = await held["handler"](scope["method"], scope["path"], scope["query_string"], body)
        await send({"type": "http.response.start", "status": status,
                    "headers": [*_JSON, (b"content-length", str(len(answer)).encode())]})
        await send({"type": "http.response.body", "body": answer})

    return app


def _route(path: str) -> tuple[str, str] | None:
    """(game id, "commands" or "legal") of `/v1/games/{id}/{what}`."""
    head, _, what = path.rpartition("/")
    prefix = "/v1/games/"
    return (head[len(prefix):], what) if head.startswith(prefix) and what in ("commands", "legal") else None


def bare(dsn: str) -> Callable[..., Awaitable[None]]:
    """The litestar anchor's work without the framework."""
    decode = msgspec.json.Decoder(Body).decode

    def handle(pool: Any) -> Handler:
        versions: dict[str, int] = {}

        async def answer(method: str, path: str, query: bytes, body: bytes) -> tuple[int, bytes]:
            found = _route(path)
            if found is None:
                return 404, b"{}"
            game_id, what = found
            if what == "legal":
                version = versions.get(game_id, 0)
                return 200, _encode.encode(Listed(seat=version % 2, version=version,
                                                  commands=[{"type": "tally.Add", "amount": 1}]))
            command = decode(body)
            version = versions[game_id] = versions.get(game_id, 0) + 1
            seat = version % 2
            data = {"seat": seat, "amount": command.command.get("amount", 1), "rolled": False}
            at = await pool.fetchval(_INSERT, game_id, version, "tally.Added", _encode.encode(data).decode())
            return 200, _encode.encode(Result(version=version, events=[Shown(version, "tally.Added", data,
                                                                            at.isoformat())],
                                              status="active", to_act=[1 - seat]))

        return answer

    return serve(dsn, [_DDL, _INDEX], handle)


class Envelope(msgspec.Struct, forbid_unknown_fields=True):
    command: msgspec.Raw
    expected_version: int | None = None


class Played(msgspec.Struct, kw_only=True):
    version: int
    events: list[dict[str, Any]]
    status: str
    to_act: list[int]
    dry_run: bool = False
    view: Any = None
    legal: list[Any] | None = None


class Held:
    """One game as this process holds it: its table and state, the head's hash, and the current version's
    legal lists (a command's `include=legal` and the next `GET /legal` share one, as Stela's answers do)."""

    def __init__(self, game_id: str) -> None:
        kind = game_id.split("-")[1]
        options, seats = next((o, s) for k, o, s in MIX if k == kind)
        self.table = Table(GAMES[kind])
        self.state, self.setup = start_table(self.table, options, seats, SEED)
        self.head = GENESIS_HASH
        self.lists: dict[tuple[int, int], Any] = {}
        self.listed: dict[tuple[int, int], bytes] = {}

    def seat(self) -> int:
        return min(self.table.to_act(self.state))

    def commands(self, seat: int) -> Any:
        """The seat's legal commands now, listed once a version."""
        key = (self.state.version, seat)
        if key not in self.lists:
            self.lists = {key: self.table.legal(self.state, seat)}
        return self.lists[key]

    def legal(self) -> bytes:
        """`GET /legal` for the seat to act, encoded once a version."""
        seat = self.seat()
        key = (self.state.version, seat)
        if key not in self.listed:
            self.listed = {key: _encode.encode(Listed(seat=seat, version=key[0], commands=self.commands(seat)))}
        return self.listed[key]


def game_handler(pool: Any) -> Handler:
    """The real games' anchor's answers (see the module), on `pool`; `game` serves them with no framework,
    `bench.anchor.create_game` behind a bare Litestar route."""
    decode = msgspec.json.Decoder(Envelope).decode
    games: dict[str, Held] = {}

    async def append(game_id: str, held: Held, version: int, events: list[Any]) -> list[Any]:
        """`events` appended after `version` with their hash chain; the times the database gave them."""
        types = [held.table.event_type(e) for e in events]
        data = [held.table.event_data(e) for e in events]
        hashes, prev = [], held.head
        for i, (type_, fields) in enumerate(zip(types, data)):
            prev = event_hash(prev, game_id, version + i + 1, type_, fields)
            hashes.append(prev)
        rows = await pool.fetch(_APPEND, game_id, list(range(version + 1, version + len(events) + 1)), types,
                                [_encode.encode(d).decode() for d in data], [held.head, *hashes[:-1]], hashes,
                                version, held.head)
        if len(rows) != len(events):
            raise RuntimeError(f"{game_id}: the head moved under this process")
        held.head = hashes[-1]
        return [row[0] for row in rows]

    async def answer(method: str, path: str, query: bytes, body: bytes) -> tuple[int, bytes]:
        found = _route(path)
        if found is None:
            return 404, b"{}"
        game_id, what = found
        held = games.get(game_id)
        if held is None:
            held = games[game_id] = Held(game_id)
            await append(game_id, held, 0, held.setup)
        if what == "legal":
            return 200, held.legal()
        table, before, seat = held.table, held.state, held.seat()
        events, after = table.play_folded(before, seat, table.decode_command_json(decode(body).command))
        times = await append(game_id, held, before.version, events)
        held.state = after
        public = after.status in ("finished", "aborted")
        shown = []
        for i, (event, at) in enumerate(zip(events, times)):
            seen = table.redact(event, seat, public)
            if seen is not None:
                shown.append({"version": before.version + i + 1, "type": table.event_type(seen),
                              "data": table.event_data(seen), "at": at.isoformat()})
        wanted = parse_qs(query.decode()).get("include", [""])[0].split(",")
        return 200, _encode.encode(Played(
            version=after.version, events=shown, status=after.status, to_act=table.to_act(after),
            view=table.view(after, seat) if "view" in wanted else None,
            legal=held.commands(seat) if "legal" in wanted else None))

    return answer


def game(dsn: str) -> Callable[..., Awaitable[None]]:
    """The real games' anchor (see the module), a raw ASGI app."""
    return serve(dsn, [_GAME_DDL], game_handler)
