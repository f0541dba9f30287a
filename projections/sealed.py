"""Sealed duplicate deals in the read models that aggregate results: held back until the deal opens.

Every table of a duplicate tournament round plays the same deal, and the deal stays sealed until every
one of its games has ended (the service's one visibility rule, `service.commands.sealing`). A read model
that counts results (ratings, histories, statistics) must not count a sealed game either: the
leaderboard would tell anyone who finished first at a table whose deal other tables still play.
`HeldBack` wraps such a projection: every event of a deal's games is kept in a side table of the model
(`<model>_sealed`) instead of being folded, so the model shows nothing of them, not even that they
run; when the deal's last game ends (`GameEnded` or `GameAborted`), every kept event of the deal is
folded, in log order, at that point of the log, then the ending itself, and the deal is marked open
(`<model>_opened`, with the position of that ending: what its games append later passes straight through). So each event counts exactly once, and as the decision rests on the log's order
alone (which games a deal has is written with its pairing, in the transaction that creates them), a rebuild from
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

# The deal of each game that belongs to a duplicate round: the round's games, written with its pairing
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
        self.held, self.opened = f"rm_{inner.name}_sealed", f"rm_{inner.name}_opened"
        self.tables = (*inner.tables, self.held, self.opened)

    def ddl(self, schema: str) -> list[str]:
        return [*self.inner.ddl(schema),
                f"""CREATE TABLE IF NOT EXISTS {schema}.{self.held} (
                    deal text NOT NULL, tx bigint NOT NULL, position bigint NOT NULL, game_id text NOT NULL,
                    ended boolean NOT NULL, event text NOT NULL, PRIMARY KEY (deal, tx, position))""",
                f"CREATE TABLE IF NOT EXISTS {schema}.{self.opened} (deal text PRIMARY KEY, position bigint NOT NULL)"]

    async def apply(self, conn: Any, schema: str, events: list[LogEvent]) -> None:
        """Fold into `inner` what `events` let through, with every deal that opens here released in place."""
        ids = list({e.stream_id for e in events})
        deal_of = {r[0]: (r[1], frozenset(r[2])) for r in await conn.fetch(_DEALS, ids)} if ids else {}
        if not deal_of:
            await self.inner.apply(conn, schema, events)
            return
        deals = list({deal for deal, _ in deal_of.values()})
        opened = {r[0] for r in await conn.fetch(f"SELECT deal FROM {schema}.{self.opened} "
                                                 "WHERE deal = ANY($1::text[])", deals)}
        ended = await self._ended(conn, f"{schema}.{self.held}", [d for d in deals if d not in opened])
        passed: list[LogEvent] = []
        kept: dict[str, list[tuple[LogEvent, bool]]] = {}
        for event in events:
            deal, members = deal_of.get(event.stream_id, (None, frozenset()))
            if deal is None or deal in opened:
                passed.append(event)
            elif _ending(event) and ended.setdefault(deal, set()) | {event.stream_id} >= members:
                # the deal's last game ends: everything kept of the deal is folded now, in log order
                passed += await self._release(conn, f"{schema}.{self.held}", deal, kept.pop(deal, []))
                passed.append(event)
                opened.add(deal)
                await conn.execute(f"INSERT INTO {schema}.{self.opened} (deal, position) VALUES ($1, $2)", deal,
                                   event.position)
            else:
                ended[deal] |= {event.stream_id} if _ending(event) else set()
                kept.setdefault(deal, []).append((event, _ending(event)))
        await self._keep(conn, f"{schema}.{self.held}", kept)
        if passed:
            await self.inner.apply(conn, schema, passed)

    @staticmethod
    async def _keep(conn: Any, table: str, kept: dict[str, list[tuple[LogEvent, bool]]]) -> None:
        rows = [(deal, e.tx, e.position, e.stream_id, end, _encode(e).decode())
                for deal, held in kept.items() for e, end in held]
        if rows:
            await conn.executemany(f"INSERT INTO {table} (deal, tx, position, game_id, ended, event) "
                                   "VALUES ($1, $2, $3, $4, $5, $6)", rows)

    @staticmethod
    async def _ended(conn: Any, table: str, deals: list[str]) -> dict[str, set[str]]:
        """The games of `deals` whose end is held back already."""
        found: dict[str, set[str]] = {deal: set() for deal in deals}
        if deals:
            for deal, game in await conn.fetch(
                    f"SELECT deal, game_id FROM {table} WHERE deal = ANY($1::text[]) AND ended", deals):
                found[deal].add(game)
        return found

    @staticmethod
    async def _release(conn: Any, table: str, deal: str, kept: list[tuple[LogEvent, bool]]) -> list[LogEvent]:
        """Every event of `deal` held back so far (stored, then this batch's), in log order; the stored ones
        are forgotten."""
        stored = await conn.fetch(f"DELETE FROM {table} WHERE deal = $1 RETURNING tx, position, event", deal)
        return [_decode.decode(r[2]) for r in sorted(stored, key=lambda r: (r[0], r[1]))] + [e for e, _ in kept]
