"""Per-player history: one row per (player, game) with the seat, status and, at the end, score and rank.

A seat is taken after the game is created, often in a later batch, so the
kind and creation position of games still running are kept in a small side
table (`rm_history_open`) that forgets each game when it ends. Only platform
events change this model, so a batch loads rows only for the games they touch.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, assert_never

import msgspec

from domain.clock import ClockSet, TimedOut
from domain.table import (GameAborted, GameCreated, GameEnded, GameStarted, SeatLeft, SeatResigned, SeatTaken,
                          SeedRevealed)
from projections.base import delete, load, upsert
from projections.log import LogEvent
from projections.pages import decode_cursor, encode_cursor, iso, page

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
                    PRIMARY KEY (player_id, game_id)) WITH (fillfactor = 50)""",
                f"ALTER TABLE {schema}.{TABLE} SET (fillfactor = 50)",
                f"CREATE INDEX IF NOT EXISTS rm_player_games_newest ON {schema}.{TABLE} (player_id, created_pos)",
                f"CREATE INDEX IF NOT EXISTS rm_player_games_game ON {schema}.{TABLE} (game_id)",
                f"""CREATE TABLE IF NOT EXISTS {schema}.{OPEN} (
                    game_id text PRIMARY KEY, kind text NOT NULL, status text NOT NULL,
                    created_pos bigint NOT NULL, created_at timestamptz NOT NULL)"""]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        events = [e for e in events if e.table is not None]
        ids = list({e.stream_id for e in events})
        if not ids:
            return
        games = {g.game_id: g for g in await load(conn, f"{schema}.{OPEN}", OpenGame,
                                                  "game_id = ANY($1::text[])", ids)}
        seats: dict[str, list[PlayerGameRow]] = {}
        for row in await load(conn, f"{schema}.{TABLE}", PlayerGameRow, "game_id = ANY($1::text[])", ids):
            seats.setdefault(row.game_id, []).append(row)
        ended: set[str] = set()
        left: list[tuple[str, str]] = []  # (player, game) seats given up before the start
        for event in events:
            game_id, table = event.stream_id, event.table
            game = games.get(game_id)
            if game is None and not isinstance(table, GameCreated):
                continue
            match table:
                case GameCreated(kind=kind):
                    games[game_id] = OpenGame(game_id=game_id, kind=kind, status="open",
                                              created_pos=event.position, created_at=event.at)
                case SeatTaken(seat=seat, player_id=player_id, name=name):
                    seats.setdefault(game_id, []).append(PlayerGameRow(
                        player_id=player_id, game_id=game_id, kind=game.kind, seat=seat, name=name,
                        status=game.status, created_pos=game.created_pos, created_at=game.created_at))
                case GameStarted():
                    game.status = "active"
                    for row in seats.get(game_id, []):
                        row.status = "active"
                case GameEnded() | GameAborted():
                    end(seats.get(game_id, []), table, event.at)
                    del games[game_id]
                    ended.add(game_id)
                case SeatLeft(player_id=player_id):
                    seats[game_id] = [r for r in seats.get(game_id, []) if r.player_id != player_id]
                    left.append((player_id, game_id))
                case SeedRevealed() | ClockSet() | TimedOut() | SeatResigned() | None:
                    pass
                case _:
                    assert_never(table)
        await upsert(conn, f"{schema}.{TABLE}", ("player_id", "game_id"), (r for rs in seats.values() for r in rs))
        gone = [pair for pair in left if all(r.player_id != pair[0] for r in seats.get(pair[1], []))]
        if gone:
            await conn.execute(f"DELETE FROM {schema}.{TABLE} WHERE (player_id, game_id) IN "
                               "(SELECT * FROM unnest($1::text[], $2::text[]))",
                               [g[0] for g in gone], [g[1] for g in gone])
        await upsert(conn, f"{schema}.{OPEN}", ("game_id",), games.values())
        await delete(conn, f"{schema}.{OPEN}", "game_id", ended)


def end(rows: list[PlayerGameRow], table: GameEnded | GameAborted, at: datetime) -> None:
    """Close a game's rows: finished with score, rank and result, or aborted."""
    for row in rows:
        row.ended_at = at
        if isinstance(table, GameEnded):
            outcome = table.outcome
            row.status = "finished"
            row.score = outcome.scores[row.seat]
            row.rank = outcome.ranks[row.seat]
            row.won = row.seat in outcome.winners
        else:
            row.status = "aborted"


# -- the query side -----------------------------------------------------------------


class PlayerGame(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    status: str
    seat: int
    name: str
    score: int | None
    rank: int | None
    won: bool | None
    created_at: str
    ended_at: str | None


class PlayerGamePage(msgspec.Struct, kw_only=True):
    player_id: str
    items: list[PlayerGame]
    next_cursor: str | None


async def player_games(pool: Any, player_id: str, cursor: str | None = None, limit: int = 50) -> PlayerGamePage:
    """One page of a player's games, newest first."""
    after = decode_cursor(cursor, (int,))[0] if cursor is not None else 2**63 - 1
    rows = await pool.fetch(
        f"""SELECT game_id, kind, status, seat, name, score, rank, won, created_at, ended_at, created_pos
            FROM {TABLE} WHERE player_id = $1 AND created_pos < $2
            ORDER BY created_pos DESC LIMIT $3""", player_id, after, limit + 1)
    rows, last = page(rows, limit)
    items = [PlayerGame(game_id=r[0], kind=r[1], status=r[2], seat=r[3], name=r[4], score=r[5], rank=r[6],
                        won=r[7], created_at=iso(r[8]), ended_at=iso(r[9])) for r in rows]
    return PlayerGamePage(player_id=player_id, items=items, next_cursor=encode_cursor(last[10]) if last else None)
