"""The zero-configuration default: an embedded PostgreSQL in a data folder that survives restarts."""

from __future__ import annotations

import asyncio

import pytest

from service.store.embedded import EmbeddedPostgres
from service.store.postgres import PostgresStore
from service.store.protocol import Metadata, NewEvent

pytestmark = pytest.mark.xdist_group("embedded")


async def test_embedded_postgres_keeps_events_across_restarts(tmp_path):
    for round_ in range(2):
        embedded = EmbeddedPostgres(tmp_path)
        dsn = await asyncio.to_thread(embedded.start)
        try:
            store = await PostgresStore.connect(dsn, 2)
            if round_ == 0:
                await store.append("kept", 0, [NewEvent("test.kept", {"n": 1})], Metadata())
            else:
                assert [e.data for e in await store.read_stream("kept")] == [{"n": 1}]
            await store.close()
        finally:
            await asyncio.to_thread(embedded.stop)
