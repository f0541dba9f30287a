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

Every stream iterates either way: `async for` on the async `Client`'s, `for` on `SyncClient`'s (the same
classes; only the loop that reads the connection differs). Leaving the loop however it is left (`break`, an
exception, a `return`) needs no `aclose()`: the connection is closed when the stream is closed
(`aclose()`/`close()`, `async with`/`with`), when its client is closed, or when the stream is collected.
The async loop is no generator the event loop would have to finalise at exit: it is a plain iterator whose
open connection is an explicit state, so nothing is left to be thrown into at interpreter shutdown.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from stela_client import models as m
from stela_client.codec import decode, problem_of
from stela_client.errors import StelaError, TransportError, error_for
from stela_client.retry import retry_after
from stela_client.sse import Message, SseParser

if TYPE_CHECKING:
    from stela_client.calls import Api, Call

F = TypeVar("F")
TRANSIENT = (408, 429, 500, 502, 503, 504)


class Follower(Generic[F]):
    """The reconnecting core of every stream; subclasses say where to connect and how to read a message."""

    interruptible = False  # whether the set of followed things can change while connected

    def __init__(self, client: Api, *, last_event_id: str | None = None, ticket: bool = False,
                 read_timeout: float = 60.0, max_failures: int = 20) -> None:
        self.client, self.last_event_id, self.ticket = client, last_event_id, ticket
        self._io: Any = client  # its `run` and `transport`: async on `Client`, synchronous on `SyncClient`
        self.read_timeout, self.max_failures = read_timeout, max_failures
        self.connects = 0
        self.refusals: list[StelaError] = []  # the answers other than 200 (the last few)
        self.on_connect: Callable[[], None] | None = None
        self.last_end: str | None = None  # the reason of the last `end` frame
        self.closed = False
        self._ending = False  # the last event came: the stream ends with this connection
        self._ticket: str | None = None
        self._failures, self._renewed, self._last_error = 0, False, None  # type: tuple[int, bool, Exception | None]
        self._told: float | None = None
        self._connection: Any = None  # the open connection's context manager (async or sync)
        self._body: Any = None  # its chunks
        self._pending: list[F] = []  # frames read and not handed out yet
        self._parser = SseParser()
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._interrupt = asyncio.Event()  # set: drop the connection and connect again (MultiStream.watch)
        self._interrupted = False  # the same, for a synchronous stream

    # what subclasses define
    def target(self) -> tuple[str, dict[str, Any]]:
        """The path and query of the next connection (ticket and resume headers are added)."""
        raise NotImplementedError

    def resume_header(self) -> str | None:
        """The `Last-Event-ID` of the next connection."""
        return self.last_event_id

    def ticket_call(self) -> Call[m.Ticket]:
        raise NotImplementedError

    def accept(self, message: Message) -> F | None:
        """The frame `message` carries, or None to drop it (already delivered, or of no interest)."""
        raise NotImplementedError

    def finished(self, frame: F) -> bool:
        """True for the last event of the stream (a tournament's end): it ends when the server closes it after."""
        return False

    # shared by both loops
    def _request(self) -> tuple[str, dict[str, str]]:
        path, params = self.target()
        headers = {"Accept": "text/event-stream"}
        if self.ticket:
            params = {**params, "ticket": self._ticket}
        else:
            headers.update(self.client.auth)
        resume = self.resume_header()
        if resume:
            headers["Last-Event-ID"] = resume
        self._interrupt.clear()
        self._interrupted = False
        self._parser.restart()
        self._text.reset()
        return self.client.url(path, params), headers

    def _opened(self) -> None:
        self._failures, self._renewed = 0, False
        self.connects += 1
        if self.connects > 1:
            self.client.counters.reconnects += 1
        if self.on_connect is not None:
            self.on_connect()

    def _refused(self, status: int, body: bytes, headers: Any) -> None:
        """An answer other than 200: renew an expired ticket once, count a transient refusal, raise the rest."""
        error = error_for(status, problem_of(body), retry_after(headers.get("Retry-After")))
        self.refusals = [*self.refusals[-7:], error]
        if status == 401 and self.ticket and not self._renewed:
            self._ticket, self._renewed, self._told = None, True, 0.0  # an expired ticket: again with a new one
            return
        if status not in TRANSIENT:
            raise error
        self._failures, self._told, self._last_error = self._failures + 1, error.retry_after, error

    def _failed(self, exc: Exception) -> None:
        self._failures, self._told, self._last_error = self._failures + 1, None, exc

    def _delay(self) -> float:
        """The wait before the next connection (raising the last error after too many failures in a row);
        a clean close (a restart's `end`) waits `base` plus jitter, so a crowd does not come back at once."""
        if self._failures > self.max_failures and self._last_error is not None:
            raise self._last_error
        told, self._told = self._told, None
        if told == 0.0:
            return 0.0
        return self.client.backoff.delay(max(self._failures, 1), told, self.client.counters.rng)

    def _feed(self, chunk: bytes) -> bool:
        """Read a chunk into `_pending`; False when the server ended the connection (`end` frame)."""
        for message in self._parser.feed(self._text.decode(chunk)):
            frame = self.accept(message)
            if isinstance(frame, m.End):
                self.last_end = frame.reason
                return False
            if frame is not None:
                self._pending.append(frame)
        return True

    def _take(self) -> F:
        frame = self._pending.pop(0)
        if self.finished(frame):
            self._ending = True
        return frame

    def _ended(self) -> bool:
        """The connection ended: for good after the last event."""
        self.closed = self.closed or self._ending
        return self.closed

    # ---------------------------------------------------------------------------------------- async
    def __aiter__(self) -> Follower[F]:
        return self

    async def __aenter__(self) -> Follower[F]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def __anext__(self) -> F:
        while True:
            if self._pending:
                return self._take()
            if self.closed:
                await self._drop()
                raise StopAsyncIteration
            if self._connection is None:
                await self._connect()
                continue
            try:
                chunk = await self._next_chunk()
            except TransportError as exc:
                self._failed(exc)
                chunk = None
            if chunk is None or not self._feed(chunk):
                await self._drop()
                if not self._ended():
                    await asyncio.sleep(self._delay())

    async def _connect(self) -> None:
        try:
            if self.ticket and self._ticket is None:
                self._ticket = (await self._io.run(self.ticket_call())).ticket
            url, headers = self._request()
            connection = self._io.transport.stream(url, headers, self.read_timeout)
            resp = await connection.__aenter__()
        except TransportError as exc:
            self._failed(exc)
            await asyncio.sleep(self._delay())
            return
        self._connection = connection
        if resp.status == 200:
            self._opened()
            self._body = resp.chunks().__aiter__()
            return
        try:
            body = await resp.read()
        except TransportError:
            body = b""
        await self._drop()
        self._refused(resp.status, body, resp.headers)
        await asyncio.sleep(self._delay())

    async def _next_chunk(self) -> bytes | None:
        """The body's next chunk; None when it ended or (MultiStream.watch) the followed set changed."""
        if not self.interruptible:
            return await anext(self._body, None)
        following = asyncio.ensure_future(anext(self._body, None))
        interrupted = asyncio.ensure_future(self._interrupt.wait())
        try:
            done, _ = await asyncio.wait({following, interrupted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            interrupted.cancel()
        if following not in done:
            following.cancel()
            await asyncio.gather(following, return_exceptions=True)
            self._told = 0.0
            return None
        return following.result()

    async def _drop(self) -> None:
        connection, body, self._connection, self._body = self._connection, self._body, None, None
        with contextlib.suppress(Exception):
            if body is not None:
                await body.aclose()
            if connection is not None:
                await connection.__aexit__(None, None, None)

    async def aclose(self) -> None:
        """Close the connection (ending the iteration)."""
        self.closed = True
        self._pending.clear()
        await self._drop()

    # ---------------------------------------------------------------------------------------- sync
    def __iter__(self) -> Follower[F]:
        return self

    def __enter__(self) -> Follower[F]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __next__(self) -> F:
        while True:
            if self._pending:
                return self._take()
            if self.closed:
                self._drop_sync()
                raise StopIteration
            if self._interrupted:
                self._drop_sync()
                self._told = 0.0
            if self._connection is None:
                self._connect_sync()
                continue
            try:
                chunk = next(self._body, None)
            except TransportError as exc:
                self._failed(exc)
                chunk = None
            if chunk is None or not self._feed(chunk):
                self._drop_sync()
                if not self._ended():
                    time.sleep(self._delay())

    def _connect_sync(self) -> None:
        try:
            if self.ticket and self._ticket is None:
                self._ticket = self._io.run(self.ticket_call()).ticket
            url, headers = self._request()
            connection = self._io.transport.stream(url, headers, self.read_timeout)
            resp = connection.__enter__()
        except TransportError as exc:
            self._failed(exc)
            time.sleep(self._delay())
            return
        self._connection = connection
        if resp.status == 200:
            self._opened()
            self._body = iter(resp.chunks())
            return
        try:
            body = resp.read()
        except TransportError:
            body = b""
        self._drop_sync()
        self._refused(resp.status, body, resp.headers)
        time.sleep(self._delay())

    def _drop_sync(self) -> None:
        connection, self._connection, self._body = self._connection, None, None
        with contextlib.suppress(Exception):
            if connection is not None:
                connection.__exit__(None, None, None)

    def close(self) -> None:
        """Close the connection (ending the iteration) of a synchronous stream."""
        self.closed = True
        self._pending.clear()
        self._drop_sync()


class GameStream(Follower[m.GameFrame]):
    """One game: a `Snapshot` first (unless resuming), then one `EventFrame` per event, in version order."""

    def __init__(self, client: Api, game_id: str, **kw: Any) -> None:
        super().__init__(client, **kw)
        self.game_id = game_id
        self.version: int | None = int(self.last_event_id) if self.last_event_id else None

    def target(self) -> tuple[str, dict[str, Any]]:
        from stela_client.calls import path_of

        return path_of("v1", "games", self.game_id, "stream"), {}

    def ticket_call(self) -> Call[m.Ticket]:
        from stela_client.calls import Api

        return Api.game_ticket.build(self.client, self.game_id)

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

    def __init__(self, client: Api, *, legal: bool = False, **kw: Any) -> None:
        super().__init__(client, **kw)
        self.legal = legal

    def target(self) -> tuple[str, dict[str, Any]]:
        return "/v1/players/me/stream", {"legal": True if self.legal else None}

    def ticket_call(self) -> Call[m.Ticket]:
        from stela_client.calls import Api

        return Api.personal_ticket.build(self.client)

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

    def __init__(self, client: Api, games: list[str], *, personal: bool = False, legal: bool = False,
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
            self._interrupted = True

    def unwatch(self, game_id: str) -> None:
        if self.positions.pop(game_id, -1) != -1:
            self._interrupt.set()
            self._interrupted = True

    def target(self) -> tuple[str, dict[str, Any]]:
        params: dict[str, Any] = {"games": ",".join(self.positions) or None, "personal": self.personal or None,
                                  "legal": self.legal or None}
        if self.resume_header() is None:
            params["after"] = ",".join(f"{g}:{v}" for g, v in self.positions.items() if v is not None) or None
            params["personal_after"] = self.personal_cursor if self.personal else None
        return "/v1/stream", params

    def resume_header(self) -> str | None:
        return self.last_event_id if self._id_games == list(self.positions) else None

    def ticket_call(self) -> Call[m.Ticket]:
        from stela_client.calls import Api

        return Api.stream_ticket.build(self.client)

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


class EventStream(Follower[m.Event]):
    """A tournament's or an arena's events (public); its state on connect is kept in `snapshot`, and so is
    an arena's view after each run of events (its `standings` frame, which is no event). Ends after its
    last event (`last`)."""

    collection = ""
    last = ""

    def __init__(self, client: Api, owner_id: str, **kw: Any) -> None:
        super().__init__(client, **kw)
        self.owner_id = owner_id
        self.snapshot: dict[str, Any] | None = None
        self.version: int | None = None

    def target(self) -> tuple[str, dict[str, Any]]:
        from stela_client.calls import path_of

        return path_of("v1", self.collection, self.owner_id, "stream"), {}

    def accept(self, message: Message) -> m.Event | None:
        if message.event in ("snapshot", "standings"):
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
        return frame.type == self.last


class TournamentStream(EventStream):
    """A tournament's events; ends after `TournamentEnded`."""

    collection, last = "tournaments", "tournament.TournamentEnded"

    @property
    def tournament_id(self) -> str:
        return self.owner_id


class ArenaStream(EventStream):
    """An arena's events; ends after `TournamentEnded` (the final order, a fact every format shares)."""

    collection, last = "arenas", "tournament.TournamentEnded"


__all__ = ["ArenaStream", "EventStream", "Follower", "GameStream", "MultiStream", "PersonalStream", "StelaError",
           "TournamentStream"]
