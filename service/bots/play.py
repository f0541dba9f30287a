"""Playing one seat of one game over HTTP: follow its SSE stream, act whenever the seat may.

A `SeatPlayer` keeps one SSE connection to its game. Every message that may have changed whose turn
it is (any event it did not cause itself) wakes the acting loop, which asks `GET /legal`: an empty
list means not now; otherwise the strategy picks a command, posted with the version it was chosen
at and a fresh `Idempotency-Key`. A 409 `version_conflict` means the game moved on: re-read and
decide again. Bursts of events coalesce into one check. While the game is open and every seat is
taken, the player starts it (any seated player may). A slow safety poll covers a silent stream.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any, Protocol

from service.bots.client import ApiClient, ApiError
from service.bots.strategies import Strategy

ENDED = {"table.GameEnded": "finished", "table.GameAborted": "aborted"}
SAFETY_POLL = 10.0


class Observer(Protocol):
    """Hooks for measurements (the load generator); a bot plays without one."""

    def commanded(self, game_id: str, seat: int, version: int, sent: float, answered: float) -> None: ...
    def delivered(self, game_id: str, seat: int | None, version: int, at: float) -> None: ...
    def conflicted(self) -> None: ...


class SeatPlayer:
    """Plays the caller's seat in `game_id` until the game is over; `run` returns the final game."""

    def __init__(self, api: ApiClient, game_id: str, strategy: Strategy, observer: Observer | None = None,
                 max_commands: int = 20_000) -> None:
        self.api, self.game_id, self.strategy, self.observer = api, game_id, strategy, observer
        self.max_commands = max_commands
        self.status = "unknown"
        self.seat: int | None = None
        self.commands = 0
        self._own_upto = 0  # versions up to this one came from our own commands
        self._wake = asyncio.Event()
        self._failure: BaseException | None = None

    async def run(self) -> dict[str, Any]:
        follower = asyncio.create_task(self._follow())
        try:
            while self.status not in ("finished", "aborted"):
                try:
                    await asyncio.wait_for(self._wake.wait(), SAFETY_POLL)
                except TimeoutError:
                    self.status = (await self.api.game(self.game_id))["status"]
                if self._failure is not None:
                    raise self._failure
                self._wake.clear()
                if self.status == "open":
                    await self._start_if_full()
                elif self.status == "active":
                    await self._act()
        finally:
            follower.cancel()
            await asyncio.gather(follower, return_exceptions=True)
        return await self.api.game(self.game_id)

    async def _follow(self) -> None:
        try:
            async for message in self.api.stream(self.game_id):
                at = time.perf_counter()
                version = int(message.id) if message.id and message.id.isdigit() else None
                if message.event == "snapshot":
                    game = json.loads(message.data)
                    self.status, self.seat = game["status"], game["your_seat"]
                elif message.event in ENDED:
                    self.status = ENDED[message.event]
                elif message.event == "table.GameStarted":
                    self.status = "active"
                if version is not None and self.observer is not None and message.event != "snapshot":
                    self.observer.delivered(self.game_id, self.seat, version, at)
                if version is None or version > self._own_upto or self.status != "active":
                    self._wake.set()
        except Exception as exc:  # noqa: BLE001 - handed to the acting loop, which raises it
            self._failure = exc
            self._wake.set()

    async def _start_if_full(self) -> None:
        game = await self.api.game(self.game_id)
        self.status = game["status"]
        if self.status == "open" and all(s["player_id"] for s in game["seats"]):
            try:
                game = await self.api.start(self.game_id)
                self.status = game["status"]
            except ApiError as exc:
                if exc.status != 409:  # another seat started it first
                    raise

    async def _act(self) -> None:
        """Send commands while the seat may act; returns when it may not (or the game is over)."""
        while self.status == "active":
            legal = await self.api.legal(self.game_id)
            if not legal["commands"]:
                return
            if self.commands >= self.max_commands:
                raise RuntimeError(f"game {self.game_id}: no end after {self.commands} commands")
            command = await self.strategy.choose(self.api, self.game_id, legal)
            sent = time.perf_counter()
            try:
                result = await self.api.command(self.game_id, command, legal["version"], key=uuid.uuid4().hex)
            except ApiError as exc:
                if exc.status == 409 and exc.code == "version_conflict":
                    if self.observer is not None:
                        self.observer.conflicted()
                    continue
                raise
            answered = time.perf_counter()
            self.commands += 1
            self._own_upto = max(self._own_upto, result["version"])
            if self.observer is not None:
                self.observer.commanded(self.game_id, legal["seat"], result["version"], sent, answered)
            if result["status"] != "active":
                self.status = result["status"]
                return
            if legal["seat"] not in result["to_act"]:
                return
