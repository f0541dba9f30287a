"""The game list's filters stay flat as games accumulate: at 50,000 games each common filter of
`GET /v1/games` walks an index newest first and stops after a page (no sequential scan, no sort of
every match), as PostgreSQL's own EXPLAIN shows; the `player` filter starts from that player's
index entries, so it costs at most one player's games, never all games."""

from __future__ import annotations

import json
from typing import Any, Iterator

from projections.base import ensure_tables
from projections.catalog import select
from projections.games import list_query
from projections.pages import encode_cursor

GAMES = 50_000
FILL = f"""
INSERT INTO rm_games (id, kind, status, seat_players, seat_names, open_seats, version, to_act, winners,
                      created_pos, created_at, updated_at)
SELECT 'g' || i, (ARRAY['tikal', 'coatl', 'tobago', 'goldmine'])[1 + i % 4],
       (ARRAY['open', 'active', 'finished', 'finished', 'finished', 'aborted'])[1 + (i / 4) % 6],
       ARRAY['p' || (i * 7) % 2000, 'p' || (i * 13 + 1) % 2000, CASE WHEN (i / 4) % 6 = 0 THEN NULL
             ELSE 'p' || (i * 31 + 2) % 2000 END],
       ARRAY['A', 'B', 'C'], ((i / 4) % 6 = 0)::int, 10, '{{}}', NULL, i * 20, now(), now()
FROM generate_series(1, {GAMES}) AS i;
INSERT INTO rm_game_players (player_id, created_pos, game_id)
SELECT p, created_pos, id FROM rm_games, unnest(seat_players) AS p WHERE p IS NOT NULL ON CONFLICT DO NOTHING;
ANALYZE rm_games; ANALYZE rm_game_players;
"""


def nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


FILTERS: list[dict[str, Any]] = [
    {"kind": "tikal", "status": "active"},
    {"kind": "coatl", "status": "open", "open_seats": True},
    {"status": "open"},
    {"kind": "tobago"},
    {"player": "p42"},
    {"player": "p42", "status": "finished"},
    {"player": "p42", "kind": "tikal", "cursor": encode_cursor(GAMES * 10)},
    {},
]


async def test_each_filter_walks_an_index_newest_first_at_50k_games(store):
    async with store.pool.acquire() as conn:
        await ensure_tables(conn, select(["games"]))
        await conn.execute(FILL)
        for filters in FILTERS:
            sql, args = list_query(**filters, limit=50)
            (plan,) = json.loads(await conn.fetchval(f"EXPLAIN (FORMAT JSON) {sql}", *args))
            kinds = [n["Node Type"] for n in nodes(plan["Plan"])]
            assert kinds[0] == "Limit", (filters, kinds)
            assert "Seq Scan" not in kinds, (filters, kinds)
            if "player" not in filters:  # a player's few games may be fetched by index, then sorted
                assert "Sort" not in kinds and "Bitmap Heap Scan" not in kinds, (filters, kinds)
                assert any(n["Node Type"] == "Index Scan" and n["Scan Direction"] == "Backward"
                           for n in nodes(plan["Plan"])), (filters, kinds)
            assert 0 < len(await conn.fetch(sql, *args)) <= 51
