"""The timeout worker on the memory store: a timed-out seat has its turn played or is abandoned, a seat
leaving a game of three or more leaves it to the others, and the log still verifies. (Replicas racing for
each deadline on PostgreSQL: test_timeouts_postgres.py; a row being fired skipped by a second caller on
either store: tests/service/store/test_read_side_contract.py.)"""

from __future__ import annotations

import pytest

from service.live.fanout import Broker
from service.commands.pipeline import CommandPipeline
from service.commands.players import Players, Viewer
from service.commands.repository import GameRepository
from service.store.memory import MemoryStore
from service.store.protocol import GENESIS_HASH, event_hash
from service.commands.verify import verify_log
from testkit.tally import TALLY
from tests.service.workers.support import clocked_game, process


@pytest.fixture
async def alone():
    """The collaborators of one process on a memory store of its own."""
    return await process(MemoryStore())


async def test_a_timed_out_seat_has_its_turn_played_and_the_game_goes_on_verifiably(alone):
    a = alone
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


async def test_a_seat_that_keeps_timing_out_is_abandoned_and_the_game_ends(alone):
    a = alone
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
