"""The fault suite's checks (bench.chaos_checks) pass on an honest run and catch each planted fault.

A few keyed commands of a real Cóatl game go through the real app (on a database of their own: the
checks read every key in it); then the database or the ledger is tampered with the way a lost write,
a double commit, a fork or a broken chain would leave it, and the check that must see it does.
"""

from __future__ import annotations

import asyncio
import copy
import random

import asyncpg
import pytest

from bench import chaos_checks as checks
from bench.chaos_bots import Client, Ledger, play
from service.edge.app import create_app
from service.ops.settings import Settings
from tests.conftest import fresh_database
from testkit.api import until
from testkit.live import serving

pytestmark = pytest.mark.xdist_group("live")


@pytest.fixture(scope="module")
def played():
    """A database with a Cóatl game of a few keyed commands, and the ledger of what was sent."""
    with fresh_database("stela_chaos") as dsn:
        settings = Settings(database_url=dsn, rate_limit=0, log_level="warning", projector="off")
        with serving(create_app(settings)) as url:
            ledger = Ledger()

            async def run() -> None:
                client = Client(lambda: [url], ledger, random.Random(1), deadline_s=60)
                stop = asyncio.Event()
                game = asyncio.create_task(play(client, "coatl", 2, stop, random.Random(2)))
                await until(lambda: ledger.acknowledged() >= 12 or game.done(), 120)
                stop.set()
                await game
                await client.close()

            asyncio.run(run())
        yield dsn, ledger


async def findings(dsn: str, ledger: Ledger, tamper: str = "") -> tuple[dict, list[str], list[str]]:
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            if tamper:
                await conn.execute(tamper)
            found = await checks.keys(conn, ledger)
            gaps, broken = await checks.gaps_and_chain(conn)
            raise _Rollback((found, gaps, broken))  # leave the database as it was for the next test
    except _Rollback as done:
        return done.args[0]
    finally:
        await conn.close()


class _Rollback(Exception):
    pass


def last_command(ledger: Ledger):
    return [s for s in ledger.sent if s.what == "command" and s.outcome == "acknowledged"][-1]


async def test_an_honest_run_passes_every_check(played):
    dsn, ledger = played
    found, gaps, broken = await findings(dsn, ledger)
    assert ledger.acknowledged() >= 12 and not ledger.server_errors
    assert not any(found.values()) and not gaps and not broken, found


async def test_an_acknowledged_key_that_was_not_stored_is_lost_and_its_events_unexplained(played):
    dsn, ledger = played
    sent = last_command(ledger)
    found, _, _ = await findings(dsn, ledger, f"DELETE FROM idempotency WHERE key = '{sent.key}'")
    assert len(found["lost"]) == 1 and len(found["duplicated"]) == 1


async def test_a_refused_request_that_committed_is_an_unacknowledged_commit(played):
    dsn, ledger = played
    doctored = copy.deepcopy(ledger)
    last_command(doctored).outcome, last_command(doctored).status = "refused", 409
    found, _, _ = await findings(dsn, doctored)
    assert len(found["unacknowledged_commits"]) == 1 and not found["lost"]


async def test_two_keys_over_the_same_version_are_a_fork(played):
    dsn, ledger = played
    sent = last_command(ledger)
    found, _, _ = await findings(dsn, ledger, "UPDATE idempotency SET first_version = first_version - 1, "
                                              f"last_version = last_version - 1 WHERE key = '{sent.key}'")
    assert found["forked"]


async def test_a_stored_command_other_than_the_one_sent_is_a_fork(played):
    dsn, ledger = played
    doctored = copy.deepcopy(ledger)
    last_command(doctored).body = {"command": {"type": "coatl.Something"}, "expected_version": 1}
    found, _, _ = await findings(dsn, doctored)
    assert len(found["forked"]) == 1


async def test_a_gap_and_a_broken_link_are_seen(played):
    dsn, ledger = played
    _, gaps, broken = await findings(dsn, ledger, "UPDATE events SET prev_hash = 'x' WHERE version = 3")
    assert broken and not gaps
    _, gaps, _ = await findings(dsn, ledger, "DELETE FROM events WHERE version = 3")
    assert gaps
