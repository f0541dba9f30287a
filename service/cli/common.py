"""What the `stela` subcommands share: running a coroutine on the composition root's store."""

from __future__ import annotations

from typing import Any

from service.container import open_store
from service.ops.settings import Settings


async def with_store(fn: Any) -> Any:
    """Run `fn(store)` on the store the composition root opens for these settings (a small pool)."""
    async with open_store(Settings.from_env(), pool_max=4) as store:
        return await fn(store)
