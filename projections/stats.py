"""Platform statistics: games per kind and status, events per day (UTC), lengths of finished games.

`rm_stats_games` keeps one small row per game (status, events so far, start
and end times); `rm_stats_days` counts every event of the log by its UTC day.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime
from typing import Any

import msgspec

from projections.base import load, upsert
from projections.log import LogEvent

GAMES = "rm_stats_games"
DAYS = "rm_stats_days"
_STATUS = {"table.GameStarted": "active", "table.GameEnded": "finished", "table.GameAborted": "aborted"}


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
                    created_at timestamptz NOT NULL, ended_at timestamptz)""",
                f"CREATE INDEX IF NOT EXISTS rm_stats_games_kind ON {schema}.{GAMES} (kind, status)",
                f"""CREATE TABLE IF NOT EXISTS {schema}.{DAYS} (
                    day date PRIMARY KEY, events bigint NOT NULL)"""]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        ids = list({e.stream_id for e in events})
        games = {g.game_id: g for g in await load(conn, f"{schema}.{GAMES}", StatsGame,
                                                  "game_id = ANY($1::text[])", ids)}
        days: Counter[date] = Counter()
        for event in events:
            days[event.at.astimezone(UTC).date()] += 1
            if event.type == "table.GameCreated":
                games[event.stream_id] = StatsGame(game_id=event.stream_id, kind=event.data["kind"], status="open",
                                                   events=0, created_at=event.at)
            game = games.get(event.stream_id)
            if game is None:
                continue
            game.events = event.version
            if event.type in _STATUS:
                game.status = _STATUS[event.type]
                game.ended_at = event.at if game.status != "active" else None
        await upsert(conn, f"{schema}.{GAMES}", ("game_id",), games.values())
        await conn.executemany(
            f"INSERT INTO {schema}.{DAYS} (day, events) VALUES ($1, $2) "
            f"ON CONFLICT (day) DO UPDATE SET events = {DAYS}.events + excluded.events", sorted(days.items()))
