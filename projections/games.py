"""The game list and lobby: one row per game with its status, seats and who must act, and its query.

`created_pos` (the global position of `table.GameCreated`) orders the list
newest first and is the key of its cursor pagination; `to_act` comes from the
metadata of the game's latest batch, so no game rules are needed here.
`rm_game_players` has one row per (player, game) so that the `player` filter
walks one player's games newest first through an index, however many games
there are; `kind`, `status` and both together have their own
(…, created_pos) indexes for the same reason.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, assert_never

import msgspec

from domain.clock import ClockSet, TimedOut
from domain.table import (GameAborted, GameCreated, GameEnded, GameStarted, SeatLeft, SeatResigned, SeatTaken,
                          SeedRevealed)
from projections.base import load, upsert
from projections.log import LogEvent
from projections.pages import decode_cursor, encode_cursor, iso, page

TABLE = "rm_games"
PLAYERS = "rm_game_players"
_COLUMNS = ("id, kind, status, seat_players, seat_names, open_seats, version, to_act, winners, created_pos, "
            "created_at, updated_at")


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


class Member(msgspec.Struct):
    player_id: str
    created_pos: int
    game_id: str


def evolve(row: GameRow | None, event: LogEvent) -> GameRow | None:
    """The game's row after `event` (None while the stream is not a known game); `to_act` is set
    by `apply` from the batch's last event of the game."""
    table = event.table
    if isinstance(table, GameCreated):
        row = GameRow(id=event.stream_id, kind=table.kind, status="open", seat_players=[None] * table.seats,
                      seat_names=[None] * table.seats, open_seats=table.seats, version=0, to_act=[],
                      winners=None, created_pos=event.position, created_at=event.at, updated_at=event.at)
    if row is None:
        return None
    match table:
        case SeatTaken(seat=seat, player_id=player_id, name=name):
            row.seat_players[seat] = player_id
            row.seat_names[seat] = name
            row.open_seats = row.seat_players.count(None)
        case GameStarted():
            row.status = "active"
        case GameEnded(outcome=outcome):
            row.status = "finished"
            row.winners = list(outcome.winners)
        case SeatLeft(seat=seat):
            row.seat_players[seat] = None
            row.seat_names[seat] = None
            row.open_seats = row.seat_players.count(None)
        case GameAborted():
            row.status = "aborted"
        case GameCreated() | SeedRevealed() | ClockSet() | TimedOut() | SeatResigned() | None:
            pass
        case _:
            assert_never(table)
    row.version = event.version
    row.updated_at = event.at
    return row


def who_acts(event: LogEvent) -> list[int]:
    """The seats to act after `event`'s batch, from its metadata (a game's row takes it from its last event)."""
    return list(event.metadata.get("to_act") or [])


class Games:
    name = "games"
    tables = (TABLE, PLAYERS)

    def ddl(self, schema: str) -> list[str]:
        t, p = f"{schema}.{TABLE}", f"{schema}.{PLAYERS}"
        return [f"""CREATE TABLE IF NOT EXISTS {t} (
                    id text PRIMARY KEY, kind text NOT NULL, status text NOT NULL,
                    seat_players text[] NOT NULL, seat_names text[] NOT NULL, open_seats integer NOT NULL,
                    version integer NOT NULL, to_act integer[] NOT NULL, winners integer[],
                    created_pos bigint NOT NULL UNIQUE, created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL) WITH (fillfactor = 50)""",
                f"ALTER TABLE {t} SET (fillfactor = 50)",
                f"CREATE INDEX IF NOT EXISTS rm_games_status ON {t} (status, created_pos)",
                f"CREATE INDEX IF NOT EXISTS rm_games_kind ON {t} (kind, created_pos)",
                f"CREATE INDEX IF NOT EXISTS rm_games_kind_status ON {t} (kind, status, created_pos)",
                f"DROP INDEX IF EXISTS {schema}.rm_games_players",
                f"""CREATE TABLE IF NOT EXISTS {p} (
                    player_id text NOT NULL, created_pos bigint NOT NULL, game_id text NOT NULL,
                    PRIMARY KEY (player_id, created_pos))""",
                # a game list projected before this table existed: fill it once from the seats
                f"""INSERT INTO {p} (player_id, created_pos, game_id)
                    SELECT s, g.created_pos, g.id FROM {t} g CROSS JOIN unnest(g.seat_players) AS s
                    WHERE s IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {p}) ON CONFLICT DO NOTHING"""]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        table = f"{schema}.{TABLE}"
        ids = list({e.stream_id for e in events})
        rows: dict[str, GameRow | None] = {r.id: r for r in await load(conn, table, GameRow, "id = ANY($1::text[])",
                                                                          ids)}
        members: dict[tuple[str, int], Member | None] = {}  # None: the player left before the start
        last: dict[str, LogEvent] = {}
        for event in events:
            last[event.stream_id] = event
            row = rows[event.stream_id] = evolve(rows.get(event.stream_id), event)
            if row is not None and isinstance(event.table, SeatTaken):
                members[(event.table.player_id, row.created_pos)] = Member(event.table.player_id, row.created_pos, row.id)
            elif row is not None and isinstance(event.table, SeatLeft):
                members[(event.table.player_id, row.created_pos)] = None
        for game_id, event in last.items():  # the metadata of each game's last event only is decoded
            row = rows[game_id]
            if row is not None:
                row.to_act = who_acts(event)
        await upsert(conn, table, ("id",), (r for r in rows.values() if r is not None))
        await upsert(conn, f"{schema}.{PLAYERS}", ("player_id", "created_pos"), (m for m in members.values() if m))
        gone = [key for key, m in members.items() if m is None]
        if gone:
            await conn.execute(f"DELETE FROM {schema}.{PLAYERS} WHERE (player_id, created_pos) IN "
                               "(SELECT * FROM unnest($1::text[], $2::bigint[]))",
                               [g[0] for g in gone], [g[1] for g in gone])


# -- the query side -----------------------------------------------------------------


class Seat(msgspec.Struct, kw_only=True):
    seat: int
    player_id: str | None
    name: str | None


class GameItem(msgspec.Struct, kw_only=True):
    id: str
    kind: str
    status: str
    seats: list[Seat]
    open_seats: int
    version: int
    to_act: list[int]
    winners: list[int] | None
    created_at: str
    updated_at: str


class GameList(msgspec.Struct, kw_only=True):
    items: list[GameItem]
    next_cursor: str | None


def list_query(kind: str | None = None, status: str | None = None, player: str | None = None,
               open_seats: bool | None = None, cursor: str | None = None, limit: int = 50) -> tuple[str, list[Any]]:
    """The SQL and arguments of one page of the game list (newest first); BadCursor for a bad cursor."""
    where: list[str] = []
    args: list[Any] = []
    source, order = f"{TABLE} g", "g.created_pos"
    if player is not None:  # one player's games newest first straight from their index, then each game by id
        args.append(player)
        source, order = f"{PLAYERS} p JOIN {TABLE} g ON g.id = p.game_id", "p.created_pos"
        where.append("p.player_id = $1")
    for column, value in (("kind", kind), ("status", status)):
        if value is not None:
            args.append(value)
            where.append(f"g.{column} = ${len(args)}")
    if open_seats is not None:
        where.append("g.open_seats > 0" if open_seats else "g.open_seats = 0")
    if cursor is not None:
        args.append(decode_cursor(cursor, (int,))[0])
        where.append(f"{order} < ${len(args)}")
    args.append(limit + 1)
    columns = ", ".join(f"g.{c}" for c in _COLUMNS.split(", "))
    return (f"SELECT {columns} FROM {source} WHERE {' AND '.join(where) or 'true'} "
            f"ORDER BY {order} DESC LIMIT ${len(args)}"), args


async def list_games(pool: Any, **filters: Any) -> GameList:
    """One page of the game list; `filters` as in `list_query`."""
    limit = filters.get("limit", 50)
    sql, args = list_query(**filters)
    rows, last = page(await pool.fetch(sql, *args), limit)
    items = [GameItem(id=r[0], kind=r[1], status=r[2], open_seats=r[5], version=r[6], to_act=list(r[7]),
                      winners=list(r[8]) if r[8] is not None else None, created_at=iso(r[10]),
                      updated_at=iso(r[11]),
                      seats=[Seat(seat=i, player_id=p, name=n) for i, (p, n) in enumerate(zip(r[3], r[4]))])
             for r in rows]
    return GameList(items=items, next_cursor=encode_cursor(last[9]) if last else None)
