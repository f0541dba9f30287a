"""A whole game of every kind, played through the SDK against a live server, every stream followed.

Each seat's player follows the game on its game stream while the game is played: the frames it
receives are a snapshot and then every version after it exactly once, in order. One player also
follows its personal stream (opened with a stream ticket) and hears the game end with its outcome.
"""

from __future__ import annotations

import asyncio

import pytest
from tests.e2e.sdk_support import play_out, seated

from stela_client import (
    Client, Conflict, EventFrame, GameEnded, InvalidRequest, NotFound, Snapshot, Unauthorized,
)

KINDS = {"coatl": 2, "goldmine": 3, "tikal": 2, "tobago": 2}


async def follow_to_end(client: Client, game_id: str) -> list[int]:
    """The versions a game stream delivers until the game ends."""
    versions: list[int] = []
    async for frame in client.game_stream(game_id):
        match frame:
            case Snapshot(game=game):
                versions.append(game.version)
                if game.status in ("finished", "aborted"):
                    break
            case EventFrame(event=event):
                versions.append(event.version)
                if event.type == "table.SeedRevealed":
                    break
    return versions


async def personal_until_ended(client: Client, game_id: str) -> GameEnded:
    async for notice in client.personal_stream(ticket=True, legal=True):
        if notice.your_turn and notice.status == "active":
            assert notice.commands is not None  # legal=true: the turn's notice carries the legal commands
        if isinstance(notice, GameEnded) and notice.game_id == game_id:
            return notice
    raise AssertionError("the personal stream ended")


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_a_whole_game_of_every_kind_is_played_through_the_sdk(server, kind):
    game_id, players = await seated(server.url, kind, KINDS[kind])
    try:
        head = (await players[0].game(game_id)).version
        followers = [asyncio.create_task(follow_to_end(p, game_id)) for p in players]
        ended = asyncio.create_task(personal_until_ended(players[1], game_id))
        final = await asyncio.wait_for(play_out(game_id, players, seed=11), 600)
        assert final.status == "finished" and final.outcome is not None and final.outcome.winners
        seen = await asyncio.wait_for(asyncio.gather(*followers), 120)
        for versions in seen:
            first = versions[0]
            assert first >= head and versions == list(range(first, final.version + 1))
        notice = await asyncio.wait_for(ended, 120)
        assert notice.outcome is not None and notice.outcome.winners == final.outcome.winners
        assert final.kind == kind
    finally:
        await asyncio.gather(*(p.close() for p in players))


async def test_every_kind_the_server_hosts_is_played_above(server):
    async with Client(server.url) as anyone:
        assert {k.kind for k in await anyone.kinds()} == set(KINDS)


async def test_sign_in_with_a_token_rotate_it_and_the_old_one_is_refused_with_a_typed_error(server):
    async with Client(server.url) as ann:
        player = await ann.register("Ann")
        async with Client(server.url, token=player.token) as again:
            assert (await again.me()).id == player.id
            new = await again.rotate_token()
            with pytest.raises(Unauthorized) as refused:
                await ann.me()  # still holds the old token
            assert refused.value.status == 401 and refused.value.code == "unauthorized"
            assert refused.value.problem["status"] == 401
            ann.token = new
            assert (await ann.me()).name == "Ann"
            await again.revoke_token()
            with pytest.raises(Unauthorized):
                await ann.me()


async def test_refusals_arrive_as_their_family_with_the_problem_attached(server):
    game_id, (ann, bob) = await seated(server.url, "coatl", 2)
    try:
        with pytest.raises(NotFound) as missing:
            await ann.game("no-such-game")
        assert missing.value.code == "game_not_found"
        with pytest.raises(Conflict) as taken:
            await bob.join(game_id, 0)
        assert taken.value.status == 409
        with pytest.raises(InvalidRequest) as bad:
            await ann.command(game_id, {"type": "coatl.NoSuchCommand"}, None)
        assert bad.value.status in (400, 422) and bad.value.problem["detail"]
    finally:
        await asyncio.gather(ann.close(), bob.close())
