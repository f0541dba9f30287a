"""The projector: exactly-once batches, equality with a rebuild, the rebuild's swap, and lag."""

from __future__ import annotations

import asyncio

from projections.base import ensure_tables
from projections.catalog import select
from projections.rebuild import rebuild
from projections.runner import Projector, batch, lag
from tests.projections.support import append_games, project_all, wait_caught_up
from testkit.readmodels import assert_equal_to_rebuild, table_rows


async def test_projected_models_equal_a_rebuild_from_zero(store):
    events = await append_games(store, range(300), abort_every=17)
    projector = await project_all(store.pool, batch_size=97)
    assert projector.projected == events * len(select(None))
    await assert_equal_to_rebuild(store.pool)
    async with store.pool.acquire() as conn:
        assert await conn.fetchval("SELECT sum(events) FROM rm_stats_days") == events
        finished = await conn.fetchval("SELECT count(*) FROM rm_games WHERE status = 'finished'")
        assert await conn.fetchval("SELECT sum(games) FROM rm_ratings") == await conn.fetchval(
            "SELECT sum(cardinality(seat_players)) FROM rm_games WHERE status = 'finished'")
        assert await conn.fetchval("SELECT count(*) FROM rm_games WHERE status = 'aborted'") > 0
        assert finished > 250


async def test_a_batch_rolled_back_midway_is_projected_once_on_retry(store):
    await append_games(store, range(20))
    games = select(["games"])[0]
    calls = 0

    class Failing:
        name, tables, ddl = games.name, games.tables, games.ddl

        async def apply(self, conn, schema, events):
            nonlocal calls
            calls += 1
            await games.apply(conn, schema, events)
            if calls == 2:
                raise RuntimeError("crash after writing, before the checkpoint")

    async with store.pool.acquire() as conn:
        await ensure_tables(conn, [games])
        failing = Failing()
        assert await batch(conn, failing, 50) == 50
        try:
            await batch(conn, failing, 50)
        except RuntimeError:
            pass
        while await batch(conn, failing, 50):
            pass
    assert (await lag(store.pool, ["games"]))["games"]["events"] == 0
    await assert_equal_to_rebuild(store.pool, [games])


async def test_rebuild_swaps_in_fresh_tables_and_the_projector_continues_from_them(store):
    await append_games(store, range(40))
    projector = Projector(store.pool)
    await projector.start()
    try:
        await wait_caught_up(projector.lag)
        async with store.pool.acquire() as conn:
            before = await table_rows(conn, "public", "rm_ratings")
            await conn.execute("UPDATE rm_ratings SET games = games + 100")  # damage the live table
            for projection in select(None):
                await rebuild(conn, projection, batch_size=64)
            assert await table_rows(conn, "public", "rm_ratings") == before
            assert not await conn.fetchval(
                "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'stela_rebuild_%'")
        await append_games(store, range(40, 60))
        await wait_caught_up(projector.lag)
    finally:
        await projector.stop()
    await assert_equal_to_rebuild(store.pool)


async def test_lag_counts_events_behind_and_the_age_of_the_oldest(store):
    await append_games(store, range(3))
    lags = await lag(store.pool, ["games", "stats"])
    async with store.pool.acquire() as conn:
        total = await conn.fetchval("SELECT count(*) FROM events")
    assert {v["events"] for v in lags.values()} == {total}
    assert all(v["seconds"] >= 0 for v in lags.values())


async def test_lag_far_behind_is_estimated_from_positions_without_counting_the_tail(store):
    from projections.runner import LAG_CAP

    events = 0
    while events <= LAG_CAP:
        events += await append_games(store, range(events, events + 40))
    (behind,) = (await lag(store.pool, ["games"])).values()
    assert behind["events"] == events  # no append was rolled back here, so positions have no gaps
    assert behind["seconds"] >= 0


async def test_the_rebuild_command_replays_every_model_and_keeps_them_equal(store, pg_dsn, monkeypatch):
    import asyncio

    from service.cli.main import main

    await append_games(store, range(30))
    await project_all(store.pool)
    async with store.pool.acquire() as conn:
        before = {t: await table_rows(conn, "public", t) for p in select(None) for t in p.tables}
    monkeypatch.setenv("DATABASE_URL", pg_dsn)
    monkeypatch.setenv("STELA_LOG_LEVEL", "warning")
    assert await asyncio.to_thread(main, ["projections", "rebuild"]) == 0
    async with store.pool.acquire() as conn:
        assert {t: await table_rows(conn, "public", t) for t in before} == before
    assert {v["events"] for v in (await lag(store.pool, [p.name for p in select(None)])).values()} == {0}


async def test_with_notify_off_the_fan_out_wakes_the_embedded_projector(settings, games, monkeypatch):
    import functools

    import msgspec
    from litestar.testing import AsyncTestClient

    from service.edge.app import create_app
    from testkit.api import started_game

    import service.store.readside

    # from the start, only a wake-up makes the projector look before a minute has passed
    monkeypatch.setattr(service.store.readside, "Projector", functools.partial(service.store.readside.Projector, poll=60.0))
    app = create_app(msgspec.structs.replace(settings, pg_notify=False), games=games)
    async with AsyncTestClient(app) as client:
        game_id, _ = await started_game(client, "tally", 2)
        deadline = asyncio.get_running_loop().time() + 40  # generous for a busy machine, still below the poll
        while True:
            listed = (await client.get("/v1/games", params={"kind": "tally"})).json()["items"]
            if any(g["id"] == game_id and g["status"] == "active" for g in listed):
                break
            assert asyncio.get_running_loop().time() < deadline, "the projector was not woken"
            await asyncio.sleep(0.05)


async def test_leaving_resigning_and_clocks_flow_through_every_read_model(client, pg_dsn):
    """Platform events added with clocks and resignation are projected, never a projector crash."""
    from testkit.api import player

    ann, bob, cy = [await player(client, n) for n in ("Ann", "Bob", "Cy")]
    resp = await client.post("/v1/games", headers=ann["headers"],
                             json={"kind": "tally", "seats": 2, "time_control": {"per_move_seconds": 60}})
    game_id = resp.json()["id"]
    await client.post(f"/v1/games/{game_id}/join", json={}, headers=cy["headers"])
    assert (await client.post(f"/v1/games/{game_id}/leave", headers=cy["headers"])).status_code == 200
    await client.post(f"/v1/games/{game_id}/join", json={}, headers=bob["headers"])
    await client.post(f"/v1/games/{game_id}/start", headers=ann["headers"])
    await client.post(f"/v1/games/{game_id}/commands", headers=bob["headers"],
                      json={"command": {"type": "table.Resign"}})
    deadline = asyncio.get_running_loop().time() + 60
    while True:  # each model catches up in its own batch: wait for both the list and the history
        listed = (await client.get("/v1/games", params={"player": ann["id"]})).json()["items"]
        history = (await client.get(f"/v1/players/{ann['id']}/games")).json()["items"]
        mine = [g for g in listed if g["id"] == game_id]
        if mine and mine[0]["status"] == "finished" and any(g["game_id"] == game_id and g["won"] for g in history):
            break
        assert asyncio.get_running_loop().time() < deadline, f"the read models did not catch up: {listed} {history}"
        await asyncio.sleep(0.1)


async def test_a_projector_catching_up_doubles_its_batches_and_keeps_small_ones_once_caught_up(store, monkeypatch):
    import projections.runner as runner

    sizes: list[tuple[int, int]] = []  # (size asked, events done) of the games model's batches
    batches = runner.batches

    async def recorded(conn, projections, asked, read=None):
        done = await batches(conn, projections, asked, read)
        sizes.append((asked["games"], done["games"]))
        return done

    monkeypatch.setattr(runner, "batches", recorded)
    events = await append_games(store, range(60))
    projector = runner.Projector(store.pool, select(["games"]), batch_size=10, max_batch=80, poll=0.05)
    await projector.start()
    try:
        await wait_caught_up(projector.lag)
        caught_up = len(sizes)
        events += await append_games(store, range(1000, 1003))  # a trickle: small batches again
        await wait_caught_up(projector.lag)
    finally:
        await projector.stop()
    assert projector.projected == events > 300
    assert [size for size, _ in sizes[:4]] == [10, 20, 40, 80]
    for (size, done), (next_size, _) in zip(sizes, sizes[1:]):
        assert next_size == (10 if done < size else min(size * 2, 80))
    assert sizes[caught_up - 1][1] < sizes[caught_up - 1][0] and sizes[caught_up][0] == 10


async def test_a_catch_up_vacuums_the_tables_its_deletes_and_updates_fill_with_dead_rows(store):
    """The open-games tables lose a row per ended game; during a long catch-up they are vacuumed in step
    (autovacuum would come once a minute, while every batch reads them)."""
    from projections.base import Analyzer

    await append_games(store, range(120))
    history = select(["history"])[0]
    async with store.pool.acquire() as conn:
        await ensure_tables(conn, [history])
        await conn.execute("ALTER TABLE rm_history_open SET (autovacuum_enabled = false)")
        before = await conn.fetchval("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'rm_history_open'")
        analyzer = Analyzer(vacuum_every=200)
        deadline = asyncio.get_running_loop().time() + 60
        while done := await batch(conn, history, 50):
            await analyzer.after(conn, history, "public", done)
            assert asyncio.get_running_loop().time() < deadline
        vacuums = await conn.fetchval("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'rm_history_open'")
        assert vacuums > before


async def test_one_look_moves_every_model_in_one_transaction(store):
    """The models' batches of one look commit together: their checkpoints carry one transaction's `now()`."""
    await append_games(store, range(10))
    await project_all(store.pool)
    async with store.pool.acquire() as conn:
        stamps = await conn.fetch("SELECT name, updated_at FROM projection_checkpoints")
    assert {r["name"] for r in stamps} == {p.name for p in select(None)}
    assert len({r["updated_at"] for r in stamps}) == 1, stamps


async def test_a_failing_model_rolls_back_its_look_and_the_others_still_move(store, monkeypatch):
    import projections.runner as runner

    await append_games(store, range(20))
    games, stats = select(["games", "stats"])
    broken = True

    class Failing:
        name, tables, ddl = stats.name, stats.tables, stats.ddl

        async def apply(self, conn, schema, events):
            await stats.apply(conn, schema, events)
            if broken:
                raise RuntimeError("a model that cannot apply this batch")

    failing = Failing()
    async with store.pool.acquire() as conn:
        await ensure_tables(conn, [games, stats])
        try:
            await runner.batches(conn, [games, failing], {"games": 50, "stats": 50})
            raise AssertionError("the failing model's error was not raised")
        except RuntimeError:
            pass
        # all or nothing: the model applied before the failing one committed nothing either
        assert await conn.fetchval("SELECT count(*) FROM rm_games") == 0
        assert await conn.fetchval("SELECT count(*) FROM projection_checkpoints") == 0

    failures: list[str] = []
    monkeypatch.setattr(runner.log, "exception", lambda event, **_: failures.append(event))
    projector = runner.Projector(store.pool, [games, failing], poll=0.05)
    await projector.start()
    try:
        deadline = asyncio.get_running_loop().time() + 60
        while (await lag(store.pool, ["games"]))["games"]["events"] or not failures:
            assert asyncio.get_running_loop().time() < deadline, "the healthy model did not move on"
            await asyncio.sleep(0.05)
        assert (await lag(store.pool, ["stats"]))["stats"]["events"] > 0
        assert set(failures) == {"projector_failed"}
        broken = False
        await wait_caught_up(lambda: lag(store.pool, ["games", "stats"]), timeout=60)
    finally:
        await projector.stop()
    await assert_equal_to_rebuild(store.pool, [games, stats])


async def test_a_platform_event_that_cannot_be_decoded_is_named_and_the_projector_backs_off(store, monkeypatch):
    import projections.runner as runner
    from projections.log import UndecodableEvent, read_after
    from service.store.protocol import Metadata, NewEvent

    await append_games(store, range(3))
    bad = await store.append("game-bad", 0, [NewEvent("table.SeatTaken", {"seat": "first", "player_id": 7})],
                             Metadata(actor="test"), kind="tally")
    position = bad.events[0].position
    async with store.pool.acquire() as conn:
        try:
            await read_after(conn, (0, 0), 10_000)
            raise AssertionError("an undecodable platform event was read")
        except UndecodableEvent as exc:
            assert (exc.position, exc.stream_id, exc.type) == (position, "game-bad", "table.SeatTaken")
            assert f"event {position} (table.SeatTaken of game-bad)" in str(exc)

    logged: list[dict] = []
    loop = asyncio.get_running_loop()
    monkeypatch.setattr(runner.log, "exception",
                        lambda event, **kw: logged.append({"event": event, "at": loop.time(), **kw}))
    projector = runner.Projector(store.pool, select(["games"]), poll=0.05,
                                 backoff=runner.Backoff(first=0.02, most=0.08))
    await projector.start()
    try:
        deadline = asyncio.get_running_loop().time() + 60
        while len(logged) < 4:
            assert asyncio.get_running_loop().time() < deadline, logged
            await asyncio.sleep(0.02)
    finally:
        await projector.stop()
    assert [e["retry_in"] for e in logged[:4]] == [0.02, 0.04, 0.08, 0.08]
    assert {e["event"] for e in logged} == {"projector_failed"}
    for before, after in zip(logged, logged[1:4]):  # each retry came at least its delay after the failure
        assert after["at"] - before["at"] >= before["retry_in"] * 0.99, logged
