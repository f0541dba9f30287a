"""Helpers for projection tests: append random games, wait for the projector (testkit.readmodels compares
with a rebuild)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import msgspec

from domain.simulate import play_random
from domain.table import SeatTaken, Table
from service.store.protocol import Metadata, NewEvent
from testkit.tally import TALLY

TABLE = Table(TALLY)
PLAYERS = [f"player-{i}" for i in range(12)]


def random_game(seed: int) -> list[list[Any]]:
    """A complete tally game between random players from PLAYERS, cut into batches as the service would."""
    rnd = random.Random(seed)
    seats = rnd.randint(2, 4)
    played = play_random(TABLE, {"target": rnd.randint(5, 12)}, seats, f"g{seed}".encode(), alternatives=0,
                         check_views=False)
    assert played.error is None, played.error
    who = rnd.sample(PLAYERS, seats)
    events = [msgspec.structs.replace(e, player_id=who[e.seat], name=who[e.seat].title())
              if isinstance(e, SeatTaken) else e for e in played.events]
    batches, i = [], 0
    while i < len(events):
        n = 2 if events[i].__struct_config__.tag == "tally.Added" and i + 1 < len(events) else rnd.randint(1, 3)
        batches.append(events[i:i + n])
        i += n
    return batches


async def append_games(store: Any, seeds: range, abort_every: int = 0, pause: float = 0.0) -> int:
    """Append the games of `seeds`, interleaved batch by batch; returns the number of events appended."""
    pending = {f"game-{s}": (random_game(s), s) for s in seeds}
    state: dict[str, Any] = {}
    appended = 0
    rnd = random.Random(seeds.start)
    while pending:
        game_id = rnd.choice(list(pending))
        batches, seed = pending[game_id]
        batch = batches.pop(0)
        if abort_every and seed % abort_every == 0 and len(batches) == 2 and state[game_id].status == "active":
            batch, batches[:] = TABLE.abort(state[game_id], "test"), []
        version = state[game_id].version if game_id in state else 0
        after = TABLE.fold(batch, state.get(game_id))
        state[game_id] = after
        await store.append(game_id, version, [NewEvent(TABLE.event_type(e), TABLE.event_data(e)) for e in batch],
                           Metadata(actor="test", to_act=TABLE.to_act(after)), kind="tally")
        appended += len(batch)
        if not batches:
            del pending[game_id]
        if pause:
            await asyncio.sleep(pause)
    return appended


async def wait_caught_up(lag: Any, timeout: float = 20.0) -> None:
    """Poll `lag()` until every projection has projected the whole log."""
    deadline = time.monotonic() + timeout
    while True:
        lags = await lag()
        if lags and all(v["events"] == 0 for v in lags.values()):
            return
        assert time.monotonic() < deadline, f"projector still behind: {lags}"
        await asyncio.sleep(0.05)


async def project_all(pool: Any, **options: Any) -> Any:
    """Run a projector until it has projected the whole log, stop it, and return it."""
    from projections.runner import Projector

    projector = Projector(pool, **options)
    await projector.start()
    try:
        await wait_caught_up(projector.lag)
    finally:
        await projector.stop()
    return projector


def api_lag(client: Any) -> Any:
    """`lag()` read through GET /readyz (the app runs on the test client's own event loop)."""
    async def lag() -> dict[str, Any]:
        return (await client.get("/readyz")).json()["details"].get("projections", {})
    return lag
