"""Platform statistics: games per kind and status, events per day (UTC), lengths of finished games.

`rm_stats_games` keeps one small row per game (status, events so far, start
and end times); `rm_stats_days` counts every event of the log by its UTC day.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime
from typing import Any, assert_never

import msgspec

from domain.clock import ClockSet, TimedOut
from domain.table import (GameAborted, GameCreated, GameEnded, GameStarted, SeatLeft, SeatResigned, SeatTaken,
                          SeedRevealed)
from projections.base import load, upsert
from projections.log import LogEvent

GAMES = "rm_stats_games"
DAYS = "rm_stats_days"


class StatsGame(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    status: str
    events: int
    created_at: datetime
    ended_at: datetime | None = None


class Stats:
    name = "stats"
    tables = (GAMES, DAYS)

    def ddl(self, schema: str) -> list[str]:
        return [f"""CREATE TABLE IF NOT EXISTS {schema}.{GAMES} (
                    game_id text PRIMARY KEY, kind text NOT NULL, status text NOT NULL, events integer NOT NULL,
                    created_at timestamptz NOT NULL, ended_at timestamptz) WITH (fillfactor = 50)""",
                f"ALTER TABLE {schema}.{GAMES} SET (fillfactor = 50)",
                # no index on (kind, status): the statistics read the whole table anyway, and an index on a
                # column every game changes would keep each update from staying on its page (HOT)
                f"DROP INDEX IF EXISTS {schema}.rm_stats_games_kind",
                f"""CREATE TABLE IF NOT EXISTS {schema}.{DAYS} (
                    day date PRIMARY KEY, events bigint NOT NULL)"""]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        ids = list({e.stream_id for e in events})
        games = {g.game_id: g for g in await load(conn, f"{schema}.{GAMES}", StatsGame,
                                                  "game_id = ANY($1::text[])", ids)}
        days: Counter[date] = Counter()
        for event in events:
            days[event.at.astimezone(UTC).date()] += 1
            table = event.table
            if isinstance(table, GameCreated):
                games[event.stream_id] = StatsGame(game_id=event.stream_id, kind=table.kind, status="open",
                                                   events=0, created_at=event.at)
            game = games.get(event.stream_id)
            if game is None:
                continue
            game.events = event.version
            match table:
                case GameStarted():
                    game.status, game.ended_at = "active", None
                case GameEnded():
                    game.status, game.ended_at = "finished", event.at
                case GameAborted():
                    game.status, game.ended_at = "aborted", event.at
                case GameCreated() | SeatTaken() | SeedRevealed() | SeatLeft() | ClockSet() | TimedOut() | SeatResigned() | None:
                    pass
                case _:
                    assert_never(table)
        await upsert(conn, f"{schema}.{GAMES}", ("game_id",), games.values())
        await conn.executemany(
            f"INSERT INTO {schema}.{DAYS} (day, events) VALUES ($1, $2) "
            f"ON CONFLICT (day) DO UPDATE SET events = {DAYS}.events + excluded.events", sorted(days.items()))


# -- the query side -----------------------------------------------------------------


class KindStatus(msgspec.Struct, kw_only=True):
    kind: str
    status: str
    games: int


class DayEvents(msgspec.Struct, kw_only=True):
    day: str
    events: int


class GameLength(msgspec.Struct, kw_only=True):
    kind: str
    games: int
    avg_events: float
    avg_seconds: float


class PlatformStats(msgspec.Struct, kw_only=True):
    games: list[KindStatus]
    events_per_day: list[DayEvents]
    finished_lengths: list[GameLength]


async def platform_stats(pool: Any, days: int = 30) -> PlatformStats:
    """Games per kind and status, events of the last `days` days, lengths of finished games (one snapshot)."""
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        games = await conn.fetch(f"SELECT kind, status, count(*) FROM {GAMES} GROUP BY 1, 2 ORDER BY 1, 2")
        per_day = await conn.fetch(f"SELECT day, events FROM {DAYS} ORDER BY day DESC LIMIT $1", days)
        lengths = await conn.fetch(
            f"""SELECT kind, count(*), avg(events)::float8, avg(extract(epoch FROM ended_at - created_at))::float8
                FROM {GAMES} WHERE status = 'finished' GROUP BY kind ORDER BY kind""")
    return PlatformStats(
        games=[KindStatus(kind=r[0], status=r[1], games=r[2]) for r in games],
        events_per_day=[DayEvents(day=r[0].isoformat(), events=r[1]) for r in per_day],
        finished_lengths=[GameLength(kind=r[0], games=r[1], avg_events=r[2], avg_seconds=r[3]) for r in lengths])
