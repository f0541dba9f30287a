"""A game whose next version another transaction holds uncommitted answers its commands 503
`stream_locked` with `Retry-After: 1` (nothing written, no 500), while other games on the same replica
play on; once the holder lets go, the same command (and Idempotency-Key) goes in."""

from __future__ import annotations

import asyncio

import asyncpg

from testkit.api import started_game


async def step(client, game_id: str, players: list[dict], key: str):
    """POST the first legal command of the first seat to act, with `key` as its Idempotency-Key."""
    game = (await client.get(f"/v1/games/{game_id}")).json()
    headers = players[game["to_act"][0]]["headers"]
    legal = (await client.get(f"/v1/games/{game_id}/legal", headers=headers)).json()
    return await client.post(f"/v1/games/{game_id}/commands", headers={**headers, "Idempotency-Key": key},
                             json={"command": legal["commands"][0], "expected_version": legal["version"]})


async def test_a_held_game_answers_503_stream_locked_and_other_games_play_on(pg_client, pg_dsn):
    client = pg_client  # a PostgreSQL row lock holds the game
    held, held_players = await started_game(client, "tally", 2)
    others = [await started_game(client, "tally", 2) for _ in range(3)]
    version = (await client.get(f"/v1/games/{held}")).json()["version"]
    holder = await asyncpg.connect(pg_dsn)
    try:
        await holder.execute("BEGIN")
        await holder.execute("INSERT INTO events (stream_id, version, type, data, metadata, prev_hash, hash) "
                             "VALUES ($1, $2, 'test.Held', '{}', '{}', '', '')", held, version + 1)
        refused = await asyncio.wait_for(step(client, held, held_players, "k1"), 60)
        assert refused.status_code == 503, refused.text
        assert refused.json()["code"] == "stream_locked" and refused.headers["retry-after"] == "1"
        # (a generous deadline on a busy machine; the holder lets go only after it)
        moved = await asyncio.wait_for(asyncio.gather(*(step(client, g, p, "k1") for g, p in others)), 60)
        assert [r.status_code for r in moved] == [200] * 3, [r.text for r in moved]
        await holder.execute("ROLLBACK")
    finally:
        await holder.close()
    assert (await client.get(f"/v1/games/{held}")).json()["version"] == version  # nothing was written
    again = await step(client, held, held_players, "k1")
    assert again.status_code == 200, again.text
    assert again.json()["version"] == version + 1
