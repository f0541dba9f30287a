"""The per-game follower: pushes delivered as they are, reads only to fill gaps or while degraded."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from service.live.fanout import Broker
from service.live.follower import HEARTBEAT, Batch, Follower, Inbox
from service.store.protocol import StoredEvent

GAME = "g1"


def event(version: int) -> StoredEvent:
    return StoredEvent(position=version, tx=version, stream_id=GAME, version=version, type="tally.Added",
                       data={"seat": 0, "amount": 1}, metadata={}, at=datetime(2026, 1, 1, tzinfo=UTC),
                       prev_hash="", hash=str(version))


class Log:
    """The stream as the database has it, counting every read."""

    def __init__(self, upto: int = 0) -> None:
        self.events = [event(v) for v in range(1, upto + 1)]
        self.reads = 0

    def add(self, count: int = 1) -> list[StoredEvent]:
        new = [event(len(self.events) + i) for i in range(1, count + 1)]
        self.events += new
        return new

    async def read(self, stream_id: str, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        self.reads += 1
        return self.events[after:upto]


class Health:
    def __init__(self) -> None:
        self.ok = True

    def __call__(self) -> bool:
        return self.ok


async def until(predicate, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def drain(inbox: Inbox) -> list:
    items = list(inbox.items)
    inbox.items.clear()
    return items


def versions(items: list) -> list[int]:
    return [e.version for item in items if isinstance(item, Batch) for e in item.events]


async def leave_all(follower: Follower, inboxes: list[Inbox]) -> None:
    for inbox in inboxes:
        follower.leave(inbox)
    await until(lambda: follower._task is None or follower._task.done())


def started(log: Log, health: Health | None = None, heartbeat: float = 30.0, poll: float = 0.05,
            inboxes: int = 1) -> tuple[Follower, list[Inbox]]:
    follower = Follower(GAME, log.read, health or Health(), heartbeat, poll)
    joined = [follower.join() for _ in range(inboxes)]
    assert follower.seen(len(log.events)) is None
    return follower, joined


async def test_an_idle_follower_sends_heartbeats_to_every_inbox_and_reads_nothing():
    log = Log(upto=3)
    follower, inboxes = started(log, heartbeat=0.05, inboxes=50)
    await until(lambda: all(list(i.items).count(HEARTBEAT) >= 3 for i in inboxes))
    assert log.reads == 0 and follower.reads == 0
    await leave_all(follower, inboxes)


async def test_pushes_that_follow_on_reach_every_inbox_in_order_without_a_read():
    log = Log(upto=2)
    follower, inboxes = started(log, inboxes=20)
    for _ in range(10):
        follower.push(log.add(2))
        await asyncio.sleep(0)
    await until(lambda: all(versions(list(i.items))[-1:] == [22] for i in inboxes))
    assert all(versions(drain(i)) == list(range(3, 23)) for i in inboxes)
    assert log.reads == 0
    await leave_all(follower, inboxes)


async def test_every_inbox_of_the_game_shares_one_batch_and_its_frames():
    log = Log(upto=0)
    follower, inboxes = started(log, inboxes=3)
    follower.push(log.add())
    await until(lambda: all(i.items for i in inboxes))
    batches = [drain(i)[0] for i in inboxes]
    assert batches[0] is batches[1] is batches[2]
    rendered: list[int] = []

    def render(events: list[StoredEvent]) -> bytes:
        rendered.append(len(events))
        return b"frame"

    assert [b.frames(("seat", 0), render) for b in batches] == [b"frame"] * 3
    assert [b.frames(("spectator",), render) for b in batches] == [b"frame"] * 3
    assert rendered == [1, 1]
    await leave_all(follower, inboxes)


async def test_a_gap_in_the_pushes_is_filled_by_one_read_and_nothing_is_repeated():
    log = Log(upto=1)
    follower, (inbox,) = started(log)
    log.add()  # version 2 is committed but its push is lost
    follower.push(log.add())  # version 3 arrives
    await until(lambda: versions(list(inbox.items)) == [2, 3])
    follower.push(log.events[1:3])  # a late copy of 2 and 3
    follower.push(log.add())
    await until(lambda: versions(list(inbox.items))[-1:] == [4])
    assert versions(list(inbox.items)) == [2, 3, 4] and log.reads == 1
    await leave_all(follower, [inbox])


async def test_while_degraded_the_follower_polls_once_per_interval_for_all_its_inboxes():
    log = Log(upto=1)
    health = Health()
    health.ok = False
    follower, inboxes = started(log, health, heartbeat=0.2, poll=0.02, inboxes=30)
    await until(lambda: log.reads >= 3)
    log.add(2)  # committed, never pushed: Redis is down
    await until(lambda: all(versions(list(i.items)) == [2, 3] for i in inboxes))
    health.ok = True
    follower.nudge()  # the broker nudges followers when the subscription is back
    await until(lambda: not follower._pushed)
    settled = log.reads
    drain(inboxes[0])
    await until(lambda: list(inboxes[0].items).count(HEARTBEAT) >= 2)  # ten poll intervals
    follower.push(log.add())
    await until(lambda: all(versions(list(i.items))[-1:] == [4] for i in inboxes))
    assert log.reads - settled <= 1  # at most the read already under way when the nudge came
    await leave_all(follower, inboxes)


async def test_a_connection_that_read_less_than_the_follower_delivered_is_told_to_read_the_rest():
    log = Log(upto=1)
    follower, (first,) = started(log)
    follower.push(log.add(3))
    await until(lambda: versions(list(first.items)) == [2, 3, 4])
    late = follower.join()
    assert follower.seen(2) == 4  # it read up to 2; the follower had delivered up to 4
    follower.push(log.add())
    await until(lambda: versions(list(late.items)) == [5])
    await leave_all(follower, [first, late])


async def test_the_follower_stops_after_its_last_connection_leaves():
    log = Log()
    closed: list[Follower] = []
    follower = Follower(GAME, log.read, Health(), 30.0, on_close=closed.append)
    a, b = follower.join(), follower.join()
    follower.seen(0)
    follower.leave(a)
    assert not follower.closed
    follower.leave(b)
    assert follower.closed and closed == [follower]
    await until(lambda: follower._task is not None and follower._task.done())


async def test_without_redis_between_worker_processes_followers_poll_for_appends_made_elsewhere():
    log = Log(upto=1)
    broker = Broker(polled=True)
    follower = Follower(GAME, log.read, lambda: broker.live, 30.0, 0.02)
    inbox = follower.join()
    follower.seen(1)
    log.add(2)  # appended by another worker process: no push reaches this one
    await until(lambda: versions(list(inbox.items)) == [2, 3])
    assert Broker().live and broker.health == "ok"  # polling is the design here, not a fault to report
    await leave_all(follower, [inbox])
