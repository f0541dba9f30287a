"""The timeout worker: each due deadline fires exactly once, however many processes race for it."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from projections.base import ensure_tables
from projections.deadlines import Deadline, Deadlines
from service.live.fanout import Broker
from service.commands.pipeline import CommandPipeline, now_ms
from service.commands.players import Players, Viewer
from service.commands.repository import GameRepository
from service.store.postgres import PostgresStore
from service.store.protocol import GENESIS_HASH, event_hash
from service.workers.timeouts import TimeoutWorker
from service.commands.verify import verify_log
from testkit.tally import TALLY

LATER = 3_600_000  # the workers' clock runs an hour ahead, so every deadline is due without waiting


async def process(pg_dsn: str) -> SimpleNamespace:
    """One replica's collaborators: its own pool, repository cache and worker."""
    store = await PostgresStore.connect(pg_dsn, 6)
    repository = GameRepository(store, {"tally": TALLY})
    pipeline = CommandPipeline(repository, store, Broker())
    worker = TimeoutWorker(store, pipeline, clock=lambda: now_ms() + LATER)
    async with store.pool.acquire() as conn:
        await ensure_tables(conn, [Deadlines()])
    return SimpleNamespace(store=store, repository=repository, worker=worker, pipeline=pipeline,
                           players=Players(store))


@pytest.fixture
async def replicas(pg_dsn):
    two = [await process(pg_dsn), await process(pg_dsn)]
    yield two
    for r in two:
        await r.store.close()


async def clocked_game(r: SimpleNamespace, abandon_after: int = 3) -> tuple[str, list[Viewer]]:
    viewers = [Viewer(player=(await r.players.register(f"P{i}"))[0]) for i in range(2)]
    control = {"per_move_seconds": 30, "abandon_after": abandon_after}
    game_id = (await r.pipeline.create(viewers[0], "tally", {"target": 1000}, 2, time_control=control)).game_id
    await r.pipeline.join(viewers[1], game_id, None)
    await r.pipeline.start(viewers[0], game_id)
    return game_id, viewers


async def types_of(r: SimpleNamespace, game_id: str) -> list[str]:
    return [e.type for e in await r.store.read_stream(game_id)]


async def test_two_workers_racing_on_one_due_deadline_record_exactly_one_timeout(replicas):
    a, b = replicas
    game_id, _ = await clocked_game(a)
    fired = await asyncio.gather(a.worker.tick(), b.worker.tick(), a.worker.tick(), b.worker.tick())
    assert (await types_of(a, game_id)).count("table.TimedOut") == 1
    assert sum(fired) >= 1


async def test_two_replicas_firing_the_same_row_bypassing_the_lock_still_record_one_timeout(replicas):
    a, b = replicas
    game_id, _ = await clocked_game(a)
    await a.worker.tick()  # brings the read model up to date (and fires)
    events = await a.store.read_stream(game_id)
    clock = [e for e in events if e.type == "table.ClockSet"][-1]
    seat = next(s for s, d in enumerate(clock.data["deadlines_ms"]) if d is not None)
    row = Deadline(game_id, seat, clock.data["deadlines_ms"][seat], clock.version)
    later = now_ms() + 2 * LATER
    done = await asyncio.gather(a.worker._fire(row, later), b.worker._fire(row, later))
    assert sum(done) == 1
    assert (await types_of(a, game_id)).count("table.TimedOut") == 2


async def test_a_timed_out_seat_has_its_turn_played_and_the_game_goes_on_verifiably(replicas):
    a, _ = replicas
    game_id, viewers = await clocked_game(a)
    await a.worker.tick()
    loaded = await a.repository.load(game_id)
    assert loaded.state.status == "active" and loaded.state.game.turn == 1
    timed_out = [e for e in await a.store.read_stream(game_id) if e.type == "table.TimedOut"]
    assert timed_out[0].data["seat"] == 0 and timed_out[0].data["played"] == "tally.Add"
    assert timed_out[0].metadata["command"]["type"] == "table.TimeOut"
    await a.pipeline.command(viewers[1], game_id, {"type": "table.Resign"}, None, None)
    report = verify_log(await a.store.read_stream(game_id), {"tally": TALLY})
    assert report.ok, report.problems
    assert report.outcome is not None and report.outcome["winners"] == [0]  # a resignation's outcome is reported


async def test_a_seat_that_keeps_timing_out_is_abandoned_and_the_game_ends(replicas):
    a, _ = replicas
    game_id, _ = await clocked_game(a, abandon_after=1)
    await a.worker.tick()
    loaded = await a.repository.load(game_id)
    assert loaded.state.status == "finished"
    ended = [e for e in await a.store.read_stream(game_id) if e.type == "table.SeatResigned"]
    assert ended[0].data == {"seat": 0, "reason": "abandoned"}
    assert verify_log(await a.store.read_stream(game_id), {"tally": TALLY}).ok


async def test_a_decision_in_the_millisecond_its_seat_clock_started_records_no_tick_and_still_verifies(monkeypatch):
    """On a fast machine a seat that keeps the turn (a Cóatl prophecy, then more) can act in the same
    millisecond its clock started: nothing on the clock changes, no ClockSet is recorded, and the audit
    must re-decide that command without one (it raised "needs now_ms" instead)."""
    import msgspec

    import service.commands.pipeline as pipeline_module
    from domain.catalog import GAMES
    from domain.table import Table
    from service.store.memory import MemoryStore

    monkeypatch.setattr(pipeline_module, "now_ms", lambda: 1_800_000_000_000)  # every decision in one ms
    store = MemoryStore()
    repository = GameRepository(store, GAMES)
    pipeline, players = CommandPipeline(repository, store, Broker()), Players(store)
    viewers = [Viewer(player=(await players.register(f"P{i}"))[0]) for i in range(2)]
    game_id = (await pipeline.create(viewers[0], "coatl", {"sacrifice_tokens": False}, 2,
                                     time_control={"per_move_seconds": 30})).game_id
    await pipeline.join(viewers[1], game_id, None)
    await pipeline.start(viewers[0], game_id)
    table = Table(GAMES["coatl"])
    for _ in range(40):
        state = (await repository.load(game_id)).state
        seat = table.to_act(state)[0]
        command = msgspec.to_builtins(table.legal(state, seat)[0])
        await pipeline.command(viewers[seat], game_id, command, None, None)
    events = await store.read_stream(game_id)
    batches: dict[int, list[str]] = {}
    for e in events:
        if e.metadata.get("command"):
            batches.setdefault(e.metadata["command_id"], []).append(e.type)
    assert any("table.ClockSet" not in types for types in batches.values()), "no decision kept its clock"
    await pipeline.command(viewers[0], game_id, {"type": "table.Resign"}, None, None)
    report = verify_log(await store.read_stream(game_id), GAMES)
    assert report.ok, report.problems
    assert report.decisions_checked > 40


async def test_a_deadline_fires_while_an_unrelated_transaction_holds_the_horizon(replicas, pg_dsn):
    """The read models wait for every open transaction of the database; a clock does not."""
    import time

    import asyncpg

    a, b = replicas
    for r in replicas:
        r.worker.clock = now_ms
    blocker = await asyncpg.connect(pg_dsn)
    try:
        await blocker.execute("BEGIN")
        await blocker.fetchval("SELECT pg_current_xact_id()")  # idle in transaction from now on, with an xid
        viewers = [Viewer(player=(await a.players.register(f"P{i}"))[0]) for i in range(2)]
        game_id = (await a.pipeline.create(viewers[0], "tally", {"target": 1000}, 2,
                                           time_control={"per_move_seconds": 1})).game_id
        await a.pipeline.join(viewers[1], game_id, None)
        await a.pipeline.start(viewers[0], game_id)
        due = (await a.repository.load(game_id)).state.clock.deadlines_ms[0] / 1000
        deadline = time.monotonic() + 60
        while "table.TimedOut" not in await types_of(a, game_id):
            assert time.monotonic() < deadline, "the deadline did not fire while the horizon was held"
            await asyncio.gather(a.worker.tick(), b.worker.tick())
            await asyncio.sleep(0.05)
        late = time.time() - due
        assert blocker.is_in_transaction() and not blocker.is_closed()  # it fired while the horizon stood
        assert (await types_of(a, game_id)).count("table.TimedOut") == 1
        print(f"fired {late:.2f} s after its deadline with the horizon held")
    finally:
        await blocker.close()
    await asyncio.gather(a.worker.tick(), b.worker.tick())  # the read model catches up with what fired
    timed_out = [e.data for e in await a.store.read_stream(game_id) if e.type == "table.TimedOut"]
    assert len({(t["seat"], t["consecutive"]) for t in timed_out}) == len(timed_out)  # no deadline fired twice


async def _random_game_with_a_leaver(kind: str, seats: int, seed: int, by_timeout: bool, monkeypatch=None) -> tuple:
    """A game of `kind` at `seats` played at random through the pipeline (on memory) while one seat leaves
    (resigns, or times out once with `abandon_after` 1) after a few commands; returns (store, game id, leaver)."""
    import random

    import msgspec

    from domain.catalog import GAMES
    from service.store.memory import MemoryStore

    rng = random.Random(seed)
    store = MemoryStore()
    repository = GameRepository(store, GAMES)
    pipeline, players = CommandPipeline(repository, store, Broker()), Players(store)
    viewers = [Viewer(player=(await players.register(f"P{i}"))[0]) for i in range(seats)]
    control = {"per_move_seconds": 600, "abandon_after": 1}
    game_id = (await pipeline.create(viewers[0], kind, {}, seats, time_control=control)).game_id
    for viewer in viewers[1:]:
        await pipeline.join(viewer, game_id, None)
    await pipeline.start(viewers[0], game_id)
    leaver, leave_at = rng.randrange(seats), rng.randrange(1, 30)
    for step in range(20_000):
        loaded = await repository.load(game_id)
        state, table = loaded.state, loaded.table
        if state.status != "active":
            return store, game_id, leaver
        acting = table.to_act(state)
        if step == leave_at:
            if by_timeout and leaver in acting:
                await pipeline.time_out(game_id, loaded, leaver, state.clock.deadlines_ms[leaver])
                continue
            if not by_timeout:
                await pipeline.command(viewers[leaver], game_id, {"type": "table.Resign"}, None, None)
                continue
            leave_at += 1  # wait for the leaver's turn to let its clock run out
        seat = rng.choice(acting)
        command = rng.choice(table.legal(state, seat))
        await pipeline.command(viewers[seat], game_id, msgspec.to_builtins(command), None, None)
    raise AssertionError(f"{kind} at {seats} did not end")


CASES = [(kind, seats) for kind, low, high in (("coatl", 3, 4), ("goldmine", 3, 6), ("tikal", 3, 4), ("tobago", 3, 4))
         for seats in range(low, high + 1)]


@pytest.mark.parametrize("kind,seats", CASES)
async def test_a_seat_leaving_a_game_of_three_or_more_leaves_it_to_the_others_to_a_normal_end(kind, seats):
    """Issue 23, item 6: resigned on one game, abandoned by a timeout on another; each time the kind's
    timeout rule plays for the seat that left, the game reaches its rules' end, that seat ranks last,
    and the audit re-decides every command (the stand-in's included) to the same events."""
    from domain.catalog import GAMES

    for by_timeout in (False, True):
        store, game_id, leaver = await _random_game_with_a_leaver(kind, seats, 7 * seats + by_timeout, by_timeout)
        events = await store.read_stream(game_id)
        left = [e for e in events if e.type == "table.SeatResigned"]
        assert [e.data for e in left] == [{"seat": leaver, "reason": "abandoned" if by_timeout else "resigned"}]
        assert events[events.index(left[0]) + 1].type != "table.GameEnded", "the game went on"
        report = verify_log(events, GAMES)
        assert report.ok, report.problems
        outcome = report.outcome
        assert outcome is not None and outcome["details"]["left"] == [leaver]
        assert outcome["ranks"][leaver] == seats and outcome["ranks"].count(seats) == 1
        assert leaver not in outcome["winners"]


async def test_a_log_written_before_play_on_still_ends_at_a_resignation_and_verifies(monkeypatch):
    """Old logs carry no `play_on`: they read as False, a resignation in a game of three ends it, and the
    audit re-decides them as they were recorded."""
    import msgspec

    from domain.table import GameCreated, Table
    from domain.table import rules as table_rules
    from service.store.memory import MemoryStore

    real_create = table_rules.TableRules.create

    def old_create(self, *args, **kwargs):
        return [msgspec.structs.replace(e, play_on=False) if isinstance(e, GameCreated) else e
                for e in real_create(self, *args, **kwargs)]

    monkeypatch.setattr(table_rules.TableRules, "create", old_create)
    store = MemoryStore()
    repository = GameRepository(store, {"tally": TALLY})
    pipeline, players = CommandPipeline(repository, store, Broker()), Players(store)
    viewers = [Viewer(player=(await players.register(f"P{i}"))[0]) for i in range(3)]
    game_id = (await pipeline.create(viewers[0], "tally", {"target": 1000}, 3)).game_id
    for viewer in viewers[1:]:
        await pipeline.join(viewer, game_id, None)
    await pipeline.start(viewers[0], game_id)
    await pipeline.command(viewers[0], game_id, {"type": "tally.Add", "amount": 2}, None, None)
    await pipeline.command(viewers[2], game_id, {"type": "table.Resign"}, None, None)
    monkeypatch.setattr(table_rules.TableRules, "create", real_create)
    events = await store.read_stream(game_id)
    assert events[0].data["play_on"] is False
    assert [e.type for e in events[-3:]] == ["table.SeatResigned", "table.GameEnded", "table.SeedRevealed"]
    data = dict(events[0].data)
    del data["play_on"]  # as the earlier version wrote it; the chain is rebuilt over the data as stored
    old, prev = [], GENESIS_HASH
    for e in [msgspec.structs.replace(events[0], data=data), *events[1:]]:
        digest = event_hash(prev, e.stream_id, e.version, e.type, e.data)
        old.append(msgspec.structs.replace(e, prev_hash=prev, hash=digest))
        prev = digest
    report = verify_log(old, {"tally": TALLY})
    assert report.ok, report.problems
    assert report.outcome["ranks"][2] == 3 and report.outcome["details"] == {"resigned": 2, "reason": "resigned"}
