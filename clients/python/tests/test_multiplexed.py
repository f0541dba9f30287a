"""The multiplexed stream (`GET /v1/stream`) through the SDK: several games and the personal notices on one
connection, played from its `turn` frames alone, resuming per game across server restarts; and `watch`,
which adds a game to an open stream without sending anything twice."""

from __future__ import annotations

import asyncio
import random
import time

from stela_client import (
    Client, EventFrame, GameEnded, Ready, Snapshot, TransportError, Turn, Unavailable, VersionConflict,
)
from tests.e2e.sdk_support import seated

OVER = ("finished", "aborted")


class TurnBot:
    """Plays every seat of `client` in `games` from one multiplexed stream: acts on each `turn` frame that
    says it is its turn, with the legal commands the frame carries. Records each game's versions."""

    def __init__(self, client: Client, games: list[str], seed: int) -> None:
        self.client, self.games, self.rng = client, games, random.Random(seed)
        self.versions: dict[str, list[int]] = {g: [] for g in games}
        self.over: set[str] = set()
        self.notices: list[str] = []
        self.stream = client.stream(games, personal=True, legal=True, ticket=True)

    async def run(self) -> None:
        async for frame in self.stream:
            match frame:
                case Snapshot(game_id=game_id, game=game):
                    self.versions[game_id].append(game.version)
                case EventFrame(game_id=game_id, event=event):
                    self.versions[game_id].append(event.version)
                case Turn(game_id=game_id, status=status) if status in OVER:
                    self.over.add(game_id)
                case Turn(game_id=game_id, version=version, your_turn=True, commands=[*commands]) if commands:
                    await self.act(game_id, self.rng.choice(commands), version)
                case GameEnded():
                    self.notices.append(frame.type)
            if self.over >= set(self.games):
                await self.stream.aclose()
                return

    async def act(self, game_id: str, command: dict[str, object], version: int) -> None:
        try:
            await self.client.command(game_id, command, version)
        except (VersionConflict, TransportError, Unavailable):
            pass  # the game moved on, or the server is restarting: the next `turn` frame says what now


async def test_two_games_played_from_one_multiplexed_stream_each_resume_exactly_across_restarts(own_server):
    own_server.start()
    first, (ann, bob) = await seated(own_server.url, "coatl", 2)
    cy = Client(own_server.url)
    await cy.register("Cy")
    second, _ = await _with_seat(cy, ann)  # Ann sits in both games
    bots = [TurnBot(ann, [first, second], 1), TurnBot(bob, [first], 2), TurnBot(cy, [second], 3)]
    running = [asyncio.create_task(b.run()) for b in bots]
    live: dict[bool, list[bool]] = {}
    try:
        for kill in (False, True):
            await _until(lambda: sum(len(v) for v in bots[0].versions.values()) > 10 * own_server.starts, running)
            live[kill] = [not task.done() for task in running]  # a bot whose games ended needs no reconnect
            await asyncio.to_thread(own_server.stop, kill)
            await asyncio.to_thread(own_server.start)
        await asyncio.wait_for(asyncio.gather(*running), 600)
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        await asyncio.gather(ann.close(), bob.close(), cy.close())
    for i, bot in enumerate(bots):
        for game_id, versions in bot.versions.items():
            final = versions[-1]
            assert versions == list(range(versions[0], final + 1)), (game_id, versions)  # each version once
        assert bot.client.counters.skipped_duplicates == 0
        assert 1 + sum(live[k][i] for k in live) - 1 <= bot.stream.connects <= 1 + sum(live[k][i] for k in live)
    assert all(any(flags) for flags in live.values())  # each restart cut some live stream
    assert bots[0].notices.count("game.ended") >= 2  # the personal notices rode along on the same connection


async def _with_seat(owner: Client, guest: Client) -> tuple[str, tuple[Client, Client]]:
    """A started two-seat game of `owner` (seat 0) and `guest` (seat 1)."""
    game = await owner.create_game("coatl", 2)
    await guest.join(game.id, 1)
    await owner.start(game.id)
    return game.id, (owner, guest)


async def _until(condition, running: list[asyncio.Task[None]]) -> None:
    deadline = asyncio.get_running_loop().time() + 300
    while not condition():
        for task in running:
            if task.done():
                task.result()
        assert asyncio.get_running_loop().time() < deadline, "the games did not move"
        await asyncio.sleep(0.05)


async def test_watch_adds_a_game_to_an_open_stream_without_sending_anything_twice(server):
    first, (ann, bob) = await seated(server.url, "coatl", 2)
    second, _ = await _with_seat(bob, ann)
    stream = ann.stream([first], legal=True)
    try:
        frames = [await asyncio.wait_for(anext(stream), 60) for _ in range(3)]
        assert [type(f) for f in frames] == [Snapshot, Turn, Ready]
        stream.watch(second)
        got: list[object] = []
        while not isinstance(got[-1:] and got[-1], Ready):
            got.append(await asyncio.wait_for(anext(stream), 60))
        kinds = sorted(type(f).__name__ for f in got[:-1])
        assert kinds == ["Snapshot", "Turn", "Turn"]  # only the new game has a snapshot; nothing came twice
        assert [f.game_id for f in got if isinstance(f, Snapshot)] == [second]
        assert {f.game_id for f in got if isinstance(f, Turn)} == {first, second} and stream.connects == 2
    finally:
        await stream.aclose()
        await asyncio.gather(ann.close(), bob.close())


async def test_an_expired_ticket_is_renewed_when_the_stream_reconnects(own_server):
    own_server.env["STELA_TICKET_TTL_SECONDS"] = "3"  # expiry is whole seconds: a renewed ticket lives 2 s at least
    own_server.start()
    first, (ann, bob) = await seated(own_server.url, "coatl", 2)
    second, _ = await _with_seat(bob, ann)
    stream = ann.stream([first], ticket=True)
    try:
        while not isinstance(await asyncio.wait_for(anext(stream), 60), Ready):
            pass
        issued = time.time()
        while time.time() < issued + 4.5:  # the ticket (3 s, whole seconds) has expired by then
            await asyncio.sleep(0.1)
        stream.watch(second)  # reconnects with the expired ticket: refused, renewed, in
        while not isinstance(frame := await asyncio.wait_for(anext(stream), 60), Snapshot):
            pass
        assert frame.game_id == second and stream.connects == 2
        assert [type(r).__name__ for r in stream.refusals] == ["Unauthorized"]
    finally:
        await stream.aclose()
        await asyncio.gather(ann.close(), bob.close())
