"""Read models against a rebuild: the live tables must equal what a replay from zero produces.

Shared by the projection tests and bench.chaos (which checks it after every fault).
"""

from __future__ import annotations

from typing import Any

from projections.base import Projection
from projections.catalog import select
from projections.rebuild import rebuild


async def table_rows(conn: Any, schema: str, table: str) -> list[tuple[Any, ...]]:
    """Every row of `schema`.`table`, in a stable order."""
    rows = await conn.fetch(f"SELECT * FROM {schema}.{table} ORDER BY 1, 2")
    return [tuple(r) for r in rows]


async def assert_equal_to_rebuild(pool: Any, projections: list[Projection] | None = None) -> None:
    """Rebuild each read model from zero into its shadow schema and compare it with the live tables."""
    async with pool.acquire() as conn:
        for projection in projections or select(None):
            shadow = await rebuild(conn, projection, swap=False)
            for table in projection.tables:
                live = await table_rows(conn, "public", table)
                rebuilt = await table_rows(conn, shadow.schema, table)
                assert live == rebuilt, f"{projection.name}.{table}: live differs from a rebuild"
            await conn.execute(f"DROP SCHEMA {shadow.schema} CASCADE")
