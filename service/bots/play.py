"""Playing games over HTTP: one seat of one game from its SSE stream (`SeatPlayer`), or every game of a
player from the personal stream (`TurnPlayer`, what the load generator's tournament uses).

Both speak through the Python SDK (`stela_client`, via `ApiClient.sdk`): its typed answers and its
streams, which resume by themselves. A `SeatPlayer` keeps one SSE connection to its game. Every frame that may have changed whose turn
it is (any event it did not cause itself) wakes the acting loop, which asks `GET /legal`: an empty
list means not now; otherwise the strategy picks a command, posted with the version it was chosen
at and a fresh `Idempotency-Key`, and with `include=legal`, so the answer brings the next legal
commands and a seat that acts again asks for nothing more. A 409 `version_conflict` means the game moved on: re-read and
decide again. Bursts of events coalesce into one check. While the game is open and every seat is
taken, the player starts it (any seated player may). A slow safety poll covers a silent stream.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any, Protocol

from stela_client import CommandResult, Conflict, EventFrame, GameEnded, Legal, NoticeFrame, Snapshot, VersionConflict, YourTurn

from service.bots.client import ApiClient
from service.bots.strategies import Strategy

ENDED = {"table.GameEnded": "finished", "table.GameAborted": "aborted"}
SAFETY_POLL = 10.0


class Observer(Protocol):
    """Hooks for measurements (the load generator); a bot plays without one."""

    def commanded(self, game_id: str, seat: int, version: int, sent: float, answered: float) -> None: ...
    def delivered(self, game_id: str, seat: int | None, version: int, at: float) -> None: ...
    def conflicted(self) -> None: ...


async def following(api: ApiClient, game_id: str, legal: Legal, result: CommandResult) -> Legal:
    """The seat's legal commands after its command's `result` (asked with `include=legal`; else fetched)."""
    if result.legal is None:
        return await api.sdk.legal(game_id)
    return Legal(seat=legal.seat, version=result.version, commands=result.legal)


async def step(api: ApiClient, strategy: Strategy, game_id: str, legal: Legal,
               observer: Observer | None) -> CommandResult | None:
    """The strategy's choice among `legal`, posted with a fresh key (None: a version conflict, decide again)."""
    shown = {"seat": legal.seat, "version": legal.version, "commands": legal.commands}  # JSON, as the wire has it
    command = await strategy.choose(api, game_id, shown)
    sent = time.perf_counter()
    try:
        result = await api.sdk.command(game_id, command, legal.version, key=uuid.uuid4().hex, include=("legal",))
    except VersionConflict:
        if observer is not None:
            observer.conflicted()
        return None
    if observer is not None and legal.seat is not None:
        observer.commanded(game_id, legal.seat, result.version, sent, time.perf_counter())
    return result


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
                    self.status = (await self.api.sdk.game(self.game_id)).status
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
            async for frame in self.api.sdk.game_stream(self.game_id):
                at = time.perf_counter()
                if isinstance(frame, Snapshot):
                    self.status, self.seat, version = frame.game.status, frame.game.your_seat, frame.game.version
                elif isinstance(frame, EventFrame):
                    version = frame.event.version
                    if frame.event.type in ENDED:
                        self.status = ENDED[frame.event.type]
                    elif frame.event.type == "table.GameStarted":
                        self.status = "active"
                    if self.observer is not None:
                        self.observer.delivered(self.game_id, self.seat, version, at)
                if version > self._own_upto or self.status != "active":
                    self._wake.set()
        except Exception as exc:  # noqa: BLE001 - handed to the acting loop, which raises it
            self._failure = exc
            self._wake.set()

    async def _start_if_full(self) -> None:
        game = await self.api.sdk.game(self.game_id)
        self.status = game.status
        if self.status == "open" and all(s.player_id for s in game.seats):
            try:
                self.status = (await self.api.sdk.start(self.game_id)).status
            except Conflict:  # another seat started it first
                pass

    async def _act(self) -> None:
        """Send commands while the seat may act; returns when it may not (or the game is over)."""
        legal = await self.api.sdk.legal(self.game_id)
        while self.status == "active" and legal.commands:
            if self.commands >= self.max_commands:
                raise RuntimeError(f"game {self.game_id}: no end after {self.commands} commands")
            result = await step(self.api, self.strategy, self.game_id, legal, self.observer)
            if result is None:
                legal = await self.api.sdk.legal(self.game_id)
                continue
            self.commands += 1
            self._own_upto = max(self._own_upto, result.version)
            if result.status != "active":
                self.status = result.status
                return
            if legal.seat not in result.to_act:
                return
            legal = await following(self.api, self.game_id, legal, result)


class TurnPlayer:
    """Plays every game of one player from its personal stream, with no stream per game.

    The personal stream (`GET /v1/players/me/stream?legal=true`) announces each game the player is
    seated in and says when the player's seat enters `to_act` (`your_turn`), with the seat's legal
    commands. Only then does the player act in that game: on the commands the notice brought (a
    `GET /legal` only for a game whose seat it does not know yet, or after a version conflict),
    then each command is posted with `include=legal`, whose answer carries the legal commands that
    follow, until the seat may no longer act. So a seat that is not to act costs no request at all,
    and one step of a turn is one request. A game that stays silent for `safety_poll` seconds is
    looked at anyway (a lost notice cannot stall it).
    """

    def __init__(self, api: ApiClient, strategy: Strategy, observer: Observer | None = None,
                 max_commands: int = 20_000, safety_poll: float = 30.0) -> None:
        self.api, self.strategy, self.observer = api, strategy, observer
        self.max_commands, self.safety_poll = max_commands, safety_poll
        self.commands = 0
        self.ended: set[str] = set()
        self.errors: list[str] = []
        self.connected = asyncio.Event()
        self._heard: dict[str, float] = {}  # live game -> when it last showed signs of life
        self._due: set[str] = set()  # games to look at again
        self._acting: dict[str, asyncio.Task[None]] = {}
        self._seats: dict[str, int] = {}  # game -> the player's seat in it (learnt from its first `GET /legal`)
        self._offered: dict[str, Legal] = {}  # game -> the legal commands its latest "your turn" brought

    async def run(self) -> None:
        """Follow the personal stream until cancelled."""
        watchdog = asyncio.create_task(self._watch())
        stream = self.api.sdk.personal_stream(legal=True)
        stream.on_connect = self.connected.set
        try:
            async for notice in stream:
                self._notice(notice, time.perf_counter())
        finally:
            watchdog.cancel()
            for task in [watchdog, *self._acting.values()]:
                task.cancel()
            await asyncio.gather(watchdog, *self._acting.values(), return_exceptions=True)

    def _notice(self, notice: NoticeFrame, at: float) -> None:
        game_id = notice.game_id
        if isinstance(notice, GameEnded) or notice.status in ENDED.values():
            self.ended.add(game_id)
            self._heard.pop(game_id, None)
            return
        self._heard[game_id] = time.monotonic()
        if notice.status == "active" and notice.your_turn:
            seat = self._seats.get(game_id)
            if notice.commands is not None and seat is not None:
                self._offered[game_id] = Legal(seat=seat, version=notice.version, commands=notice.commands)
            if self.observer is not None and isinstance(notice, YourTurn):
                self.observer.delivered(game_id, None, notice.version, at)
            self._wake(game_id)

    def _wake(self, game_id: str) -> None:
        self._due.add(game_id)
        if game_id not in self._acting:
            self._acting[game_id] = asyncio.create_task(self._play(game_id))

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.safety_poll / 3)
            now = time.monotonic()
            for game_id, heard in list(self._heard.items()):
                if now - heard >= self.safety_poll:
                    self._heard[game_id] = now
                    self._wake(game_id)

    async def _play(self, game_id: str) -> None:
        try:
            while game_id in self._due and game_id not in self.ended:
                self._due.discard(game_id)
                await self._act(game_id)
                self._heard[game_id] = time.monotonic()
        except Exception as exc:  # noqa: BLE001 - reported; the other games go on
            self.errors.append(f"game {game_id}: {type(exc).__name__}: {exc}")
        finally:
            del self._acting[game_id]

    async def _act(self, game_id: str) -> None:
        """Send commands while the seat may act, each answer bringing the next legal commands."""
        legal = self._offered.pop(game_id, None) or await self._legal(game_id)
        while legal.commands:
            if self.commands >= self.max_commands:
                raise RuntimeError(f"no end after {self.commands} commands")
            result = await step(self.api, self.strategy, game_id, legal, self.observer)
            if result is None:
                legal = await self._legal(game_id)
                continue
            self.commands += 1
            if result.status != "active":
                self.ended.add(game_id)
                return
            legal = await following(self.api, game_id, legal, result)

    async def _legal(self, game_id: str) -> Legal:
        """`GET /legal`, remembering the seat it names (the notices' commands say none)."""
        legal = await self.api.sdk.legal(game_id)
        if legal.seat is not None:
            self._seats[game_id] = legal.seat
        return legal
