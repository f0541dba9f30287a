"""The command pipeline on the memory store: idempotency, dry runs, snapshots. (What these ask of a store,
idempotent results, stream versions and snapshots, the store contract suite holds PostgreSQL to as well:
tests/service/store/test_store_contract.py; contention on PostgreSQL: test_handling.py.)"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from domain.kernel import RuleViolation
from service.commands.pipeline import CommandPipeline
from service.commands.players import Players, Viewer
from service.commands.repository import GameRepository, snapshot_format
from service.live.fanout import Broker
from service.store.memory import MemoryStore
from testkit.tally import TALLY


def wired(store: Any) -> SimpleNamespace:
    """The pipeline, its repository (a snapshot every 7 events) and the players on `store`."""
    repository = GameRepository(store, {"tally": TALLY}, snapshot_every=7)
    return SimpleNamespace(store=store, repository=repository, players=Players(store),
                           pipeline=CommandPipeline(repository, store, Broker()))


@pytest.fixture
def service() -> SimpleNamespace:
    return wired(MemoryStore())


async def seated_game(service: SimpleNamespace, seats: int, target: int = 1000) -> tuple[str, list[Viewer]]:
    viewers = [Viewer(player=(await service.players.register(f"P{i}"))[0]) for i in range(seats)]
    game_id = (await service.pipeline.create(viewers[0], "tally", {"target": target}, seats)).game_id
    for v in viewers[1:]:
        await service.pipeline.join(v, game_id, None)
    await service.pipeline.start(viewers[0], game_id)
    return game_id, viewers


async def test_an_idempotency_key_makes_a_resent_command_a_no_op(service):
    game_id, viewers = await seated_game(service, 2)
    first = await service.pipeline.command(viewers[0], game_id, {"type": "tally.Add", "amount": 2}, None, "k1")
    again = await service.pipeline.command(viewers[0], game_id, {"type": "tally.Add", "amount": 2}, None, "k1")
    assert [e.version for e in first.events] == [e.version for e in again.events]
    assert first.events[0].event == again.events[0].event
    assert await service.store.stream_version(game_id) == first.state.version == again.state.version


async def test_a_dry_run_validates_without_appending(service):
    game_id, viewers = await seated_game(service, 2)
    before = await service.store.stream_version(game_id)
    await service.pipeline.command(viewers[0], game_id, {"type": "tally.Add", "amount": 1}, None, None, dry_run=True)
    with pytest.raises(RuleViolation):
        await service.pipeline.command(viewers[0], game_id, {"type": "tally.Add", "amount": 7}, None, None, dry_run=True)
    assert await service.store.stream_version(game_id) == before


async def test_loading_starts_from_a_snapshot_not_from_zero(service):
    game_id, viewers = await seated_game(service, 2)
    for i in range(10):
        await service.pipeline.command(viewers[i % 2], game_id, {"type": "tally.Add", "amount": 1}, None, None)
    snap = await service.store.load_snapshot(game_id, snapshot_format("tally"))
    assert snap is not None and snap[0] >= 7
    service.repository.clear()
    reads: list[int] = []
    original = service.store.read_stream

    async def spy(stream_id, after=0, upto=None):
        reads.append(after)
        return await original(stream_id, after, upto)

    service.store.read_stream = spy
    loaded = await service.repository.load(game_id)
    assert reads == [snap[0]] and loaded.state.game.total == 10
