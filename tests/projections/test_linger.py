"""The service's projectors (`PostgresStore.projector`, the embedded one's factory) linger `LINGER` seconds
(0.5) after a batch while appends keep coming, so a game's rows are written at most once per linger
period; the first event after a quiet spell is projected at once (service/store/readside.py)."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import projections.runner as runner
from projections.catalog import select
from service.store.protocol import Metadata, NewEvent
from service.store.readside import LINGER
from tests.projections.support import TABLE, append_games, random_game, wait_caught_up


class Recorded:
    """The games model, each write of its rows put on `timeline` as ("wrote", its games, the loop's time)."""

    def __init__(self, timeline: list[tuple[Any, ...]]) -> None:
        self.inner = select(["games"])[0]
        self.name, self.tables, self.timeline = self.inner.name, self.inner.tables, timeline

    def ddl(self, schema: str) -> list[str]:
        return self.inner.ddl(schema)

    async def apply(self, conn: Any, schema: str, events: list[Any]) -> None:
        await self.inner.apply(conn, schema, events)
        self.timeline.append(("wrote", {e.stream_id for e in events}, asyncio.get_running_loop().time()))


def record_sleeps(timeline: list[tuple[Any, ...]], monkeypatch: Any) -> None:
    """The runner's `asyncio.sleep`s put on `timeline` as ("slept", seconds) as each returns."""
    async def sleep(seconds: float, *args: Any) -> Any:
        await asyncio.sleep(seconds, *args)
        timeline.append(("slept", seconds))

    patched = types.ModuleType("asyncio")
    patched.__dict__.update(vars(asyncio))
    patched.sleep = sleep  # type: ignore[attr-defined]
    monkeypatch.setattr(runner, "asyncio", patched)


async def until(condition: Any, what: str, timeout: float = 30.0) -> None:
    """Poll `condition` until it holds, failing with `what` after `timeout` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.02)


async def test_under_steady_appends_a_game_is_written_once_per_linger_and_after_a_quiet_spell_at_once(
        store, monkeypatch):
    """df3964a: a batch writes a game's rows once for all its events since the last, so under load the
    service's projector gathers half a second of appends per batch; a lone event still waits for nothing."""
    timeline: list[tuple[Any, ...]] = []
    record_sleeps(timeline, monkeypatch)
    projector = store.projector([Recorded(timeline)])
    append = store.append

    async def announced(*args: Any, **kwargs: Any) -> Any:  # each append wakes the projector, as the fan-out does
        done = await append(*args, **kwargs)
        projector.wake()
        return done

    monkeypatch.setattr(store, "append", announced)
    await projector.start()
    try:
        appended = await append_games(store, range(12), pause=0.02)  # ~100 appends, 20 ms apart at least
        await wait_caught_up(projector.lag)
        steady = [e[2] for e in timeline if e[0] == "wrote"]
        # a quiet spell: the linger that followed the last batch (on this loop, begun before this wait) is over
        await asyncio.sleep(steady[-1] + 2 * LINGER - asyncio.get_running_loop().time())
        timeline.append(("appended",))
        first = random_game(999)[0]
        await store.append("game-quiet", 0, [NewEvent(TABLE.event_type(e), TABLE.event_data(e)) for e in first],
                           Metadata(actor="test", to_act=TABLE.to_act(TABLE.fold(first, None))), kind="tally")
        await until(lambda: any(e[0] == "wrote" and "game-quiet" in e[1] for e in timeline),
                    "the first event after the quiet spell was never projected")
    finally:
        await projector.stop()
    assert len(steady) >= 3, (steady, appended)  # (about 90 appends of `appended` events, 20 ms apart or more)
    gaps = [b - a for a, b in zip(steady, steady[1:])]
    assert min(gaps) >= LINGER - 0.01, gaps  # (an asyncio.sleep never ends early; load only widens the gaps)
    after = timeline[timeline.index(("appended",)) + 1:]
    assert after[0][0] == "wrote" and "game-quiet" in after[0][1], after  # no linger before it: at once
