"""The game list and lobby: one row per game with its status, seats and who must act.

`created_pos` (the global position of `table.GameCreated`) orders the list
newest first and is the key of its cursor pagination; `to_act` comes from the
metadata of the game's latest batch, so no game rules are needed here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from projections.base import load, upsert
from projections.log import LogEvent

TABLE = "rm_games"


class GameRow(msgspec.Struct, kw_only=True):
    id: str
    kind: str
    status: str
    seat_players: list[str | None]
    seat_names: list[str | None]
    open_seats: int
    version: int
    to_act: list[int]
    winners: list[int] | None
    created_pos: int
    created_at: datetime
    updated_at: datetime


def evolve(row: GameRow | None, event: LogEvent) -> GameRow | None:
    """The game's row after `event` (None while the stream is not a known game)."""
    data = event.data
    if event.type == "table.GameCreated":
        seats = int(data["seats"])
        row = GameRow(id=event.stream_id, kind=data["kind"], status="open", seat_players=[None] * seats,
                      seat_names=[None] * seats, open_seats=seats, version=0, to_act=[], winners=None,
                      created_pos=event.position, created_at=event.at, updated_at=event.at)
    if row is None:
        return None
    match event.type:
        case "table.SeatTaken":
            row.seat_players[data["seat"]] = data["player_id"]
            row.seat_names[data["seat"]] = data["name"]
            row.open_seats = row.seat_players.count(None)
        case "table.GameStarted":
            row.status = "active"
        case "table.GameEnded":
            row.status = "finished"
            row.winners = list(data["outcome"]["winners"])
        case "table.GameAborted":
            row.status = "aborted"
    row.version = event.version
    row.updated_at = event.at
    row.to_act = list(event.metadata.get("to_act") or [])
    return row


class Games:
    name = "games"
    tables = (TABLE,)

    def ddl(self, schema: str) -> list[str]:
        t = f"{schema}.{TABLE}"
        return [f"""CREATE TABLE IF NOT EXISTS {t} (
                    id text PRIMARY KEY, kind text NOT NULL, status text NOT NULL,
                    seat_players text[] NOT NULL, seat_names text[] NOT NULL, open_seats integer NOT NULL,
                    version integer NOT NULL, to_act integer[] NOT NULL, winners integer[],
                    created_pos bigint NOT NULL UNIQUE, created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL)""",
                f"CREATE INDEX IF NOT EXISTS rm_games_status ON {t} (status, created_pos)",
                f"CREATE INDEX IF NOT EXISTS rm_games_kind ON {t} (kind, created_pos)",
                f"CREATE INDEX IF NOT EXISTS rm_games_players ON {t} USING gin (seat_players)"]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        table = f"{schema}.{TABLE}"
        ids = list({e.stream_id for e in events})
        rows: dict[str, GameRow | None] = {r.id: r for r in await load(conn, table, GameRow, "id = ANY($1::text[])",
                                                                          ids)}
        for event in events:
            rows[event.stream_id] = evolve(rows.get(event.stream_id), event)
        await upsert(conn, table, ("id",), (r for r in rows.values() if r is not None))
