"""The bot: finds the games its player is seated in, plays each to its end, and finds new ones.

Where games come from is a `Discovery`: today `PollingDiscovery` reads the read models
(`GET /v1/players/{id}/games`, `GET /v1/games?player=…&status=active`; they may lag a second) every
few seconds. `PersonalStreamDiscovery`, the default, adds the personal stream
(`GET /v1/players/me/stream`, frames `game.started` / `game.your_turn` / `game.ended` with a
`game_id`): a frame wakes the bot at once; without that stream (404) it is plain polling. With `join_open` or `create` the bot also seeks a table
whenever it plays nothing, so a few bots started together play each other.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from stela_client import GameEnded, StelaError

from service.bots.client import ApiClient
from service.bots.play import Observer, SeatPlayer
from service.bots.strategies import Strategy

LIVE = ("open", "active")


class Discovery(Protocol):
    """Where the bot learns of its games. `news` (optional) is set by push sources when a frame arrives."""

    news: asyncio.Event | None

    async def live(self) -> set[str]:
        """Ids of the live games the player is seated in."""
        ...

    async def close(self) -> None: ...


@dataclass
class PollingDiscovery:
    """Asks the read models each time; no push, so the bot polls it every few seconds."""

    api: ApiClient
    player_id: str
    news: asyncio.Event | None = None

    async def live(self) -> set[str]:
        ids = {g["game_id"] for g in await self.api.player_games(self.player_id) if g["status"] in LIVE}
        ids |= {g["id"] for g in await self.api.games(player=self.player_id, status="active")}
        return ids

    async def close(self) -> None:
        return None


@dataclass
class PersonalStreamDiscovery:
    """Polling plus the personal stream: its frames name games at once and set `news`.

    Where the service has no personal stream yet (404), it quietly stays a polling discovery.
    """

    api: ApiClient
    player_id: str
    news: asyncio.Event | None = field(default_factory=asyncio.Event)
    pushed: set[str] = field(default_factory=set)
    available: bool | None = None  # None until the stream answered or was refused
    _task: asyncio.Task[None] | None = None

    async def live(self) -> set[str]:
        if self._task is None:
            self._task = asyncio.create_task(self._follow())
        return await PollingDiscovery(self.api, self.player_id).live() | self.pushed

    async def _follow(self) -> None:
        stream = self.api.sdk.personal_stream()
        stream.on_connect = self._connected
        try:
            async for notice in stream:
                if isinstance(notice, GameEnded):
                    self.pushed.discard(notice.game_id)
                else:
                    self.pushed.add(notice.game_id)
                assert self.news is not None
                self.news.set()
        except StelaError as exc:  # refused for good (retrying cannot mend it): plain polling
            if not 400 <= exc.status < 500:
                raise
            self.available = False

    def _connected(self) -> None:
        self.available = True

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


@dataclass
class Seeker:
    """Finds a table when the bot plays nothing: joins an open game of `join_open`, else creates one."""

    api: ApiClient
    join_open: str | None = None
    create: str | None = None
    seats: int = 2
    options: dict[str, Any] = field(default_factory=dict)

    async def seek(self, avoid: set[str]) -> dict[str, Any] | None:
        """The game joined or created (as the joiner sees it), or None if there is nothing to do."""
        if self.join_open:
            for item in await self.api.games(kind=self.join_open, status="open", open_seats=True):
                if item["id"] in avoid:
                    continue
                try:
                    return await self.api.join(item["id"])
                except StelaError as exc:
                    if exc.status not in (409, 404):  # taken meanwhile, or we sit there already
                        raise
        if self.create:
            return await self.api.create(self.create, self.seats, self.options)
        return None


@dataclass
class Played:
    game_id: str
    seat: int | None
    status: str
    won: bool
    score: int | None
    commands: int
    error: str | None = None


@dataclass
class Bot:
    """Plays until `games` games it took part in have ended (None: forever)."""

    api: ApiClient
    strategy: Strategy
    player_id: str | None = None
    seeker: Seeker | None = None
    games: int | None = 1
    poll: float = 3.0
    observer: Observer | None = None
    played: list[Played] = field(default_factory=list)

    async def run(self) -> list[Played]:
        self.player_id = self.player_id or await self.api.me()
        if self.player_id is None and self.seeker is None:
            raise ValueError("the bot needs its player id (--player) to find its games")
        discovery = PersonalStreamDiscovery(self.api, self.player_id) if self.player_id else None
        playing: dict[str, asyncio.Task[tuple[SeatPlayer, dict[str, Any]]]] = {}
        seen: set[str] = set()
        try:
            while self.games is None or len(self.played) < self.games:
                fresh = (await discovery.live() if discovery is not None else set()) - seen
                if not playing and not fresh and self.seeker is not None and self._room(playing):
                    game = await self.seeker.seek(seen)
                    if game is not None:
                        fresh.add(game["id"])
                        self._learn(game)
                        if discovery is None and self.player_id:
                            discovery = PersonalStreamDiscovery(self.api, self.player_id)
                for game_id in sorted(fresh):
                    if self._room(playing):
                        seen.add(game_id)
                        playing[game_id] = asyncio.create_task(self._play(game_id))
                await self._wait(playing, discovery.news if discovery is not None else None)
        finally:
            for task in playing.values():
                task.cancel()
            await asyncio.gather(*playing.values(), return_exceptions=True)
            if discovery is not None:
                await discovery.close()
        return self.played

    def _room(self, playing: dict[str, Any]) -> bool:
        return self.games is None or len(self.played) + len(playing) < self.games

    def _learn(self, game: dict[str, Any]) -> None:
        seat = game.get("your_seat")
        if self.player_id is None and seat is not None:
            self.player_id = game["seats"][seat]["player_id"]

    async def _play(self, game_id: str) -> tuple[SeatPlayer, dict[str, Any]]:
        player = SeatPlayer(self.api, game_id, self.strategy, self.observer)
        return player, await player.run()

    async def _wait(self, playing: dict[str, asyncio.Task[Any]], news: asyncio.Event | None) -> None:
        """Until a game ends, a push source has news, or `poll` seconds pass; then records ended games."""
        waiters: set[asyncio.Future[Any]] = set(playing.values())
        pushed = asyncio.ensure_future(news.wait()) if news is not None else None
        if pushed is not None:
            waiters.add(pushed)
        if waiters:
            await asyncio.wait(waiters, timeout=self.poll, return_when=asyncio.FIRST_COMPLETED)
        else:
            await asyncio.sleep(self.poll)
        if pushed is not None:
            pushed.cancel()
            news.clear()
        for game_id in [g for g, t in playing.items() if t.done()]:
            try:
                player, game = playing.pop(game_id).result()
            except Exception as exc:  # noqa: BLE001 - one broken game must not stop the bot
                self.played.append(Played(game_id=game_id, seat=None, status="error", won=False, score=None,
                                          commands=0, error=f"{type(exc).__name__}: {exc}"))
                continue
            outcome, seat = game.get("outcome") or {}, game.get("your_seat")
            self.played.append(Played(game_id=game_id, seat=seat, status=game["status"],
                                      won=seat in outcome.get("winners", []),
                                      score=outcome["scores"][seat] if outcome and seat is not None else None,
                                      commands=player.commands))
