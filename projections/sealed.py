"""Sealed duplicate deals in the read models that aggregate results: held back until the deal opens.

Every table of a duplicate tournament round plays the same deal, and the deal stays sealed until every
one of its games has ended (the service's one visibility rule, `service.commands.sealing`). A read model
that counts results (ratings, histories, statistics) must not count a sealed game either: the
leaderboard would tell anyone who finished first at a table whose deal other tables still play.
`HeldBack` wraps such a projection: from a deal game's end (`GameEnded` or `GameAborted`) on, that
game's events are kept in a side table of the model (`<model>_sealed`) instead of being folded; when the
deal's last game ends, every kept event of the deal is folded, in log order, at that point of the log,
then the ending itself. So each event counts exactly once, and as the decision rests on the log's order
alone (which games a deal has is written with its pairing, before any of them starts), a rebuild from
zero holds back and releases exactly as the live model did and fills the same tables.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.table import GameAborted, GameEnded
from projections.base import Projection
from projections.log import LogEvent

_encode = msgspec.json.encode
_decode = msgspec.json.Decoder(LogEvent)

# The deal of each ended game that belongs to a duplicate round: the round's games, written with its pairing
# (`tournament_games`), and the tournament's `duplicate` setting from its creation (version 1 of its stream).
_DEALS = """SELECT g.game_id, g.tournament_id || '/' || g.round,
                   array(SELECT o.game_id FROM tournament_games o
                         WHERE o.tournament_id = g.tournament_id AND o.round = g.round)
            FROM tournament_games g JOIN events t ON t.stream_id = 'tournament-' || g.tournament_id AND t.version = 1
            WHERE g.game_id = ANY($1::text[]) AND (t.data ->> 'duplicate')::boolean"""


def _ending(event: LogEvent) -> bool:
    return isinstance(event.table, (GameEnded, GameAborted))


class HeldBack:
    """`inner` with the events of sealed duplicate deals held back until the deal opens (see the module)."""

    def __init__(self, inner: Projection) -> None:
        self.inner = inner
        self.name = inner.name
        self.held = f"rm_{inner.name}_sealed"
        self.tables = (*inner.tables, self.held)

    def ddl(self, schema: str) -> list[str]:
        return [*self.inner.ddl(schema),
                f"""CREATE TABLE IF NOT EXISTS {schema}.{self.held} (
                    deal text NOT NULL, tx bigint NOT NULL, position bigint NOT NULL, game_id text NOT NULL,
                    ended boolean NOT NULL, event text NOT NULL, PRIMARY KEY (deal, tx, position))""",
                f"CREATE INDEX IF NOT EXISTS {self.held}_game ON {schema}.{self.held} (game_id)"]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        """Fold into `inner` what `events` let through, with every deal that opens here released in place."""
        table = f"{schema}.{self.held}"
        ids = list({e.stream_id for e in events})
        holding = dict(await conn.fetch(f"SELECT DISTINCT game_id, deal FROM {table} WHERE game_id = ANY($1::text[])",
                                        ids)) if ids else {}
        endings = [e.stream_id for e in events if _ending(e) and e.stream_id not in holding]
        deals = {r[0]: (r[1], frozenset(r[2])) for r in await conn.fetch(_DEALS, endings)} if endings else {}
        members = {deal: games for deal, games in deals.values()}
        ended = await self._ended(conn, table, list(members))
        passed: list[LogEvent] = []
        kept: dict[str, list[tuple[LogEvent, bool]]] = {}
        opened: list[str] = []
        for event in events:
            game = event.stream_id
            deal = holding.get(game)
            if deal is None and _ending(event) and game in deals:
                deal = deals[game][0]
                ended.setdefault(deal, set()).add(game)
                if ended[deal] >= members[deal]:  # the deal's last game: everything kept is folded now
                    passed += await self._release(conn, table, deal, kept.pop(deal, []))
                    passed.append(event)
                    opened.append(deal)
                    holding = {g: d for g, d in holding.items() if d != deal}
                    continue
                holding[game] = deal
            if deal is None:
                passed.append(event)
            else:
                kept.setdefault(deal, []).append((event, _ending(event)))
        if opened:
            await conn.execute(f"DELETE FROM {table} WHERE deal = ANY($1::text[])", opened)
        rows = [(deal, e.tx, e.position, e.stream_id, end, _encode(e).decode())
                for deal, held in kept.items() for e, end in held]
        if rows:
            await conn.executemany(f"INSERT INTO {table} (deal, tx, position, game_id, ended, event) "
                                   "VALUES ($1, $2, $3, $4, $5, $6)", rows)
        if passed:
            await self.inner.apply(conn, schema, passed)

    @staticmethod
    async def _ended(conn: Any, table: str, deals: list[str]) -> dict[str, set[str]]:
        """The games of `deals` whose end is held back already."""
        if not deals:
            return {}
        found: dict[str, set[str]] = {}
        for deal, game in await conn.fetch(f"SELECT deal, game_id FROM {table} WHERE deal = ANY($1::text[]) AND ended",
                                           deals):
            found.setdefault(deal, set()).add(game)
        return found

    @staticmethod
    async def _release(conn: Any, table: str, deal: str, kept: list[tuple[LogEvent, bool]]) -> list[LogEvent]:
        """Every event of `deal` held back so far (stored, then this batch's), in log order."""
        stored = await conn.fetch(f"SELECT event FROM {table} WHERE deal = $1 ORDER BY tx, position", deal)
        return [_decode.decode(r[0]) for r in stored] + [e for e, _ in kept]
