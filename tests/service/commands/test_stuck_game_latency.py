"""A stuck game stalls only itself, through the command path (issue 43, item 2): while another connection
holds an uncommitted insert of one game's next version for 20 s, the commands of unrelated games on the
same replica go in at the pace they did just before, and the held game's own commands are refused 503
`stream_locked` (README, STELA_PG_LOCK_TIMEOUT_MS; `service.store.appending`).

The replica runs the store as shipped (lock timeout, append slots and group commit, statement timeout:
asserted), with the suite's rate limit (off) and pool (8). Each table's client posts every 0.1 s, 80 commands
a second: at every 50 ms (160 a second) a clean clone's CI run beside the fault suite queued up to 3 s in this
open loop with nothing stuck but the machine. The held game's first try, before its stream is known held,
rides in one group, whose 50 ms lock wait and re-sending cost the burst it came with (8 commands) 90-140 ms;
at 1,600 commands a phase they are the slowest 0.5%, below the p99, and the test prints the phase's worst. The
held game's client does not wait out the `Retry-After: 1` it is sent: it tries again at once, amid the
others' commands, the worst a client can do to the group commit."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from typing import Any, NamedTuple

import asyncpg
import httpx
import pytest

from bench.common import percentile
from service.ops.settings import Settings
from testkit.api import started_game
from tests.service.store.test_held_streams import groups_sent

HOLD_S = 20.0  # the hold
QUIET_S = 10.0  # the same workload just before and just after, nothing held: what the machine's load costs
WARM_S = 2.0
GAMES = 8  # unrelated games, a client each, all posting at the same instants (bursts fill the append slots)
EVERY_S = 0.1  # between a client's commands (8 games: 80 commands a second, in bursts of 8)
ADD = {"type": "tally.Add", "amount": 1}


class Table:
    """One Tally game and its two players, the seat to act and the version its next command expects."""

    def __init__(self, game_id: str, players: list[dict[str, Any]], version: int) -> None:
        self.game_id, self.players, self.version, self.seat = game_id, players, version, 0

    async def post(self, client: Any) -> Any:
        """Add 1 as the seat to act; on 200, the next command expects the version after it."""
        resp = await client.post(f"/v1/games/{self.game_id}/commands", headers=self.players[self.seat]["headers"],
                                 json={"command": ADD, "expected_version": self.version})
        if resp.status_code == 200:
            body = resp.json()
            self.version, self.seat = body["version"], body["to_act"][0]
        return resp


async def table(client: Any) -> Table:
    game_id, players = await started_game(client, "tally", 2, {"target": 1000})
    return Table(game_id, players, (await client.get(f"/v1/games/{game_id}")).json()["version"])


async def playing(client: Any, tables: list[Table], seconds: float) -> tuple[list[float], list[str]]:
    """Every table's client posts a command every `EVERY_S` for `seconds`, open loop and all at the same
    instants: a command is timed from when it was due, so a stall counts in every command it delays, not
    only in the one in flight when it began. The seconds each took, and what each non-200 answered."""
    loop = asyncio.get_running_loop()
    start, took, failed = loop.time(), [], []

    async def player(t: Table) -> None:
        n = 0
        while (due := start + n * EVERY_S) < start + seconds:
            await asyncio.sleep(due - loop.time())
            resp = await t.post(client)
            took.append(loop.time() - due)
            if resp.status_code != 200:
                failed.append(f"{resp.status_code} {resp.text[:200]}")
            n += 1

    await asyncio.gather(*(player(t) for t in tables))
    return took, failed


async def knocking(client: Any, held: Table, seconds: float) -> list[tuple[int, str, float]]:
    """The held game's client trying its next command for `seconds`, at the next of the other clients'
    instants (every `EVERY_S`) after each answer, so that its tries arrive amid theirs: each answer's
    status, code and seconds."""
    loop = asyncio.get_running_loop()
    start, answers = loop.time(), []
    while (due := start + math.ceil((loop.time() - start) / EVERY_S) * EVERY_S) < start + seconds:
        await asyncio.sleep(due - loop.time())
        resp = await held.post(client)
        answers.append((resp.status_code, resp.json().get("code", ""), loop.time() - due))
    return answers


@contextlib.asynccontextmanager
async def replica(settings: Settings, games: dict) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    """A client of one app on `settings` (its lifespan run: store, group commit, projector and workers), sent
    requests over ASGI in this event loop, side by side. (litestar's AsyncTestClient, `pg_client`, runs each
    request to its end in a thread of its own while this loop waits: its requests never overlap, so one held
    request held them all.) Beside it, the app's store."""
    from service.edge.app import create_app

    app = create_app(settings, games=games)
    async with app.lifespan(), httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://replica",
                                                 timeout=60) as client:
        yield client, app.state.services.store


class Phase(NamedTuple):
    took: list[float]  # the unrelated commands' seconds
    failed: list[str]  # their answers other than 200
    answers: list[tuple[int, str, float]]  # the held game's client's

    def summary(self) -> dict[str, float]:
        return {"n": len(self.took), **{f"p{int(q * 100)}_ms": round(percentile(self.took, q) * 1000, 1)
                                         for q in (0.5, 0.99)}, "max_ms": round(max(self.took) * 1000, 1)}


async def phase(client: Any, tables: list[Table], held: Table, seconds: float) -> Phase:
    """The unrelated games played and the held one tried, side by side for `seconds`."""
    (took, failed), answers = await asyncio.gather(playing(client, tables, seconds), knocking(client, held, seconds))
    return Phase(took, failed, answers)


@pytest.mark.slow  # 40 s of play
async def test_a_game_held_for_20_s_stalls_only_itself_unrelated_commands_keep_their_pace(settings, games, pg_dsn):
    """The bound: the unrelated commands' p50 while the game is held stays under 50 ms plus twice the p50 of
    the same workload with nothing held, measured for 10 s just before the hold and 10 s just after it (the
    larger of the two). Their p99 is printed, not bounded: on a shared machine the tail follows the machine's
    other work, not the hold, and a bound that grants it flaked (2 cores at a load of 2.2 from other work, two
    runs: p99 before 146 and 266 ms, held 48.7 and 40.5 ms, after 37 and 102 ms; clean clones' CI runs beside
    the browser tier: before 380, held 1,036, after 222 ms, and before 374, held 1,403, after 243 ms, with
    p50s of 20-27 ms in every phase). The speed is the benchmarks' to measure. Without a lock timeout (planted:
    STELA_PG_LOCK_TIMEOUT_MS 0, as before issue 43) the held game's append waited for the holder in a group,
    and every command behind it with it: held p50 14.5 s, p99 19.9 s, and the group's commands answered 503
    once the statement timed out, which the p50 bound, the failures and the group count each catch. Checked
    besides: no unrelated command fails; the held game's every try is refused 503 `stream_locked` and rides
    in no group once its stream is known held; before and after the hold its commands go in."""
    shipped = Settings()
    assert (settings.pg_lock_timeout_ms, settings.pg_append_slots, settings.db_command_timeout) == \
        (shipped.pg_lock_timeout_ms, shipped.pg_append_slots, shipped.db_command_timeout)
    async with replica(settings, games) as (client, store):
        tables = [await table(client) for _ in range(GAMES)]
        held = await table(client)
        await playing(client, [*tables, held], WARM_S)  # (every game's state cached, the pool's connections open)
        before = await phase(client, tables, held, QUIET_S)
        holder = await asyncpg.connect(pg_dsn)
        try:
            await holder.execute("BEGIN")
            await holder.execute("INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash) "
                                 "VALUES ($1, $2, 'test.Held', '{}', '{}', '', '')", held.game_id, held.version + 1)
            sent = groups_sent(store)
            during = await phase(client, tables, held, HOLD_S)
            carried = sum(held.game_id in group for group in sent)  # group statements that carried the held game
            await holder.execute("ROLLBACK")
        finally:
            await holder.close()
        after = await phase(client, tables, held, QUIET_S)
        versions = [(await client.get(f"/v1/games/{t.game_id}")).json()["version"] for t in [*tables, held]]
    print(f"\nunrelated commands, nothing held, before: {before.summary()}\nwhile held: {during.summary()}\n"
          f"after: {after.summary()}\nthe held game's tries: {len(during.answers)}, "
          f"{Phase([s for *_, s in during.answers], [], []).summary()}, in {carried} group statements")
    failed = before.failed + during.failed + after.failed
    assert not failed, (len(failed), failed[:3])
    assert {a[:2] for a in during.answers} == {(503, "stream_locked")}, during.answers[:5]
    assert {a[0] for a in before.answers + after.answers} == {200}, (before.answers + after.answers)[:5]
    assert carried <= 1, carried  # its first try at most, before its stream was known held
    quiet = [before.summary(), after.summary()]
    assert during.summary()["p50_ms"] < 50 + 2 * max(q["p50_ms"] for q in quiet), (during.summary(), *quiet)
    assert versions == [t.version for t in [*tables, held]]  # every command answered 200 went in, and only those
