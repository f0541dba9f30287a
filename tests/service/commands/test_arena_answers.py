"""What a player's own moves in an arena answer over HTTP (memory store): the join, the pause, the leave and the
berserk each answer with that player's part of the arena (`domain.tournament.arena.ArenaEntrantView`), never the
arena, so an answer does not grow with the field (the view it replaced carried every player's standing with
their sheet: 0.42 MB at 2,000 players, 2.1 MB at 10,000, on every join and every berserk)."""

from __future__ import annotations

from typing import Any

from testkit.api import auth, found, player as entrant
from tests.service.commands.test_arenas import TC, arena, finish, player
from tests.support.answers import assert_entries_do_not_grow


async def new_arena(api: Any, organiser: dict[str, str], **body: Any) -> str:
    r = await api.post("/v1/arenas", headers=auth(organiser),
                       json={"kind": "tally", "minutes": 5, "options": {"target": 12}, **body})
    assert r.status_code == 201, r.text
    return r.json()["arena_id"]


async def move(api: Any, arena_id: str, what: str, who: dict[str, str],
               body: dict[str, Any] | None = None) -> dict[str, Any]:
    """`who`'s move `what` (a join has a body; a pause, a leave and a berserk none), answered with 200."""
    r = await api.post(f"/v1/arenas/{arena_id}/{what}", headers=auth(who), **({} if body is None else {"json": body}))
    assert r.status_code == 200, r.text
    return r.json()


async def recorded(api: Any, arena_id: str, type_: str, player_id: str) -> int:
    """The version of the last `type_` event about `player_id` in the arena's log."""
    events = (await api.get(f"/v1/arenas/{arena_id}/events")).json()["events"]
    return [e["version"] for e in events if e["type"] == type_ and e["data"]["player_id"] == player_id][-1]


async def test_a_join_answers_with_the_players_part_and_the_arenas_version(client):
    organiser, ann = await player(client, "Org"), await player(client, "Ann")
    arena_id = await new_arena(client, organiser)
    joined = await move(client, arena_id, "join", ann, {"rating": 1640})
    assert joined == {"arena_id": arena_id, "player_id": ann["id"], "name": "Ann", "rating": 1640, "points": 0,
                      "games": 0, "wins": 0, "streak": 0, "fire": False, "berserks": 0, "presence": "active",
                      "playing": None, "sheet": [], "status": "open", "players": 1,
                      "version": await recorded(client, arena_id, "arena.PlayerJoined", ann["id"])}


async def test_a_pause_a_join_again_and_a_leave_each_answer_with_the_players_presence(client):
    organiser, ann = await player(client, "Org"), await player(client, "Ann")
    arena_id = await new_arena(client, organiser)
    await move(client, arena_id, "join", ann, {"name": "Ann A.", "rating": 1700})
    paused = await move(client, arena_id, "pause", ann)
    assert (paused["player_id"], paused["name"], paused["presence"], paused["players"]) == (
        ann["id"], "Ann A.", "paused", 1)
    assert paused["version"] == await recorded(client, arena_id, "tournament.PlayerPaused", ann["id"])
    back = await move(client, arena_id, "join", ann, {"rating": 1700})
    assert (back["presence"], back["name"], back["version"]) == ("active", "Ann", paused["version"] + 1)
    left = await move(client, arena_id, "leave", ann)
    assert (left["player_id"], left["presence"], left["players"], left["status"]) == (ann["id"], "left", 1, "open")
    assert left["version"] == await recorded(client, arena_id, "tournament.PlayerWithdrew", ann["id"])
    r = await client.post(f"/v1/arenas/{arena_id}/leave", headers=auth(ann))
    assert r.status_code == 409 and r.json()["code"] == "arena.left", r.text


async def test_a_berserk_and_a_pause_in_a_game_answer_with_that_game_and_a_leave_with_the_games_scored(client):
    """Two players are paired; the second to move berserks (their `berserks` and the game in `playing`), the
    first pauses during the game (still `playing` it); once it has scored, the berserker's leave carries the
    same points, games, wins, streak and sheet as their standing in getArena."""
    organiser = await player(client, "Org")
    arena_id = await new_arena(client, organiser, time_control=TC)
    players = {p["id"]: p for p in [await player(client, name) for name in ("Ann", "Ben")]}
    for p in players.values():
        await move(client, arena_id, "join", p, {})

    async def paired() -> str | None:
        return next((s["playing"] for s in (await arena(client, arena_id))["standings"] if s["playing"]), None)

    game_id = await found(paired)
    seats = {s["seat"]: s["player_id"] for s in (await client.get(f"/v1/games/{game_id}")).json()["seats"]}
    first, second = players[seats[0]], players[seats[1]]
    berserked = await move(client, arena_id, f"games/{game_id}/berserk", second)
    assert (berserked["player_id"], berserked["berserks"], berserked["playing"], berserked["presence"]) == (
        second["id"], 1, game_id, "active")
    assert berserked["version"] == await recorded(client, arena_id, "arena.Berserked", second["id"])
    paused = await move(client, arena_id, "pause", first)
    assert (paused["player_id"], paused["presence"], paused["playing"]) == (first["id"], "paused", game_id)
    await finish(client, game_id, players, winner=second["id"])

    async def scored() -> dict[str, Any] | None:
        view = await arena(client, arena_id)
        return view if view["running"] == 0 and view["games"] == 1 else None

    standing = next(s for s in (await found(scored))["standings"] if s["player_id"] == second["id"])
    left = await move(client, arena_id, "leave", second)
    assert standing["games"] == 1 and standing["points"] > 0, standing
    assert {k: v for k, v in standing.items() if k not in ("rank", "presence")} == \
        {k: left[k] for k in standing if k not in ("rank", "presence")}
    assert left["presence"] == "left" and "rank" not in left and left["sheet"] == [standing["points"]]


async def test_a_join_does_not_grow_with_the_field(client):
    """The third answer names no one else and is the first's size but for what is the third's own
    (`assert_entries_do_not_grow`): an answer carrying the field (the arena's view) fails both. The arena starts
    later, so nobody is paired between the joins."""
    arena_id = await new_arena(client, await player(client, "Org"), starts_in_seconds=600)
    entrants = [await entrant(client, f"P{i}") for i in range(3)]
    await assert_entries_do_not_grow(client, f"/v1/arenas/{arena_id}/join", entrants)
