"""Retries against a live server: a lost answer resent with its key appends once; a version conflict is
surfaced; a rate-limited client waits out `Retry-After` (requests and stream openings) and gets through."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest
from tests.e2e.sdk_support import seated

from stela_client import (
    AiohttpTransport, Backoff, Client, GameState, RateLimited, Response, SyncClient, TransportError, VersionConflict,
)
from stela_client.transport import StreamResponse


@dataclass
class LosingTransport:
    """The real transport, except that the answer to the first command is lost after the server acted."""

    inner: AiohttpTransport = field(default_factory=AiohttpTransport)
    commands: list[tuple[str | None, Response]] = field(default_factory=list)
    lose: int = 1

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                      timeout: float) -> Response:
        answer = await self.inner.request(method, url, headers, body, timeout)
        if "/commands" in url:
            self.commands.append((headers.get("Idempotency-Key"), answer))
            if self.lose:
                self.lose -= 1
                raise TransportError("the answer was lost")
        return answer

    def stream(self, url: str, headers: Mapping[str, str],
               read_timeout: float) -> contextlib.AbstractAsyncContextManager[StreamResponse]:
        return self.inner.stream(url, headers, read_timeout)

    async def close(self) -> None:
        await self.inner.close()


async def test_a_command_whose_answer_was_lost_is_resent_with_its_key_and_appended_once(server):
    game_id, players = await seated(server.url, "coatl", 2)
    losing = LosingTransport()
    try:
        before = await players[0].game(game_id)
        legal = await players[before.to_act[0]].legal(game_id)
        acting = players[before.to_act[0]].as_player(players[before.to_act[0]].token)
        acting.transport, acting.backoff = losing, Backoff(base=0.01)
        result = await acting.command(game_id, legal.commands[0], legal.version)
        (key1, first), (key2, replayed) = losing.commands
        assert key1 == key2 and key1 and first.status == replayed.status == 200
        assert replayed.headers.get("Idempotent-Replayed") == "true" and first.body == replayed.body
        after = await players[0].game(game_id)
        assert after.version == result.version == before.version + len(result.events)
        assert (await players[0].events(game_id, after=before.version)).events == result.events
        with pytest.raises(VersionConflict) as stale:  # the same decision again, at the old version, fresh key
            await players[before.to_act[0]].command(game_id, legal.commands[0], legal.version)
        assert stale.value.current_version == after.version
    finally:
        await asyncio.gather(*(p.close() for p in players), losing.close())


WINDOW = 5  # seconds: the server's budget window in the two tests below (STELA_RATE_LIMIT_WINDOW_SECONDS)


async def test_a_rate_limited_client_waits_for_the_window_and_stream_slots_free_up(own_server):
    own_server.env.update(STELA_RATE_LIMIT="6", STELA_MAX_STREAMS_PER_CLIENT="1",
                          STELA_RATE_LIMIT_WINDOW_SECONDS=str(WINDOW))
    own_server.start()
    async with Client(own_server.url, backoff=Backoff(attempts=4, max_wait=70)) as ann:
        await ann.register("Ann")
        game = await ann.create_game("coatl", 2)  # open: each personal stream announces it on connect
        first, second = ann.personal_stream(), ann.personal_stream()
        assert isinstance(await asyncio.wait_for(anext(first), 60), GameState)  # holds the one stream slot
        waiting = asyncio.create_task(anext(second))
        deadline = asyncio.get_running_loop().time() + 60
        while not second.refusals:
            assert asyncio.get_running_loop().time() < deadline, "the second stream was never refused"
            await asyncio.sleep(0.05)
        refusal = second.refusals[0]
        assert isinstance(refusal, RateLimited) and refusal.retry_after == 5 and not waiting.done()
        await first.aclose()  # frees the slot: the second stream gets in after Retry-After
        notice = await asyncio.wait_for(waiting, 90)
        assert isinstance(notice, GameState) and notice.game_id == game.id and second.connects == 1
        await second.aclose()

        impatient = ann.as_player(ann.token)
        impatient.backoff = Backoff(attempts=1)
        with pytest.raises(RateLimited) as refused:
            for _ in range(200):  # more than a window's budget, wherever the windows fall
                await impatient.me()
        assert refused.value.code == "rate_limited" and refused.value.retry_after
        assert 0 < refused.value.retry_after <= WINDOW
        # one retry, after exactly Retry-After: it gets through. The first 429 may come at any moment of a
        # window; the second comes early in one (the first wait ends as its window starts), so a client
        # that retried sooner (0.2 s, its own backoff) would meet the same spent window again
        patient = ann.as_player(ann.token)
        patient.backoff = Backoff(attempts=2, jitter=0)
        for _ in range(200):
            assert (await patient.me()).name == "Ann"
            if patient.counters.throttled == 2:
                break
        assert patient.counters.throttled == 2


def test_a_paced_client_reads_the_ratelimit_fields_and_waits_instead_of_meeting_429(own_server):
    own_server.env.update(STELA_RATE_LIMIT="8", STELA_RATE_LIMIT_WINDOW_SECONDS=str(WINDOW))
    own_server.start()
    with SyncClient(own_server.url, pace=True, backoff=Backoff(attempts=1)) as ann:  # a 429 would raise
        ann.register("Ann")
        assert ann.pacer is not None
        for _ in range(200):  # more than a window's budget for the token, until the pacer has waited once
            assert ann.me().name == "Ann"
            if ann.pacer.waited:
                break
        for _ in range(3):  # and on, in the window it waited for
            assert ann.me().name == "Ann"
        limit = ann.rate_limit
        assert limit is not None and limit.policy == "api" and limit.quota == 8 and limit.window == WINDOW
        assert limit.remaining is not None and 0 <= limit.remaining < 8 and limit.reset is not None
        assert ann.counters.throttled == 0 and ann.pacer.waited > 0
        unpaced = ann.as_player(ann.token)
        unpaced.pacer = None
        with pytest.raises(RateLimited):  # the same budget without pacing meets the 429
            for _ in range(200):
                unpaced.me()
