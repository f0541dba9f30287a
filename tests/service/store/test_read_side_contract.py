"""One read-side contract, two stores: what the workers need of a store (`ReadSideStore`: log followers
with checkpoints, and the due deadlines) behaves alike in memory and on PostgreSQL, so the result runners,
the arena worker and the timeout worker run on either."""

from __future__ import annotations

import uuid

import msgspec
import pytest

from domain.clock import ClockSet
from domain.kernel import Outcome
from domain.table import GameEnded
from projections.deadlines import Deadlines
from service.store.memory import MemoryStore
from service.store.postgres import PostgresStore
from service.store.protocol import Metadata, NewEvent


@pytest.fixture(params=["memory", "postgres"])
async def store(request, own_dsn):
    """A store of its own, its checkpoints and deadlines ensured as the workers ensure them on start: a
    follower reads the whole global log, and the deadlines fired here are nobody else's (the session's
    shared database holds other tests' games)."""
    if request.param == "memory":
        memory = MemoryStore()
        await memory.ensure_tables([Deadlines()])
        yield memory
        return
    pg = await PostgresStore.connect(own_dsn, 4)
    await pg.ensure_tables([Deadlines()])
    yield pg
    await pg.close()


def sid() -> str:
    return f"s-{uuid.uuid4()}"


def table_event(event: msgspec.Struct) -> NewEvent:
    data = msgspec.to_builtins(event)
    return NewEvent(data.pop("type"), data)


def clock(deadlines: list[int | None]) -> NewEvent:
    return table_event(ClockSet(at_ms=0, remaining_ms=[1000] * len(deadlines), since_ms=[0] * len(deadlines),
                                deadlines_ms=deadlines, timeouts=[0] * len(deadlines)))


ENDED = table_event(GameEnded(outcome=Outcome(scores=[1, 0], ranks=[1, 2], winners=[0])))


async def drain(store, name: str, size: int, types: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """Follow `name` until a batch reads nothing; the (stream, version) of every event handed over."""
    seen: list[tuple[str, int]] = []

    async def handle(events):
        seen.extend((e.stream_id, e.version) for e in events)

    while await store.follow(name, size, handle, types):
        pass
    return seen


async def test_a_follower_reads_each_event_once_in_global_order_and_resumes_from_its_checkpoint(store):
    a, b = sid(), sid()
    await store.append(a, 0, [NewEvent("test.x", {}), NewEvent("test.y", {})], Metadata())
    await store.append(b, 0, [NewEvent("test.x", {})], Metadata())
    await store.append(a, 2, [NewEvent("test.z", {})], Metadata())
    assert await drain(store, "reader", 2) == [(a, 1), (a, 2), (b, 1), (a, 3)]
    await store.append(b, 1, [NewEvent("test.y", {})], Metadata())
    assert await drain(store, "reader", 2) == [(b, 2)]
    assert await drain(store, "another", 10) == [(a, 1), (a, 2), (b, 1), (a, 3), (b, 2)]  # each name its own


async def test_a_typed_follower_sees_only_its_types_and_resumes_after_them(store):
    game = sid()
    await store.append(game, 0, [NewEvent("test.x", {}), clock([5, None])], Metadata())
    await store.append(game, 2, [NewEvent("test.y", {}), ENDED, NewEvent("test.z", {})], Metadata())
    assert await drain(store, "endings", 1, ("table.GameEnded",)) == [(game, 4)]
    other = sid()
    await store.append(other, 0, [NewEvent("test.x", {})], Metadata())
    assert await drain(store, "endings", 1, ("table.GameEnded",)) == []
    await store.append(other, 1, [ENDED], Metadata())
    assert await drain(store, "endings", 5, ("table.GameEnded",)) == [(other, 2)]


async def test_a_batch_whose_handler_fails_is_handed_over_again(store):
    stream = sid()
    await store.append(stream, 0, [NewEvent("test.x", {})], Metadata())

    async def fail(events):
        raise RuntimeError("the handler failed")

    with pytest.raises(RuntimeError):
        await store.follow("retried", 10, fail)
    assert await drain(store, "retried", 10) == [(stream, 1)]


async def test_a_follower_mid_batch_holds_its_name_against_a_second(store):
    await store.append(sid(), 0, [NewEvent("test.x", {})], Metadata())
    inner: list[int] = []

    async def handle(events):
        inner.append(await store.follow("held", 10, handle))

    assert await store.follow("held", 10, handle) == 1
    assert inner == [0]


async def test_due_deadlines_fire_the_earliest_first_once_and_an_ended_game_has_none(store):
    one, two, ended = sid(), sid(), sid()
    await store.append(one, 0, [clock([100, None, 50])], Metadata())
    await store.append(two, 0, [clock([200, 20])], Metadata())
    await store.append(ended, 0, [clock([10, 10])], Metadata())
    await store.append(ended, 1, [ENDED], Metadata())
    await store.append(two, 1, [clock([300, None])], Metadata())  # the newer clock replaces the game's deadlines
    fired: list[tuple[str, int, int, int, int]] = []

    async def fire(row, now):
        fired.append((row.game_id, row.seat, row.due_ms, row.version, now))
        return 1

    async def due_by(at: int, limit: int = 10) -> int:
        return await store.fire_due(Deadlines(), lambda: at, limit, lambda row: hash((row.game_id, row.seat)), fire)

    assert await due_by(150) == 2
    assert fired == [(one, 2, 50, 1, 150), (one, 0, 100, 1, 150)]
    assert await due_by(150) == 0  # fired rows leave the model
    assert await due_by(1000, limit=1) == 1 and fired[-1] == (two, 0, 300, 2, 1000)
    assert await due_by(1000) == 0


async def test_a_deadline_being_fired_is_skipped_by_a_second_caller(store):
    game = sid()
    await store.append(game, 0, [clock([10])], Metadata())
    nested: list[int] = []

    async def fire(row, now):
        nested.append(await store.fire_due(Deadlines(), lambda: now, 10, key, fire))
        return 1

    def key(row) -> int:
        return hash((row.game_id, row.seat)) & 0x7FFF_FFFF

    assert await store.fire_due(Deadlines(), lambda: 50, 10, key, fire) == 1
    assert nested == [0]
