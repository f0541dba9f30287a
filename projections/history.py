"""Per-player history: one row per (player, game) with the seat, status and, at the end, score and rank.

A seat is taken after the game is created, often in a later batch, so the
kind and creation position of games still running are kept in a small side
table (`rm_history_open`) that forgets each game when it ends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from projections.base import delete, load, upsert
from projections.log import LogEvent

TABLE = "rm_player_games"
OPEN = "rm_history_open"


class PlayerGameRow(msgspec.Struct, kw_only=True):
    player_id: str
    game_id: str
    kind: str
    seat: int
    name: str
    status: str
    score: int | None = None
    rank: int | None = None
    won: bool | None = None
    created_pos: int
    created_at: datetime
    ended_at: datetime | None = None


class OpenGame(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    status: str
    created_pos: int
    created_at: datetime


class History:
    name = "history"
    tables = (TABLE, OPEN)

    def ddl(self, schema: str) -> list[str]:
        return [f"""CREATE TABLE IF NOT EXISTS {schema}.{TABLE} (
                    player_id text NOT NULL, game_id text NOT NULL, kind text NOT NULL, seat integer NOT NULL,
                    name text NOT NULL, status text NOT NULL, score integer, rank integer, won boolean,
                    created_pos bigint NOT NULL, created_at timestamptz NOT NULL, ended_at timestamptz,
                    PRIMARY KEY (player_id, game_id))""",
                f"CREATE INDEX IF NOT EXISTS rm_player_games_newest ON {schema}.{TABLE} (player_id, created_pos)",
                f"CREATE INDEX IF NOT EXISTS rm_player_games_game ON {schema}.{TABLE} (game_id)",
                f"""CREATE TABLE IF NOT EXISTS {schema}.{OPEN} (
                    game_id text PRIMARY KEY, kind text NOT NULL, status text NOT NULL,
                    created_pos bigint NOT NULL, created_at timestamptz NOT NULL)"""]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        ids = list({e.stream_id for e in events})
        games = {g.game_id: g for g in await load(conn, f"{schema}.{OPEN}", OpenGame,
                                                  "game_id = ANY($1::text[])", ids)}
        seats: dict[str, list[PlayerGameRow]] = {}
        for row in await load(conn, f"{schema}.{TABLE}", PlayerGameRow, "game_id = ANY($1::text[])", ids):
            seats.setdefault(row.game_id, []).append(row)
        ended: set[str] = set()
        for event in events:
            game_id, data = event.stream_id, event.data
            game = games.get(game_id)
            match event.type:
                case "table.GameCreated":
                    games[game_id] = OpenGame(game_id=game_id, kind=data["kind"], status="open",
                                              created_pos=event.position, created_at=event.at)
                case "table.SeatTaken" if game is not None:
                    seats.setdefault(game_id, []).append(PlayerGameRow(
                        player_id=data["player_id"], game_id=game_id, kind=game.kind, seat=data["seat"],
                        name=data["name"], status=game.status, created_pos=game.created_pos,
                        created_at=game.created_at))
                case "table.GameStarted" if game is not None:
                    game.status = "active"
                    for row in seats.get(game_id, []):
                        row.status = "active"
                case "table.GameEnded" | "table.GameAborted" if game is not None:
                    outcome = data.get("outcome")
                    for row in seats.get(game_id, []):
                        row.ended_at = event.at
                        row.status = "finished" if outcome else "aborted"
                        if outcome:
                            row.score = outcome["scores"][row.seat]
                            row.rank = outcome["ranks"][row.seat]
                            row.won = row.seat in outcome["winners"]
                    del games[game_id]
                    ended.add(game_id)
        await upsert(conn, f"{schema}.{TABLE}", ("player_id", "game_id"), (r for rs in seats.values() for r in rs))
        await upsert(conn, f"{schema}.{OPEN}", ("game_id",), games.values())
        await delete(conn, f"{schema}.{OPEN}", "game_id", ended)
