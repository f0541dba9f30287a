"""Ratings: an openskill Plackett-Luce rating per player and game kind, updated when a game ends.

Ranks come from the outcome (1 = best, ties share a rank). Games are rated
one after another in log order, so a rebuild reproduces every float exactly.
Seats of running games are kept in `rm_rating_open` until the game ends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, assert_never

import msgspec
from openskill.models import PlackettLuce

from domain.clock import ClockSet, TimedOut
from domain.table import (GameAborted, GameCreated, GameEnded, GameStarted, SeatLeft, SeatResigned, SeatTaken,
                          SeedRevealed)
from projections.base import delete, load, upsert
from projections.log import LogEvent
from projections.pages import decode_cursor, encode_cursor, page

TABLE = "rm_ratings"
OPEN = "rm_rating_open"
MODEL = PlackettLuce()


class RatingRow(msgspec.Struct, kw_only=True):
    kind: str
    player_id: str
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    wins: int
    updated_at: datetime


class OpenGame(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    players: list[str | None]
    names: list[str | None]


class Result(msgspec.Struct):
    game: OpenGame
    ranks: list[int]
    winners: list[int]
    at: datetime


def rate(ratings: dict[tuple[str, str], RatingRow], result: Result) -> None:
    """Update `ratings` in place for one finished game (missing players start at the model's prior)."""
    game = result.game
    before = []
    for seat, player_id in enumerate(game.players):
        row = ratings.get((game.kind, player_id))
        if row is None:
            prior = MODEL.rating()
            row = ratings[(game.kind, player_id)] = RatingRow(
                kind=game.kind, player_id=player_id, name=game.names[seat] or "", mu=prior.mu, sigma=prior.sigma,
                ordinal=prior.ordinal(), games=0, wins=0, updated_at=result.at)
        before.append([MODEL.rating(mu=row.mu, sigma=row.sigma)])
    after = MODEL.rate(before, ranks=list(result.ranks))
    for seat, player_id in enumerate(game.players):
        row, new = ratings[(game.kind, player_id)], after[seat][0]
        row.mu, row.sigma, row.ordinal = new.mu, new.sigma, new.ordinal()
        row.games += 1
        row.wins += seat in result.winners
        row.name = game.names[seat] or row.name
        row.updated_at = result.at


class Ratings:
    name = "ratings"
    tables = (TABLE, OPEN)

    def ddl(self, schema: str) -> list[str]:
        return [f"""CREATE TABLE IF NOT EXISTS {schema}.{TABLE} (
                    kind text NOT NULL, player_id text NOT NULL, name text NOT NULL,
                    mu double precision NOT NULL, sigma double precision NOT NULL,
                    ordinal double precision NOT NULL, games integer NOT NULL, wins integer NOT NULL,
                    updated_at timestamptz NOT NULL, PRIMARY KEY (kind, player_id))""",
                f"CREATE INDEX IF NOT EXISTS rm_ratings_board ON {schema}.{TABLE} (kind, ordinal DESC, player_id)",
                f"""CREATE TABLE IF NOT EXISTS {schema}.{OPEN} (
                    game_id text PRIMARY KEY, kind text NOT NULL, players text[] NOT NULL, names text[] NOT NULL)"""]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        events = [e for e in events if e.table is not None]
        ids = list({e.stream_id for e in events})
        if not ids:
            return
        games = {g.game_id: g for g in await load(conn, f"{schema}.{OPEN}", OpenGame,
                                                  "game_id = ANY($1::text[])", ids)}
        results: list[Result] = []
        ended: set[str] = set()
        for event in events:
            game, table = games.get(event.stream_id), event.table
            if game is None and not isinstance(table, GameCreated):
                continue
            match table:
                case GameCreated(kind=kind, seats=seats):
                    games[event.stream_id] = OpenGame(game_id=event.stream_id, kind=kind,
                                                      players=[None] * seats, names=[None] * seats)
                case SeatTaken(seat=seat, player_id=player_id, name=name):
                    game.players[seat] = player_id
                    game.names[seat] = name
                case GameEnded() | GameAborted():
                    if isinstance(table, GameEnded) and None not in game.players:
                        results.append(Result(game, table.outcome.ranks, table.outcome.winners, event.at))
                    del games[event.stream_id]
                    ended.add(event.stream_id)
                case GameStarted() | SeedRevealed() | SeatLeft() | ClockSet() | TimedOut() | SeatResigned() | None:
                    pass
                case _:
                    assert_never(table)
        if results:
            kinds, players = zip(*{(r.game.kind, p) for r in results for p in r.game.players})
            ratings = {(r.kind, r.player_id): r for r in await load(
                conn, f"{schema}.{TABLE}", RatingRow,
                "(kind, player_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))", list(kinds), list(players))}
            for result in results:
                rate(ratings, result)
            await upsert(conn, f"{schema}.{TABLE}", ("kind", "player_id"), ratings.values())
        await upsert(conn, f"{schema}.{OPEN}", ("game_id",), games.values())
        await delete(conn, f"{schema}.{OPEN}", "game_id", ended)


# -- the query side -----------------------------------------------------------------


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


async def leaderboard(pool: Any, kind: str, cursor: str | None = None, limit: int = 50) -> Leaderboard:
    """One page of a kind's ratings, best (highest ordinal) first, ties by player id."""
    args: list[Any] = [kind, limit + 1]
    after = ""
    if cursor is not None:
        args += decode_cursor(cursor, (float, str))
        after = "AND (ordinal < $3 OR (ordinal = $3 AND player_id > $4))"
    rows = await pool.fetch(
        f"""SELECT player_id, name, ordinal, mu, sigma, games, wins FROM {TABLE}
            WHERE kind = $1 {after} ORDER BY ordinal DESC, player_id LIMIT $2""", *args)
    rows, last = page(rows, limit)
    items = [Rating(player_id=r[0], name=r[1], ordinal=r[2], mu=r[3], sigma=r[4], games=r[5], wins=r[6])
             for r in rows]
    return Leaderboard(kind=kind, items=items, next_cursor=encode_cursor(last[2], last[0]) if last else None)


async def player_rating(pool: Any, kind: str, player_id: str) -> tuple[float, int] | None:
    """The player's (ordinal, rated games) of `kind`; None before any rated game."""
    row = await pool.fetchrow(f"SELECT ordinal, games FROM {TABLE} WHERE kind = $1 AND player_id = $2",
                              kind, player_id)
    return (row[0], row[1]) if row is not None else None
