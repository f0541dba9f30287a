"""The bot worker (`stela bot-worker`): plays the bots players asked for, as an API client like any other.

How it learns which bots to run: every `lease_seconds / 3` it asks the service
(`POST /v1/bots/leases`, with the admin token) for its bots. The service leases each bot to one
worker at a time in the store (`FOR UPDATE SKIP LOCKED`), so several replicas never run the same
bot twice; a lease it stops renewing runs out and another worker takes the bot over with a fresh
token, the old one revoked (a stalled worker that wakes up is refused: it cannot play the bot twice
either). A worker restarted under the same `--name` gets its bots back at once. Each bot plays with
its own token over HTTP and SSE (`SeatPlayer` for a game, `TurnPlayer` for every game of a
tournament or an arena), so it obeys the same rules, clocks and visibility as a person; when its game,
tournament or arena is over the worker says so (`POST /v1/bots/{id}/done`) and the bot's token is revoked.

A bot's `strength` n in 1..5 plays its strategy's choice n times in 5 and a uniformly random legal
command otherwise (`Weakened`).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import dataclass, field
from typing import Any

import httpx
import structlog

from service.bots.client import ApiClient, ApiError
from service.bots.play import SeatPlayer, TurnPlayer
from service.bots.strategies import Strategy, make_strategy

log = structlog.get_logger("stela.bot_worker")
Json = dict[str, Any]
TOURNAMENT_POLL = 5.0


class Weakened:
    """`inner`'s choice `strength` times in 5, else a uniformly random legal command."""

    def __init__(self, inner: Strategy, strength: int, rng: random.Random) -> None:
        self.inner, self.strength, self.rng = inner, strength, rng
        self.name = f"{inner.name}:{strength}"

    def _own(self) -> bool:
        return self.rng.random() < self.strength / 5

    async def choose(self, api: ApiClient, game_id: str, legal: Json) -> Json:
        if self._own():
            return await self.inner.choose(api, game_id, legal)
        return self.rng.choice(legal["commands"])

    def decide(self, view: Json | None, seat: int, commands: list[Json]) -> Json:
        return self.inner.decide(view, seat, commands) if self._own() else self.rng.choice(commands)


def strategy_of(lease: Json) -> Weakened:
    seed = f"{lease['bot_id']}:{lease['strategy']}:{lease['strength']}"
    return Weakened(make_strategy(lease["strategy"], seed), lease["strength"], random.Random(seed))


@dataclass
class BotWorker:
    """Leases bots and plays each in a task of its own until its game or tournament is over."""

    http: httpx.AsyncClient
    admin_token: str
    name: str
    lease_seconds: float = 30.0
    poll: float | None = None  # seconds between lease asks (None: a third of `lease_seconds`; keep it below that)
    played: list[str] = field(default_factory=list)  # bots whose game or tournament this worker saw end
    _tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)

    @property
    def admin(self) -> ApiClient:
        return ApiClient(self.http, self.admin_token)

    async def step(self) -> list[Json]:
        """Renew the leases once: start the bots that came with a token, drop the ones leased elsewhere now."""
        held = [bot for bot, task in self._tasks.items() if not task.done()]
        leases = await self.admin.request("POST", "/v1/bots/leases", json={
            "worker": self.name, "have": held, "lease_seconds": self.lease_seconds})
        leased = {lease["bot_id"] for lease in leases}
        for bot_id in [b for b in self._tasks if b not in leased]:
            self._tasks.pop(bot_id).cancel()  # another worker has it now: its old token no longer works anyway
        for lease in leases:
            if lease["token"] is not None:
                if (old := self._tasks.pop(lease["bot_id"], None)) is not None:
                    old.cancel()
                self._tasks[lease["bot_id"]] = asyncio.create_task(self._play(lease), name=f"bot-{lease['bot_id']}")
        return leases

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Ask for leases every `poll` seconds (they last three times that by default) until `stop` is set."""
        stop = stop or asyncio.Event()
        try:
            while not stop.is_set():
                try:
                    await self.step()
                except (ApiError, httpx.TransportError) as exc:
                    log.warning("lease_failed", error=str(exc))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.lease_seconds / 3 if self.poll is None else self.poll)
        finally:
            await self.close()

    async def close(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()

    async def _play(self, lease: Json) -> None:
        api = ApiClient(self.http, lease["token"])
        try:
            if lease["game_id"] is not None:
                await SeatPlayer(api, lease["game_id"], strategy_of(lease)).run()
            else:
                await self._competition(api, lease)
        except ApiError as exc:
            if exc.status == 401:  # its token was replaced: another worker plays it now
                log.info("bot_taken_over", bot=lease["bot_id"])
                return
            log.warning("bot_failed", bot=lease["bot_id"], error=str(exc))
            return
        self.played.append(lease["bot_id"])
        await self.admin.request("POST", f"/v1/bots/{lease['bot_id']}/done")

    async def _competition(self, api: ApiClient, lease: Json) -> None:
        """Play every game of the bot from its personal stream until its tournament (or arena) is finished."""
        path = (f"/v1/tournaments/{lease['tournament_id']}" if lease.get("tournament_id") is not None
                else f"/v1/arenas/{lease['arena_id']}")
        player = asyncio.create_task(TurnPlayer(api, strategy_of(lease)).run())
        try:
            while True:
                view = await api.request("GET", path)
                if view["status"] == "finished":
                    return
                await asyncio.sleep(TOURNAMENT_POLL)
        finally:
            player.cancel()
            await asyncio.gather(player, return_exceptions=True)
