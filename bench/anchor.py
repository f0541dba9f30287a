"""The anchors of `bench.http`: the least a command endpoint can do, served as `stela serve` serves Stela.

Four, each run as `python -m bench.anchor PORT DSN [litestar|bare|game|litestar_game]`, each answering
`GET /legal` from memory as Stela answers it from its cache (until 2026-11-29 the litestar anchor read the
stream's last row for it, which flattered `full_step_vs_anchor`: 0.75 printed, 0.53 against an anchor
answering from memory):
- `litestar`: a bare Litestar app; a POST decodes the same request body, inserts one row into an
  `events`-shaped table (indexed by stream and version, as the event store's is) with one asyncpg
  statement, and answers with a body of the same shape and size as Stela's command response;
- `bare`: the same work with no framework at all, a raw ASGI app (`bench.anchor_asgi`), so the framework's
  own cost shows beside it;
- `game`: a raw ASGI app that plays the real games (`bench.anchor_asgi.GameAnchor`): it decodes the command
  with the kind's decoder, decides and folds it with the game's own rules through the catalogue, and appends
  its events with the head check and the hash chain in one statement; it answers as Stela does (events as
  the seat sees them, `include=view,legal`). What Stela does beyond it is the platform's: tokens, seats,
  idempotency, budgets, logs, fan-out;
- `litestar_game`: the game anchor's very answers behind Litestar's cheapest routes (`create_game`: the
  request and the path's game id, the body's bytes in and the answer's bytes out), so the least a server
  pays whose routes take their parameters and bodies through the framework shows beside the game anchor
  (`*_litestar_ceiling`; an `@asgi` handler, which takes none, would pay the router alone).

Each is served as `stela serve` serves Stela (uvicorn, uvloop, and the HTTP protocol whose response head
and body leave in one write, `service.cli.wire`), and its pool holds connections as the event store's
does: one acquire per statement, and no reset query when a connection comes back (`keep_session`).
asyncpg's default sends one, a second round trip per request: until 2026-11-28 the anchor did, which
cost it ~15-30% of its throughput at 16 games and so flattered every ratio reported against it.

Measured 2026-11-29 (real games, 16 games, three alternating rounds, load 14-21 from other work; every request
through the framework's router): server CPU per POST Stela 0.493 ms, litestar anchor 0.257, framework-free
anchor 0.123, game anchor 0.320; `real_post_vs_game_anchor` 0.67 and `full_step_vs_game_anchor` 0.59 beside
`real_post_vs_anchor` 0.37 and `full_step_vs_anchor` 0.42 (each the median of three rounds that spread widely).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import asyncpg
import msgspec
from litestar import Litestar, Request, Response, get, post
from litestar.params import PathParameter

from service.store.postgres import keep_session

_DDL = """CREATE TABLE IF NOT EXISTS anchor_events (
    position bigserial PRIMARY KEY, stream_id text NOT NULL, version integer NOT NULL, type text NOT NULL,
    data jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now())"""
_INDEX = "CREATE INDEX IF NOT EXISTS anchor_events_stream ON anchor_events (stream_id, version)"
_INSERT = "INSERT INTO anchor_events (stream_id, version, type, data) VALUES ($1, $2, $3, $4::jsonb) RETURNING at"


class Body(msgspec.Struct):
    command: dict[str, Any]
    expected_version: int | None = None


class Shown(msgspec.Struct):
    version: int
    type: str
    data: dict[str, Any]
    at: str


class Result(msgspec.Struct):
    version: int
    events: list[Shown]
    status: str
    to_act: list[int]
    dry_run: bool = False


async def open_pool(dsn: str) -> asyncpg.Pool:
    """An anchor's pool, held as the event store holds its own: no reset query when a connection comes back,
    one connection kept when idle, and at most as many as Stela's `STELA_DB_POOL_MAX` allows a process (20
    by default)."""
    return await asyncpg.create_pool(dsn, min_size=1, max_size=int(os.environ.get("STELA_DB_POOL_MAX") or 20),
                                     reset=keep_session)


_decode = msgspec.json.Decoder(Body)
_versions: dict[str, int] = {}


@post("/v1/games/{game_id:str}/commands", status_code=200)
async def command(request: Request, game_id: Annotated[str, PathParameter()]) -> Result:
    body = _decode.decode(await request.body())
    version = _versions.get(game_id, 0) + 1
    _versions[game_id] = version
    seat = version % 2
    data = {"seat": seat, "amount": body.command.get("amount", 1), "rolled": False}
    at = await request.app.state.pool.fetchval(_INSERT, game_id, version, "tally.Added",
                                               msgspec.json.encode(data).decode())
    return Result(version=version, events=[Shown(version, "tally.Added", data, at.isoformat())],
                  status="active", to_act=[1 - seat])


class Listed(msgspec.Struct):
    seat: int | None
    version: int
    commands: list[dict[str, Any]]


@get("/v1/games/{game_id:str}/legal")
async def legal(game_id: Annotated[str, PathParameter()]) -> Listed:
    """The anchor of reading what to play: from memory, as Stela answers from its cache."""
    version = _versions.get(game_id, 0)
    return Listed(seat=version % 2, version=version, commands=[{"type": "tally.Add", "amount": 1}])


@get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


def create(dsn: str) -> Litestar:
    async def start(app: Litestar) -> None:
        app.state.pool = await open_pool(dsn)
        await app.state.pool.execute(_DDL)
        await app.state.pool.execute(_INDEX)

    async def stop(app: Litestar) -> None:
        await app.state.pool.close()

    return Litestar([command, legal, healthz], on_startup=[start], on_shutdown=[stop])


def create_game(dsn: str) -> Litestar:
    """The game anchor (`bench.anchor_asgi.game_handler`: the same answers, the same pool) behind the
    cheapest Litestar routes: the request and the path's game id, the body read from the request, the
    answer's bytes returned as they are. The framework's least cost a request, on top of the game anchor's."""
    from bench.anchor_asgi import _GAME_DDL, game_handler

    @post("/v1/games/{game_id:str}/commands", status_code=200)
    async def game_command(request: Request, game_id: Annotated[str, PathParameter()]) -> Response[bytes]:
        return await _answered(request, await request.body())

    @get("/v1/games/{game_id:str}/legal")
    async def game_legal(request: Request, game_id: Annotated[str, PathParameter()]) -> Response[bytes]:
        return await _answered(request, b"")

    async def _answered(request: Request, body: bytes) -> Response[bytes]:
        scope = request.scope
        status, answer = await request.app.state.answer(scope["method"], scope["path"], scope["query_string"], body)
        return Response(answer, status_code=status, media_type="application/json")

    async def start(app: Litestar) -> None:
        app.state.pool = await open_pool(dsn)
        await app.state.pool.execute(_GAME_DDL)
        app.state.answer = game_handler(app.state.pool)

    async def stop(app: Litestar) -> None:
        await app.state.pool.close()

    return Litestar([game_command, game_legal, healthz], on_startup=[start], on_shutdown=[stop])


if __name__ == "__main__":
    import uvicorn

    from service.cli.wire import HttpProtocol

    which = sys.argv[3] if len(sys.argv) > 3 else "litestar"
    if which == "litestar":
        served: Any = create(sys.argv[2])
    elif which == "litestar_game":
        served = create_game(sys.argv[2])
    else:
        from bench.anchor_asgi import bare, game

        served = bare(sys.argv[2]) if which == "bare" else game(sys.argv[2])
    uvicorn.run(served, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False,
                loop="uvloop", http=HttpProtocol)
