"""Versioned SQL migrations, applied in order at start-up (`migrate`)."""

from __future__ import annotations

from importlib import resources

import asyncpg

_MIGRATION_LOCK = 7_114_001


async def migrate(conn: asyncpg.Connection) -> list[str]:
    """Apply the versioned SQL files not yet applied, under an advisory lock; returns their names."""
    applied: list[str] = []
    await conn.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
    try:
        await conn.execute("""CREATE TABLE IF NOT EXISTS schema_migrations (
            version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())""")
        done = {r[0] for r in await conn.fetch("SELECT version FROM schema_migrations")}
        files = sorted(p for p in resources.files("service.store.migrations").iterdir() if p.name.endswith(".sql"))
        for path in files:
            version = int(path.name.split("_", 1)[0])
            if version in done:
                continue
            async with conn.transaction():
                await conn.execute(path.read_text())
                await conn.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                                   version, path.name)
            applied.append(path.name)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)
    return applied
