"""The fault suite's competitions: a Swiss tournament and an arena played through the faults.

Each registers its own players, is created by the first of them and entered by all. Their games are
on a one-second per-move clock with `abandon_after: 2`, and the bots wait out their deadline often,
so games end within seconds, by play or by the timeout worker, and a competition ends within the
run even on a busy machine. The driver follows the competition's events (`RoundPaired` tables,
`PlayersPaired` games) and plays every game it pairs with `bench.chaos_bots.drive`, until the
competition ends (`finished`, when every player's acknowledged entry is in its log too) or its
deadline passes (then how far it got: an early ending, as is an entry lost). These
requests carry no Idempotency-Key (the keys check covers games, not competitions): a registration or
start retried after it committed is answered 409, which is taken as done; a creation retried that
way leaves an unused competition behind, which no check reads (nobody is paired in it).

`chaos_checks.results` then checks, from the database, that each paired game that ended was recorded
exactly once by the tournament result runner or the arena worker.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from bench.chaos_bots import Client, Pace, Player, drive, register

CLOCK = {"per_move_seconds": 1, "abandon_after": 2}
ENDED = {"tournament": "tournament.TournamentEnded", "arena": "tournament.TournamentEnded"}  # a fact both share
ENTERED = ("tournament.PlayerRegistered", "arena.PlayerJoined")


async def _ok(client: Client, path: str, token: str, body: Any = None) -> dict | None:
    """A POST until a final answer; a 409 (already done by an earlier attempt that committed) counts as done."""
    resp = await client.call("POST", path, token, body)
    if resp is None or (resp.status_code >= 300 and resp.status_code != 409):
        raise RuntimeError(f"POST {path}: {resp and resp.status_code} {resp and resp.text[:300]}")
    return resp.json() if resp.status_code < 300 else None


async def tournament(client: Client, stop: asyncio.Event, rnd: random.Random, deadline: float,
                     rounds: int = 3) -> str:
    """A Swiss of `rounds` rounds for four Cóatl players at two-seat tables; how it ended."""
    players = [await register(client, f"swiss-{i}") for i in range(4)]
    created = await _ok(client, "/v1/tournaments", players[0].token, {
        "kind": "coatl", "name": "chaos", "format": "swiss", "rounds": rounds, "seats": 2, "time_control": CLOCK})
    path = f"/v1/tournaments/{created['tournament_id']}"
    for p in players:
        await _ok(client, f"{path}/register", p.token, {})
    await _ok(client, f"{path}/start", players[0].token)
    return await _follow(client, "tournament", path, players, stop, rnd, deadline)


async def arena(client: Client, stop: asyncio.Event, rnd: random.Random, deadline: float, minutes: int) -> str:
    """An arena of four Cóatl players for `minutes`; how it ended."""
    players = [await register(client, f"arena-{i}") for i in range(4)]
    created = await _ok(client, "/v1/arenas", players[0].token, {
        "kind": "coatl", "name": "chaos", "seats": 2, "minutes": minutes, "starts_in_seconds": 0,
        "time_control": CLOCK, "berserk": False})
    path = f"/v1/arenas/{created['arena_id']}"
    for p in players:
        await _ok(client, f"{path}/join", p.token, {})
    return await _follow(client, "arena", path, players, stop, rnd, deadline)


def _paired(event: dict[str, Any]) -> list[str]:
    """The game ids an event pairs (a tournament round's tables, an arena pairing's games)."""
    if event["type"] == "tournament.RoundPaired":
        return [t["game_id"] for t in event["data"]["tables"]]
    if event["type"] == "arena.PlayersPaired":
        return [g["game_id"] for g in event["data"]["games"]]
    return []


async def _follow(client: Client, what: str, path: str, players: list[Player], stop: asyncio.Event,
                  rnd: random.Random, deadline: float) -> str:
    """Play every game the competition pairs until its end event, or `deadline` (monotonic)."""
    by_id = {p.id: p for p in players}
    games: list[asyncio.Task] = []
    entered: set[str] = set()
    after, ended = 0, False
    try:
        while not ended:
            if time.monotonic() > deadline:
                return f"{what}_unfinished"
            resp = await client.call("GET", f"{path}/events", params={"after": str(after)})
            if resp is None or resp.status_code != 200:
                return f"{what}_unreadable_{resp and resp.status_code}"
            for event in resp.json()["events"]:
                after = max(after, event["version"])
                ended = ended or event["type"] == ENDED[what]
                entered |= {event["data"]["player_id"]} if event["type"] in ENTERED else set()
                games += [asyncio.create_task(_game(client, g, by_id, stop, rnd)) for g in _paired(event)]
            await asyncio.sleep(0.5)
        # an entry acknowledged to a player but missing from the log is a lost registration
        return "finished" if entered == set(by_id) else f"{what}_lost_entrants_{len(set(by_id) - entered)}"
    finally:
        for game in games:
            game.cancel()
        await asyncio.gather(*games, return_exceptions=True)


async def _game(client: Client, game_id: str, by_id: dict[str, Player], stop: asyncio.Event,
                rnd: random.Random) -> str:
    resp = await client.call("GET", f"/v1/games/{game_id}")
    if resp is None or resp.status_code != 200:
        return "unreadable"
    by_seat = {s["seat"]: by_id[s["player_id"]] for s in resp.json()["seats"]}
    return await drive(client, game_id, by_seat, stop, random.Random(rnd.random()),
                       pace=Pace(per_move_seconds=CLOCK["per_move_seconds"], dawdle=0.3))
