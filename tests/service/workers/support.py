"""What the timeout worker's tests share: a process's collaborators on a given store, a clocked game of tally."""

from __future__ import annotations

from types import SimpleNamespace

from projections.deadlines import Deadlines
from service.commands.pipeline import CommandPipeline, now_ms
from service.commands.players import Players, Viewer
from service.commands.repository import GameRepository
from service.live.fanout import Broker
from service.store.protocol import ReadSideStore
from service.workers.timeouts import TimeoutWorker
from testkit.tally import TALLY

LATER = 3_600_000  # the workers' clock runs an hour ahead, so every deadline is due without waiting


async def process(store: ReadSideStore) -> SimpleNamespace:
    """One process's collaborators on `store`: its own repository cache, pipeline and worker."""
    repository = GameRepository(store, {"tally": TALLY})
    pipeline = CommandPipeline(repository, store, Broker())
    worker = TimeoutWorker(store, pipeline, clock=lambda: now_ms() + LATER)
    await store.ensure_tables([Deadlines()])
    return SimpleNamespace(store=store, repository=repository, worker=worker, pipeline=pipeline,
                           players=Players(store))


async def clocked_game(r: SimpleNamespace, abandon_after: int = 3) -> tuple[str, list[Viewer]]:
    viewers = [Viewer(player=(await r.players.register(f"P{i}"))[0]) for i in range(2)]
    control = {"per_move_seconds": 30, "abandon_after": abandon_after}
    game_id = (await r.pipeline.create(viewers[0], "tally", {"target": 1000}, 2, time_control=control)).game_id
    await r.pipeline.join(viewers[1], game_id, None)
    await r.pipeline.start(viewers[0], game_id)
    return game_id, viewers


async def types_of(r: SimpleNamespace, game_id: str) -> list[str]:
    return [e.type for e in await r.store.read_stream(game_id)]
