"""Helpers for the transparency log over HTTP in tests."""

from __future__ import annotations

import asyncio
import time
from typing import Any


async def checkpointed(client: Any, stream_id: str, leaves: int, seconds: float = 30.0) -> str:
    """Sign checkpoints until one holds the stream's `leaves` leaves (the log integrates what has committed
    below the global log's horizon, a moment after the commit); that checkpoint's note."""
    deadline = time.monotonic() + seconds
    while True:
        note = (await client.post("/v1/log/checkpoints")).text
        resp = await client.get(f"/v1/log/proofs/inclusion/{stream_id}")
        if resp.status_code == 200 and len(resp.json()["leaves"]) == leaves:
            return note
        assert time.monotonic() < deadline, "the stream's leaves were not checkpointed in time"
        await asyncio.sleep(0.05)
