"""The tournament list: one row per tournament with its status, entrants and round, and its query.

Fed from the tournament streams (`tournament-<uuid>`) of the global log. Only
`tournament.TournamentCreated` is read for its data (name, kind, format,
organiser); every later row change follows from an event's type alone:
`PlayerRegistered` / `PlayerWithdrew` count the entrants still in, each
`RoundPaired` is the next round, `TournamentStarted` and `TournamentEnded` move
the status from "registration" to "running" to "finished". The log reader
decodes only platform events, so a batch fetches the data of its few
`TournamentCreated` events by position, one query.

`created_pos` (the global position of `TournamentCreated`) orders the list
newest first and is its cursor; `status`, `kind` and both together have their
own (…, created_pos) indexes so a filtered page is an index walk, however many
tournaments there are.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from domain.tournament.events import (
    PlayerRegistered, PlayerRemoved, PlayerWithdrew, RoundPaired, TournamentCreated, TournamentEnded,
    TournamentStarted,
)
from projections.base import load, upsert
from projections.log import LogEvent
from projections.pages import decode_cursor, encode_cursor, page

TABLE = "rm_tournaments"
PREFIX = "tournament-"


def _tag(event: type[msgspec.Struct]) -> str:
    return str(event.__struct_config__.tag)


CREATED = _tag(TournamentCreated)
PAIRED = _tag(RoundPaired)
STATUS_AFTER = {_tag(TournamentStarted): "running", _tag(TournamentEnded): "finished"}
ENTRANTS = {_tag(PlayerRegistered): 1, _tag(PlayerWithdrew): -1, _tag(PlayerRemoved): -1}
_created = msgspec.json.Decoder(TournamentCreated)


class TournamentItem(msgspec.Struct, kw_only=True):
    """One tournament as the list shows it."""

    tournament_id: str
    name: str
    kind: str
    format: str
    organiser: str
    status: str
    players: int  # registered and not withdrawn
    round: int  # rounds paired so far
    created_at: datetime
    updated_at: datetime


class TournamentRow(TournamentItem, kw_only=True):
    """The stored row: the item plus the stream version and the list's sort key."""

    version: int
    created_pos: int


def evolve(row: TournamentRow | None, event: LogEvent, created: TournamentCreated | None) -> TournamentRow | None:
    """The tournament's row after `event`; `created`: the event itself when it is a `TournamentCreated`."""
    if created is not None:
        row = TournamentRow(tournament_id=event.stream_id.removeprefix(PREFIX), name=created.name, kind=created.kind,
                            format=created.format, organiser=created.organiser, status="registration",
                            players=0, round=0, version=0, created_pos=event.position, created_at=event.at,
                            updated_at=event.at)
    if row is None:
        return None
    row.status = STATUS_AFTER.get(event.type, row.status)
    row.players += ENTRANTS.get(event.type, 0)
    row.round += int(event.type == PAIRED)
    row.version = event.version
    row.updated_at = event.at
    return row


class Tournaments:
    name = "tournaments"
    tables = (TABLE,)

    def ddl(self, schema: str) -> list[str]:
        t = f"{schema}.{TABLE}"
        return [f"""CREATE TABLE IF NOT EXISTS {t} (
                    tournament_id text PRIMARY KEY, name text NOT NULL, kind text NOT NULL, format text NOT NULL,
                    organiser text NOT NULL, status text NOT NULL, players integer NOT NULL,
                    round integer NOT NULL, version integer NOT NULL, created_pos bigint NOT NULL UNIQUE,
                    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)""",
                f"CREATE INDEX IF NOT EXISTS rm_tournaments_status ON {t} (status, created_pos)",
                f"CREATE INDEX IF NOT EXISTS rm_tournaments_kind ON {t} (kind, created_pos)",
                f"CREATE INDEX IF NOT EXISTS rm_tournaments_kind_status ON {t} (kind, status, created_pos)"]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        mine = [e for e in events if e.stream_id.startswith(PREFIX) and e.type.startswith("tournament.")]
        if not mine:
            return
        table = f"{schema}.{TABLE}"
        ids = list({e.stream_id.removeprefix(PREFIX) for e in mine})
        rows: dict[str, TournamentRow | None] = {
            r.tournament_id: r for r in await load(conn, table, TournamentRow, "tournament_id = ANY($1::text[])",
                                                   ids)}
        created = {p: _created.decode(d) for p, d in await conn.fetch(
            "SELECT position, data::text FROM events WHERE position = ANY($1::bigint[])",
            [e.position for e in mine if e.type == CREATED])} if any(e.type == CREATED for e in mine) else {}
        for event in mine:
            key = event.stream_id.removeprefix(PREFIX)
            rows[key] = evolve(rows.get(key), event, created.get(event.position))
        await upsert(conn, table, ("tournament_id",), (r for r in rows.values() if r is not None))


# -- the query side -----------------------------------------------------------------


class TournamentPage(msgspec.Struct, kw_only=True):
    items: list[TournamentItem]
    next_cursor: str | None


_ITEM = TournamentItem.__struct_fields__


async def list_tournaments(pool: Any, status: str | None = None, kind: str | None = None, cursor: str | None = None,
                           limit: int = 50) -> TournamentPage:
    """One page of tournaments, newest first; BadCursor for a cursor this list did not issue."""
    where, args = [], []
    for column, value in (("status", status), ("kind", kind)):
        if value is not None:
            args.append(value)
            where.append(f"{column} = ${len(args)}")
    if cursor is not None:
        args.append(decode_cursor(cursor, (int,))[0])
        where.append(f"created_pos < ${len(args)}")
    args.append(limit + 1)
    rows, last = page(await pool.fetch(
        f"SELECT {', '.join(_ITEM)}, created_pos FROM {TABLE} WHERE {' AND '.join(where) or 'true'} "
        f"ORDER BY created_pos DESC LIMIT ${len(args)}", *args), limit)
    items = [TournamentItem(**{f: r[f] for f in _ITEM}) for r in rows]
    return TournamentPage(items=items, next_cursor=encode_cursor(last["created_pos"]) if last else None)
