"""The query side of the read models: the game list and lobby, player history, leaderboards, statistics.

Pages are newest (or best) first with opaque keyset cursors, so a page never
repeats or skips a row when games are added meanwhile. Invalid cursors raise
`BadCursor`; the service maps it to a 422 problem.
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any

import msgspec

from projections.base import ensure_tables
from projections.catalog import select


class BadCursor(ValueError):
    """A cursor this service did not issue (or issued for another list)."""


def encode_cursor(*values: Any) -> str:
    return base64.urlsafe_b64encode(msgspec.json.encode(list(values))).decode().rstrip("=")


def decode_cursor(text: str, types: tuple[type, ...]) -> list[Any]:
    """The values of a cursor from `encode_cursor`, checked against `types`."""
    try:
        values = msgspec.json.decode(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (binascii.Error, ValueError, msgspec.DecodeError) as exc:
        raise BadCursor("malformed cursor") from exc
    if not isinstance(values, list) or len(values) != len(types) or not all(
            isinstance(v, t) and not isinstance(v, bool) for v, t in zip(values, types)):
        raise BadCursor("malformed cursor")
    return values


def _iso(at: datetime | None) -> str | None:
    return at.isoformat() if at is not None else None


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


class Rating(msgspec.Struct, kw_only=True):
    player_id: str
    name: str
    ordinal: float
    mu: float
    sigma: float
    games: int
    wins: int


class Leaderboard(msgspec.Struct, kw_only=True):
    kind: str
    items: list[Rating]
    next_cursor: str | None


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


def _page(rows: list[Any], limit: int) -> tuple[list[Any], Any | None]:
    """The first `limit` rows and the last of them when another page follows."""
    return rows[:limit], (rows[limit - 1] if len(rows) > limit else None)


class ReadModels:
    """Queries over the read-model tables on an asyncpg pool."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    async def start(self) -> None:
        """Create the read-model tables if the projector has not yet (so queries work from the start)."""
        async with self.pool.acquire() as conn:
            await ensure_tables(conn, select(None))

    async def list_games(self, kind: str | None = None, status: str | None = None, player: str | None = None,
                         open_seats: bool | None = None, cursor: str | None = None, limit: int = 50) -> GameList:
        where, args = ["true"], []
        for column, value in (("kind", kind), ("status", status)):
            if value is not None:
                args.append(value)
                where.append(f"{column} = ${len(args)}")
        if player is not None:
            args.append([player])
            where.append(f"seat_players @> ${len(args)}::text[]")
        if open_seats is not None:
            where.append("open_seats > 0" if open_seats else "open_seats = 0")
        if cursor is not None:
            args.append(decode_cursor(cursor, (int,))[0])
            where.append(f"created_pos < ${len(args)}")
        args.append(limit + 1)
        rows = await self.pool.fetch(
            f"""SELECT id, kind, status, seat_players, seat_names, open_seats, version, to_act, winners,
                       created_pos, created_at, updated_at
                FROM rm_games WHERE {' AND '.join(where)} ORDER BY created_pos DESC LIMIT ${len(args)}""", *args)
        rows, last = _page(rows, limit)
        items = [GameItem(id=r[0], kind=r[1], status=r[2], open_seats=r[5], version=r[6], to_act=list(r[7]),
                          winners=list(r[8]) if r[8] is not None else None, created_at=_iso(r[10]),
                          updated_at=_iso(r[11]),
                          seats=[Seat(seat=i, player_id=p, name=n) for i, (p, n) in enumerate(zip(r[3], r[4]))])
                 for r in rows]
        return GameList(items=items, next_cursor=encode_cursor(last[9]) if last else None)

    async def player_games(self, player_id: str, cursor: str | None = None, limit: int = 50) -> PlayerGamePage:
        after = decode_cursor(cursor, (int,))[0] if cursor is not None else 2**63 - 1
        rows = await self.pool.fetch(
            """SELECT game_id, kind, status, seat, name, score, rank, won, created_at, ended_at, created_pos
               FROM rm_player_games WHERE player_id = $1 AND created_pos < $2
               ORDER BY created_pos DESC LIMIT $3""", player_id, after, limit + 1)
        rows, last = _page(rows, limit)
        items = [PlayerGame(game_id=r[0], kind=r[1], status=r[2], seat=r[3], name=r[4], score=r[5], rank=r[6],
                            won=r[7], created_at=_iso(r[8]), ended_at=_iso(r[9])) for r in rows]
        return PlayerGamePage(player_id=player_id, items=items,
                              next_cursor=encode_cursor(last[10]) if last else None)

    async def leaderboard(self, kind: str, cursor: str | None = None, limit: int = 50) -> Leaderboard:
        args: list[Any] = [kind, limit + 1]
        after = ""
        if cursor is not None:
            args += decode_cursor(cursor, (float, str))
            after = "AND (ordinal < $3 OR (ordinal = $3 AND player_id > $4))"
        rows = await self.pool.fetch(
            f"""SELECT player_id, name, ordinal, mu, sigma, games, wins FROM rm_ratings
                WHERE kind = $1 {after} ORDER BY ordinal DESC, player_id LIMIT $2""", *args)
        rows, last = _page(rows, limit)
        items = [Rating(player_id=r[0], name=r[1], ordinal=r[2], mu=r[3], sigma=r[4], games=r[5], wins=r[6])
                 for r in rows]
        return Leaderboard(kind=kind, items=items, next_cursor=encode_cursor(last[2], last[0]) if last else None)

    async def stats(self, days: int = 30) -> PlatformStats:
        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            games = await conn.fetch("SELECT kind, status, count(*) FROM rm_stats_games GROUP BY 1, 2 ORDER BY 1, 2")
            per_day = await conn.fetch("SELECT day, events FROM rm_stats_days ORDER BY day DESC LIMIT $1", days)
            lengths = await conn.fetch(
                """SELECT kind, count(*), avg(events)::float8,
                          avg(extract(epoch FROM ended_at - created_at))::float8
                   FROM rm_stats_games WHERE status = 'finished' GROUP BY kind ORDER BY kind""")
        return PlatformStats(
            games=[KindStatus(kind=r[0], status=r[1], games=r[2]) for r in games],
            events_per_day=[DayEvents(day=r[0].isoformat(), events=r[1]) for r in per_day],
            finished_lengths=[GameLength(kind=r[0], games=r[1], avg_events=r[2], avg_seconds=r[3]) for r in lengths])
