"""Bulk writes beside the one-statement append: every game of a tournament round (or of an arena's
pairing) in one transaction.

`create_games` writes whole new streams (their hash chains computed here, as the
append does) and links each to its owner (a tournament's in `tournament_games`, an
arena's in `arena_games`, as `NewGame.link` says), on the
connection and in the transaction of `PostgresStore.append`, which appends the
tournament's `RoundPaired` in the same transaction: a round's pairing and its games
commit together or not at all, so nobody ever reads a pairing whose games do not exist. The games'
leaves of the transparency log go in with them.
Streams that already exist are skipped (ids and seeds are pure functions of the
tournament, so a second writer of the same round can only have written the same).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from service.store.ledger import entries_of_rows
from service.store.protocol import GENESIS_HASH, NewGame, StoredEvent, chain

_INSERT = """INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash)
             SELECT u.s, u.v, u.t, u.d::jsonb, u.m::jsonb, u.p, u.h
             FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                  AS u(s, v, t, d, m, p, h)
             RETURNING stream_id, version, position, tx, at"""
_LEAVES = """INSERT INTO log_entries (stream_id, version, body, leaf_hash)
             SELECT * FROM unnest($1::text[], $2::int[], $3::bytea[], $4::bytea[])"""


async def create_games(conn: Any, games: Sequence[NewGame], logged: bool = True) -> dict[str, list[StoredEvent]]:
    """Write the games that do not exist yet, in the caller's transaction on `conn`, with their leaves of the
    transparency log when `logged`; their stored events by id."""
    existing = {r[0] for r in await conn.fetch("SELECT stream_id FROM streams WHERE stream_id = ANY($1::text[])",
                                               [g.game_id for g in games])}
    fresh = [g for g in games if g.game_id not in existing]
    if not fresh:
        return {}
    rows: list[tuple[str, int, str, dict[str, Any], dict[str, Any], str, str]] = []
    for game in fresh:
        version, head = 0, GENESIS_HASH
        for events, meta in game.batches:
            for v, t, d, m, p, h in chain(game.game_id, version, head, events, meta):
                rows.append((game.game_id, v, t, d, m, p, h))
            version, head = rows[-1][1], rows[-1][6]
    enc = msgspec.json.encode
    records = await conn.fetch(_INSERT, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
                               [enc(r[3]).decode() for r in rows], [enc(r[4]).decode() for r in rows],
                               [r[5] for r in rows], [r[6] for r in rows])
    leaves = [entry for r in rows for entry in entries_of_rows(r[0], [r[1:]])] if logged else []
    if leaves:
        await conn.execute(_LEAVES, *map(list, zip(*leaves)))
    await conn.executemany("INSERT INTO streams (stream_id, kind) VALUES ($1, $2)",
                           [(g.game_id, g.kind) for g in fresh])
    links = {"tournament": "INSERT INTO tournament_games (game_id, tournament_id, round) VALUES ($1, $2, $3)",
             "arena": "INSERT INTO arena_games (game_id, arena_id, number) VALUES ($1, $2, $3)"}
    for link, statement in links.items():
        linked = [(g.game_id, g.tournament_id, g.round) for g in fresh if g.link == link]
        if linked:
            await conn.executemany(statement, linked)
    assigned = {(r[0], r[1]): r for r in records}
    stored: dict[str, list[StoredEvent]] = {}
    for s, v, t, d, m, p, h in rows:
        rec = assigned[(s, v)]
        stored.setdefault(s, []).append(StoredEvent(position=rec[2], tx=rec[3], stream_id=s, version=v, type=t,
                                                    data=d, metadata=m, at=rec[4], prev_hash=p, hash=h))
    return stored
