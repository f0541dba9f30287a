"""The fault suite's checks (bench.chaos_checks, bench.chaos_watch) pass on an honest run and catch each
planted fault.

A few keyed commands of a real Cóatl game, and a game on a one-second clock whose seats always wait out
their deadline, go through the real app (on a database of their own: the checks read every key in it),
each followed on its SSE stream; then the database, the ledger, a stream's record or a log is tampered
with the way a lost write, a double commit, a fork, a broken chain, a changed event, a lost SSE event,
a game loop ending early, a server error or a timeout fired twice would leave it, and the check that
must see it does.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
from dataclasses import dataclass

import asyncpg
import pytest

from bench import chaos_checks as checks
from bench import chaos_watch as watch
from bench.chaos import Watch
from bench.chaos_bots import Client, Ledger, Pace, play
from service.edge.app import create_app
from service.ops.settings import Settings
from tests.conftest import fresh_database
from testkit.api import until
from testkit.live import serving



@dataclass
class Played:
    dsn: str
    ledger: Ledger
    endings: list[str]
    followed: dict[str, list[int]]  # game id -> versions its SSE follower received
    shown: dict[str, list[int]]  # game id -> versions the events endpoint shows the follower's player


@pytest.fixture(scope="module")
def played():
    """A database with an unfinished Cóatl game of a few keyed commands and a Tobago game on a one-second
    clock played by timeouts, the ledger of what was sent, and what their SSE followers received."""
    with fresh_database("stela_chaos") as dsn:
        settings = Settings(database_url=dsn, rate_limit=0, log_level="warning", projector="off")
        with serving(create_app(settings)) as url:
            ledger = Ledger()
            outcome: dict = {}

            async def run() -> None:
                client = Client(lambda: [url], ledger, random.Random(1), deadline_s=60)
                streams = Watch(client, lambda: [url], 3)
                stop = asyncio.Event()
                game = asyncio.create_task(play(client, "coatl", 2, stop, random.Random(2), pace=Pace(watch=streams)))
                timed = asyncio.create_task(play(client, "tobago", 2, asyncio.Event(), random.Random(4),
                                                 pace=Pace(per_move_seconds=1, dawdle=1.0, watch=streams)))
                await until(lambda: ledger.acknowledged() >= 12 or game.done(), 120)
                stop.set()
                outcome["endings"] = [await game, await asyncio.wait_for(timed, 300)]
                outcome["shown"] = await watch.settle(streams.followers, client, streams.tokens, 120)
                outcome["followed"] = {f.game_id: list(f.ids) for f in streams.followers}
                await streams.close()
                await client.close()

            asyncio.run(run())
        yield Played(dsn, ledger, outcome["endings"], outcome["followed"], outcome["shown"])


async def findings(dsn: str, ledger: Ledger, tamper: str = "") -> tuple[dict, list[str], list[str]]:
    found, gaps, broken, _, _ = await all_findings(dsn, ledger, tamper)
    return found, gaps, broken


async def all_findings(dsn: str, ledger: Ledger, tamper: str = "") -> tuple[dict, list[str], list[str], list[str], dict]:
    """keys, gaps, broken links, events whose hash is not their content's, and the clocks' findings."""
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            if tamper:
                await conn.execute(tamper)
            found = await checks.keys(conn, ledger)
            gaps, broken = await checks.gaps_and_chain(conn)
            rehashed, clocks = await checks.hashes(conn), await checks.clocks(conn)
            raise _Rollback((found, gaps, broken, rehashed, clocks))  # leave the database as it was for the next test
    except _Rollback as done:
        return done.args[0]
    finally:
        await conn.close()


class _Rollback(Exception):
    pass


def last_command(ledger: Ledger):
    return [s for s in ledger.sent if s.what == "command" and s.outcome == "acknowledged"
            and s.body["command"]["type"].startswith("coatl.")][-1]


async def test_an_honest_run_passes_every_check(played):
    dsn, ledger = played.dsn, played.ledger
    found, gaps, broken, rehashed, clocks = await all_findings(dsn, ledger)
    assert ledger.acknowledged() >= 12 and not ledger.server_errors
    assert not any(found.values()) and not gaps and not broken and not rehashed, found
    assert clocks["fired"] >= 3 and not clocks["twice"] and not clocks["early"] and not clocks["overdue"], clocks
    assert played.endings == ["stopped", "finished"] and not watch.early_endings(played.endings)
    assert len(played.shown) == 2 and all(played.shown.values())
    assert watch.sse_findings(played.followed, played.shown) == {"missing": [], "duplicated": []}


async def test_an_acknowledged_key_that_was_not_stored_is_lost_and_its_events_unexplained(played):
    dsn, ledger = played.dsn, played.ledger
    sent = last_command(ledger)
    found, _, _ = await findings(dsn, ledger, f"DELETE FROM idempotency WHERE key = '{sent.key}'")
    assert len(found["lost"]) == 1 and len(found["duplicated"]) == 1


async def test_a_refused_request_that_committed_is_an_unacknowledged_commit(played):
    dsn, ledger = played.dsn, played.ledger
    doctored = copy.deepcopy(ledger)
    last_command(doctored).outcome, last_command(doctored).status = "refused", 409
    found, _, _ = await findings(dsn, doctored)
    assert len(found["unacknowledged_commits"]) == 1 and not found["lost"]


async def test_two_keys_over_the_same_version_are_a_fork(played):
    dsn, ledger = played.dsn, played.ledger
    sent = last_command(ledger)
    found, _, _ = await findings(dsn, ledger, "UPDATE idempotency SET first_version = first_version - 1, "
                                              f"last_version = last_version - 1 WHERE key = '{sent.key}'")
    assert found["forked"]


async def test_a_stored_command_other_than_the_one_sent_is_a_fork(played):
    dsn, ledger = played.dsn, played.ledger
    doctored = copy.deepcopy(ledger)
    last_command(doctored).body = {"command": {"type": "coatl.Something"}, "expected_version": 1}
    found, _, _ = await findings(dsn, doctored)
    assert len(found["forked"]) == 1


async def test_a_gap_and_a_broken_link_are_seen(played):
    dsn, ledger = played.dsn, played.ledger
    _, gaps, broken = await findings(dsn, ledger, "UPDATE events SET prev_hash = 'x' WHERE version = 3")
    assert broken and not gaps
    _, gaps, _ = await findings(dsn, ledger, "DELETE FROM events WHERE version = 3")
    assert gaps


async def test_a_changed_event_in_an_unfinished_game_is_seen_by_its_hash(played):
    coatl = last_command(played.ledger).game_id  # stopped mid-play: `stela verify --all` never reads it
    _, gaps, broken, rehashed, _ = await all_findings(
        played.dsn, played.ledger, "UPDATE events SET data = data || '{\"planted\": 1}' "
                                   f"WHERE stream_id = '{coatl}' AND version = 6")
    assert not gaps and not broken  # the links still hold: only the recomputed hash sees the change
    assert rehashed == [f"{coatl} v6: hash does not match its content"]


def test_an_sse_event_that_never_arrived_is_missing(played):
    game_id, versions = next(iter(played.followed.items()))
    dropped = {**played.followed, game_id: [v for v in versions if v != versions[3]]}
    found = watch.sse_findings(dropped, played.shown)
    assert len(found["missing"]) == 1 and str(versions[3]) in found["missing"][0] and not found["duplicated"]
    again = {**played.followed, game_id: versions + [versions[-1]]}
    assert len(watch.sse_findings(again, played.shown)["duplicated"]) == 1


def test_a_game_loop_that_ends_with_its_game_open_ended_early():
    assert watch.early_endings(["finished", "stopped", "open", "finished"]) == ["open"]
    assert watch.early_endings(["finished", RuntimeError("boom")]) == ["RuntimeError('boom')"]


def test_a_traceback_in_a_server_log_is_seen_unless_it_is_an_outage_the_suite_caused():
    line = {"event": "request_failed", "level": "error",
            "exception": "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\nKeyError: 'seat'"}
    outage = {**line, "exception": "Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                                    "ConnectionRefusedError: [Errno 111] Connect call failed"}
    locked = {**line, "event": "background_failed",
              "exception": "Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                           "asyncpg.exceptions.LockNotAvailableError: canceling statement due to lock timeout\n\n"
                           "The above exception was the direct cause of the following exception:\n\n"
                           "Traceback (most recent call last):\n  File \"y.py\", line 2\n"
                           "service.store.protocol.StreamLocked: stream a-1 is being written by another transaction"}
    quiet = json.dumps({"event": "started", "level": "info"})
    raw = "Traceback (most recent call last):\n  File \"y.py\", line 2, in g\nZeroDivisionError: division by zero"
    found = watch.tracebacks({"replica-0": f"{quiet}\n{json.dumps(line)}\n{json.dumps(outage)}",
                              "projector": f"{quiet}\n{raw}\n{quiet}", "replica-1": f"{quiet}\n{json.dumps(outage)}\n{json.dumps(locked)}"})
    assert list(found) == ["replica-0", "projector"]
    assert "KeyError" in found["replica-0"][0] and "ZeroDivisionError" in found["projector"][0]


def test_a_deadline_timed_out_twice_or_before_it_passed_is_seen():
    clock = ("g_1", checks.CLOCK_SET, {"deadlines_ms": [1000, None]})
    first = ("g_1", checks.TIMED_OUT, {"seat": 0, "at_ms": 1100})
    assert checks.clock_findings([clock, first], 2000, 60_000)["twice"] == []
    twice = checks.clock_findings([clock, first, ("g_1", checks.TIMED_OUT, {"seat": 0, "at_ms": 1200})], 2000, 60_000)
    assert twice["fired"] == 2 and twice["twice"] == ["g_1: seat 0's deadline 1000 fired twice"]
    early = checks.clock_findings([clock, ("g_1", checks.TIMED_OUT, {"seat": 0, "at_ms": 900})], 2000, 60_000)
    assert len(early["early"]) == 1
    overdue = checks.clock_findings([clock], 1000 + 61_000, 60_000)
    assert len(overdue["overdue"]) == 1


def test_a_competition_result_recorded_twice_missing_or_before_the_end_is_seen():
    paired = ("t_1", "tournament.RoundPaired", {"tables": [{"game_id": "g_1"}, {"game_id": "g_2"}]})
    result = ("t_1", "tournament.ResultRecorded", {"game_id": "g_1"})
    over = ("t_1", "tournament.TournamentEnded", {})
    honest = checks.result_findings([paired, result, ("t_1", "tournament.ResultRecorded", {"game_id": "g_2"}), over],
                                    {"g_1", "g_2"})
    assert honest["recorded"] == 2 and not any(honest[k] for k in ("twice", "no_result", "premature", "unfinished"))
    twice = checks.result_findings([paired, result, result, over], {"g_1"})
    assert twice["twice"] == ["t_1: g_1 recorded 2 times"] and not twice["no_result"]
    arena = [("a_1", "arena.PlayersPaired", {"games": [{"game_id": "g_3"}]}), ("a_1", "arena.GameScored", {"game_id": "g_3"})]
    found = checks.result_findings(arena, {"g_4"})
    assert found["premature"] == ["a_1: g_3 recorded, not ended"] and found["unfinished"]
    assert checks.result_findings([paired, over], {"g_2"})["no_result"] == ["t_1: g_2 ended, no result"]
