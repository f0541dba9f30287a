"""Streams that resume by themselves: the game, personal, multiplexed and tournament streams.

Each is an async iterator of typed frames (`models.py`). Behind it one SSE connection at a time:
when the connection drops, idles past `read_timeout` (the server sends a heartbeat every 15 s), or
the server ends it (`end` frame, a restart), the stream reconnects and sends what it has seen, so the
server sends exactly what was missed: `Last-Event-ID` (the last `id` received), or on the
multiplexed stream, after the set of games changed, explicit `after` positions. Frames already
delivered are dropped if a server ever sends them again (counted in `Counters.skipped_duplicates`),
so the caller sees each event of a game once, in version order, across restarts.

Reconnects wait a little (`Backoff.base`) after a clean close, then back off exponentially while
connections fail, honouring `Retry-After` on 429/503; after `max_failures` failed connections in a
row the last error is raised. A refusal that retrying cannot mend (400, 403, 404, a 401 without a
ticket to renew) is raised at once as its typed error. With `ticket=True` the stream opens with a
stream ticket (`?ticket=`, as a browser's `EventSource` must) instead of the bearer header, and asks
for a new ticket when the old one is refused (expired).
"""

from __future__ import annotations

import asyncio
import codecs
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from stela_client import models as m
from stela_client.codec import decode, problem_of
from stela_client.errors import StelaError, TransportError, error_for
from stela_client.retry import retry_after
from stela_client.sse import Message, SseParser
from stela_client.transport import StreamResponse

if TYPE_CHECKING:
    from stela_client.client import Client

F = TypeVar("F")
TRANSIENT = (408, 429, 500, 502, 503, 504)


class Follower(Generic[F]):
    """The reconnecting core of every stream; subclasses say where to connect and how to read a message."""

    interruptible = False  # whether the set of followed things can change while connected

    def __init__(self, client: Client, *, last_event_id: str | None = None, ticket: bool = False,
                 read_timeout: float = 60.0, max_failures: int = 20) -> None:
        self.client, self.last_event_id, self.ticket = client, last_event_id, ticket
        self.read_timeout, self.max_failures = read_timeout, max_failures
        self.connects = 0
        self.refusals: list[StelaError] = []  # the answers other than 200 (the last few)
        self.on_connect: Callable[[], None] | None = None
        self.last_end: str | None = None  # the reason of the last `end` frame
        self._ticket: str | None = None
        self._run: AsyncIterator[F] | None = None
        self._interrupt = asyncio.Event()  # set: drop the connection and connect again (MultiStream.watch)

    def __aiter__(self) -> Follower[F]:
        return self

    async def __anext__(self) -> F:
        if self._run is None:
            self._run = self._frames()
        return await self._run.__anext__()

    async def aclose(self) -> None:
        """Close the connection (ending the iteration)."""
        if self._run is not None:
            await self._run.aclose()  # type: ignore[attr-defined]

    # what subclasses define
    def target(self) -> tuple[str, dict[str, Any]]:
        """The path and query of the next connection (ticket and resume headers are added)."""
        raise NotImplementedError

    def resume_header(self) -> str | None:
        """The `Last-Event-ID` of the next connection."""
        return self.last_event_id

    async def fetch_ticket(self) -> m.Ticket:
        raise NotImplementedError

    def accept(self, message: Message) -> F | None:
        """The frame `message` carries, or None to drop it (already delivered, or of no interest)."""
        raise NotImplementedError

    def finished(self, frame: F) -> bool:
        """True after the frame that ends the stream for good (a tournament's end)."""
        return False

    # the loop
    async def _frames(self) -> AsyncIterator[F]:
        failures, renewed = 0, False
        last_error: Exception | None = None
        while True:
            told: float | None = None
            try:
                async with await self._connect() as resp:
                    if resp.status == 200:
                        failures, renewed = 0, False
                        self._opened()
                        async for frame in self._read(resp):
                            yield frame
                            if self.finished(frame):
                                return
                    else:
                        error = error_for(resp.status, problem_of(await resp.read()),
                                          retry_after(resp.headers.get("Retry-After")))
                        self.refusals = [*self.refusals[-7:], error]
                        if resp.status == 401 and self.ticket and not renewed:
                            self._ticket, renewed = None, True  # an expired ticket: one more try with a new one
                            continue
                        if resp.status not in TRANSIENT:
                            raise error
                        failures, told, last_error = failures + 1, error.retry_after, error
            except TransportError as exc:
                failures, last_error = failures + 1, exc
            if failures > self.max_failures and last_error is not None:
                raise last_error
            # a clean close (a restart's `end`) waits `base` plus jitter, so a crowd does not come back at once
            await asyncio.sleep(self.client.backoff.delay(max(failures, 1), told, self.client.counters.rng))

    async def _connect(self) -> Any:
        path, params = self.target()
        headers = {"Accept": "text/event-stream"}
        if self.ticket:
            if self._ticket is None:
                self._ticket = (await self.fetch_ticket()).ticket
            params = {**params, "ticket": self._ticket}
        else:
            headers.update(self.client.auth)
        resume = self.resume_header()
        if resume:
            headers["Last-Event-ID"] = resume
        self._interrupt.clear()
        return self.client.transport.stream(self.client.url(path, params), headers, self.read_timeout)

    def _opened(self) -> None:
        self.connects += 1
        if self.connects > 1:
            self.client.counters.reconnects += 1
        if self.on_connect is not None:
            self.on_connect()

    async def _read(self, resp: StreamResponse) -> AsyncIterator[F]:
        parser, text = SseParser(), codecs.getincrementaldecoder("utf-8")(errors="replace")
        async for chunk in self._chunks(resp):
            for message in parser.feed(text.decode(chunk)):
                frame = self.accept(message)
                if isinstance(frame, m.End):
                    self.last_end = frame.reason
                    return  # the server closes; reconnect
                if frame is not None:
                    yield frame

    async def _chunks(self, resp: StreamResponse) -> AsyncIterator[bytes]:
        """The body's chunks until it ends or `_interrupt` is set (watched only where it can be set)."""
        if not self.interruptible:
            async for chunk in resp.chunks():
                yield chunk
            return
        chunks = resp.chunks().__aiter__()
        interrupted = asyncio.ensure_future(self._interrupt.wait())
        try:
            while not self._interrupt.is_set():
                following = asyncio.ensure_future(chunks.__anext__())
                done, _ = await asyncio.wait({following, interrupted}, return_when=asyncio.FIRST_COMPLETED)
                if following not in done:
                    following.cancel()
                    await asyncio.gather(following, return_exceptions=True)
                    return
                try:
                    yield following.result()
                except StopAsyncIteration:
                    return
        finally:
            interrupted.cancel()


class GameStream(Follower[m.GameFrame]):
    """One game: a `Snapshot` first (unless resuming), then one `EventFrame` per event, in version order."""

    def __init__(self, client: Client, game_id: str, **kw: Any) -> None:
        super().__init__(client, **kw)
        self.game_id = game_id
        self.version: int | None = int(self.last_event_id) if self.last_event_id else None

    def target(self) -> tuple[str, dict[str, Any]]:
        from stela_client.client import path_of

        return path_of("v1", "games", self.game_id, "stream"), {}

    async def fetch_ticket(self) -> m.Ticket:
        return await self.client.game_ticket(self.game_id)

    def accept(self, message: Message) -> m.GameFrame | None:
        if message.event == "snapshot":
            game = decode(message.data, m.Game)
            self.version = game.version
            self.last_event_id = message.id
            return m.Snapshot(game_id=self.game_id, game=game)
        event = decode(message.data, m.Event)
        if self.version is not None and event.version <= self.version:
            self.client.counters.skipped_duplicates += 1
            return None
        self.version, self.last_event_id = event.version, message.id
        return m.EventFrame(game_id=self.game_id, event=event)


class PersonalStream(Follower[m.NoticeFrame]):
    """The caller's games: `GameState` for each on (re)connect, then `GameStarted`, `YourTurn`, `GameEnded`;
    with `legal` a notice of the caller's turn carries its legal commands (`commands`)."""

    def __init__(self, client: Client, *, legal: bool = False, **kw: Any) -> None:
        super().__init__(client, **kw)
        self.legal = legal

    def target(self) -> tuple[str, dict[str, Any]]:
        return "/v1/players/me/stream", {"legal": True if self.legal else None}

    async def fetch_ticket(self) -> m.Ticket:
        return await self.client.personal_ticket()

    def accept(self, message: Message) -> m.NoticeFrame | None:
        self.last_event_id = message.id or self.last_event_id
        try:
            return decode(message.data, m.NoticeFrame)  # type: ignore[arg-type]
        except msgspec.ValidationError:
            return None  # a notice type newer than this client


class MultiStream(Follower[m.AnyFrame]):
    """Many games (at most 32) and, with `personal`, the player's notices, on one connection.

    `positions` holds each game's last version delivered (None: its snapshot is still to come) and
    `personal_cursor` the notices' cursor; `watch` and `unwatch` change the set of games at once
    (the connection is reopened with explicit `after` positions, so nothing is sent twice).
    """

    def __init__(self, client: Client, games: list[str], *, personal: bool = False, legal: bool = False,
                 **kw: Any) -> None:
        super().__init__(client, **kw)
        self.interruptible = True
        self.positions: dict[str, int | None] = dict.fromkeys(games)
        self.personal, self.legal = personal, legal
        self.personal_cursor: int | None = None
        self._id_games: list[str] | None = None  # the games the last id's positions belong to

    def watch(self, game_id: str) -> None:
        if game_id not in self.positions:
            self.positions[game_id] = None
            self._interrupt.set()

    def unwatch(self, game_id: str) -> None:
        if self.positions.pop(game_id, -1) != -1:
            self._interrupt.set()

    def target(self) -> tuple[str, dict[str, Any]]:
        params: dict[str, Any] = {"games": ",".join(self.positions) or None, "personal": self.personal or None,
                                  "legal": self.legal or None}
        if self.resume_header() is None:
            params["after"] = ",".join(f"{g}:{v}" for g, v in self.positions.items() if v is not None) or None
            params["personal_after"] = self.personal_cursor if self.personal else None
        return "/v1/stream", params

    def resume_header(self) -> str | None:
        return self.last_event_id if self._id_games == list(self.positions) else None

    async def fetch_ticket(self) -> m.Ticket:
        return await self.client.stream_ticket()

    def accept(self, message: Message) -> m.AnyFrame | None:
        try:
            frame: m.AnyFrame = decode(message.data, m.AnyFrame)  # type: ignore[arg-type]
        except msgspec.ValidationError:
            return None  # a frame type newer than this client
        if isinstance(frame, m.Snapshot):
            self.positions[frame.game_id] = frame.game.version
        elif isinstance(frame, m.EventFrame):
            seen = self.positions.get(frame.game_id)
            if seen is not None and frame.event.version <= seen:
                self.client.counters.skipped_duplicates += 1
                return None
            self.positions[frame.game_id] = frame.event.version
        if message.id is not None and not isinstance(frame, m.End):
            self.last_event_id, self._id_games = message.id, list(self.positions)
            last = message.id.rsplit(".", 1)[-1]
            if last.startswith("p") and last[1:].isdigit():
                self.personal_cursor = int(last[1:])
        return frame


class TournamentStream(Follower[m.Event]):
    """A tournament's events; its state on connect is kept in `snapshot`. Ends after `TournamentEnded`."""

    def __init__(self, client: Client, tournament_id: str, **kw: Any) -> None:
        super().__init__(client, **kw)
        self.tournament_id = tournament_id
        self.snapshot: dict[str, Any] | None = None
        self.version: int | None = None

    def target(self) -> tuple[str, dict[str, Any]]:
        from stela_client.client import path_of

        return path_of("v1", "tournaments", self.tournament_id, "stream"), {}

    def accept(self, message: Message) -> m.Event | None:
        if message.event == "snapshot":
            self.snapshot = decode(message.data, dict[str, Any])
            self.last_event_id = message.id
            return None
        event = decode(message.data, m.Event)
        if self.version is not None and event.version <= self.version:
            self.client.counters.skipped_duplicates += 1
            return None
        self.version, self.last_event_id = event.version, message.id
        return event

    def finished(self, frame: m.Event) -> bool:
        return frame.type == "tournament.TournamentEnded"


__all__ = ["Follower", "GameStream", "MultiStream", "PersonalStream", "StelaError", "TournamentStream"]
