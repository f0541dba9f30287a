"""A duplicate deal's results stay out of the read models that count them until the deal opens (issue 44).

Every table of a duplicate round plays the same deal; while one still plays, the leaderboard, a player's
history and the statistics must not show that another has finished, nor who won it. When the last table
ends, both count, exactly once, and a rebuild from zero gives the same tables.
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from domain.tournament.events import TournamentCreated
from service.store.protocol import Metadata, NewEvent
from testkit.readmodels import assert_equal_to_rebuild
from tests.projections.support import TABLE, project_all, random_game


async def _tournament(store: Any, duplicate: bool, games: list[str]) -> None:
    """A tournament whose round 1 pairs `games` (its pairing links them, as the service's append does)."""
    tid = str(uuid.uuid4())
    created = TournamentCreated(
        tournament_id=tid, organiser="org", kind="tally", name="deal", options={}, time_control={}, seats=2,
        min_seats=2, format="swiss", rounds=1, advance=0, duplicate=duplicate, min_players=2, max_players=8,
        seed_commitment="0" * 64)
    await store.append(f"tournament-{tid}", 0, [NewEvent("tournament.TournamentCreated", msgspec.to_builtins(created))],
                       Metadata(actor="org"), kind="tournament")
    async with store.pool.acquire() as conn:
        await conn.executemany("INSERT INTO tournament_games (game_id, tournament_id, round) VALUES ($1, $2, 1)",
                               [(g, tid) for g in games])


async def _play(store: Any, game_id: str, seed: int) -> list[str]:
    """Append a whole random tally game; its players."""
    state = None
    for batch in random_game(seed):
        version = state.version if state else 0
        state = TABLE.fold(batch, state)
        await store.append(game_id, version, [NewEvent(TABLE.event_type(e), TABLE.event_data(e)) for e in batch],
                           Metadata(actor="test", to_act=TABLE.to_act(state)), kind="tally")
    return [s.player_id for s in state.seats]


async def _counted(store: Any) -> tuple[int, list[tuple[str, str]], dict[str, str]]:
    """Rated seats in all, (game, status) of the histories and statistics' status of every game."""
    async with store.pool.acquire() as conn:
        rated = await conn.fetchval("SELECT coalesce(sum(games), 0) FROM rm_ratings")
        history = sorted({(r[0], r[1]) for r in await conn.fetch("SELECT game_id, status FROM rm_player_games")})
        stats = dict(await conn.fetch("SELECT game_id, status FROM rm_stats_games"))
    return rated, history, stats


async def test_a_finished_table_counts_only_when_the_last_table_of_its_deal_ends(store):
    await _tournament(store, True, ["deal-a", "deal-b"])
    await _tournament(store, False, ["plain-c", "plain-d"])
    seats_a = await _play(store, "deal-a", 1)
    seats_c = await _play(store, "plain-c", 3)
    await project_all(store.pool, batch_size=7)
    rated, history, stats = await _counted(store)
    assert rated == len(seats_c)  # the ordinary tournament's game counts at once, the sealed one not at all
    # nothing of the sealed table shows, not even that it is played
    assert ("plain-c", "finished") in history and not any(g.startswith("deal") for g, _ in history)
    assert "deal-a" not in stats and stats["plain-c"] == "finished"

    seats_b = await _play(store, "deal-b", 2)
    await project_all(store.pool, batch_size=5)
    rated, history, stats = await _counted(store)
    assert rated == len(seats_a) + len(seats_b) + len(seats_c)  # each seat of each game counted once
    assert {("deal-a", "finished"), ("deal-b", "finished")} <= set(history)
    assert not {g for g, status in history if g.startswith("deal") and status != "finished"}
    assert stats["deal-a"] == stats["deal-b"] == "finished"
    async with store.pool.acquire() as conn:
        assert await conn.fetchval("SELECT count(*) FROM rm_ratings_sealed") == 0
        assert await conn.fetchval("SELECT sum(events) FROM rm_stats_days") == await conn.fetchval(
            "SELECT count(*) FROM events")  # every event of the deal counted, once
    await assert_equal_to_rebuild(store.pool)
