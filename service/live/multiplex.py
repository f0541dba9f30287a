"""The multiplexed stream: several games and the personal notices on one SSE connection.

The protocol is docs/streams.md; the frames and the id format are in `service.live.multiplex_frames`.
Each game is read by a task (`_GameFeed`) exactly as a game stream reads it: it joins the game's
follower (`service.live.follower`) before reading PostgreSQL, sends a snapshot or the events after
its resume position, then each batch the follower delivers, as the viewer may see it (the one
visibility rule: `look`, `wire`), and reads the database only to fill a gap. It folds what it sends
onto the game's state, so every batch ends with a `turn` frame that is exact for that version (and
carries the seat's legal commands with `legal=true`). The personal notices come from the process's
`PersonalHub`. The tasks hand frames to the connection's queue; the connection numbers each frame
with every position it holds (the SSE `id`), so a reconnect with `Last-Event-ID` resumes each game
where it stopped. A slow reader backs the queue up into the followers' inboxes, which re-read.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import structlog

from service.commands.players import Viewer
from service.commands.repository import Loaded, decode
from service.commands.views import game_out, legal_commands
from service.commands.visibility import look, wire
from service.live.follower import LAGGED, WAKE, Batch
from service.live.multiplex_frames import (EndFrame, EndReason, EventFrame, Frame, PersonalFrame, ReadyFrame,
                                           SnapshotFrame, TurnFrame, position_id)
from service.live.personal import PersonalHub
from service.live.personal_frames import CONNECTED, WOKEN, Notice
from service.live.revocation import StreamEnd
from service.live.sse import HEARTBEAT_FRAME, RETRY_MS, Sources, follower_of, frame, seats_taken
from service.ops.stopping import cancel_within
from service.store.protocol import StoredEvent

log = structlog.get_logger("stela.multiplex")
QUEUE_MAX = 1000  # frames waiting for a slow reader before the feeds wait for it
PERSONAL = -1  # the source index of the personal notices
_CAUGHT_UP = "caught-up"
_WOKEN = "woken"
_encode = msgspec.json.encode


class Request(msgspec.Struct, frozen=True, kw_only=True):
    """What a client asked the multiplexed stream for (parsed and checked by the edge)."""

    games: list[str]
    after: list[int | None]  # a resume position per game (None: start with its snapshot)
    personal: bool = False
    personal_after: int | None = None
    legal: bool = False


class _GameFeed:
    """One game of one connection: reads and folds it, and hands its frames to the connection."""

    def __init__(self, mux: Multiplexed, index: int) -> None:
        self.mux, self.index = mux, index
        self.game_id = mux.request.games[index]
        self.last = 0  # the last version handed over (sent, or hidden from this viewer)
        self.loaded: Loaded | None = None  # the game's state at `last` or, before the first catch-up, after it
        self.seat: int | None = None
        self.public = self.sealed = False

    async def run(self) -> None:
        mux, services = self.mux, self.mux.services
        follower = follower_of(services, self.game_id, mux.heartbeat)
        inbox = follower.join()
        try:
            await self._start()
            ahead = follower.seen(self.last)
            if ahead is not None:
                await self._send(await self._read(ahead))
            await self._turn()
            await mux.put(self.index, _CAUGHT_UP)
            while True:
                item = await inbox.get()
                if item is WAKE:
                    await mux.put(self.index, _WOKEN)
                elif item is LAGGED:
                    await self._send(await self._read(None))
                    await self._turn()
                elif isinstance(item, Batch) and item.last > self.last:
                    gap = [] if item.first <= self.last + 1 else await self._read(item.first - 1)
                    await self._send(gap + [e for e in item.events if e.version > self.last], item)
                    await self._turn()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a failed read ends the connection; the client resumes
            log.warning("multiplexed_game_failed", game_id=self.game_id, error=str(exc))
            await mux.put(self.index, "error")
        finally:
            follower.leave(inbox)

    async def _start(self) -> None:
        """The snapshot, or the events after the resume position."""
        mux, services = self.mux, self.mux.services
        self.loaded = loaded = await services.repository.load(self.game_id)
        sight = await look(services.seals, self.game_id, loaded.table, loaded.state, mux.viewer)
        self.seat, self.public, self.sealed = sight.seat, sight.public, sight.sealed
        after = mux.request.after[self.index]
        if after is None:
            game = game_out(self.game_id, loaded.table, loaded.state, mux.viewer)
            self.last = loaded.state.version
            await mux.put(self.index, SnapshotFrame(game_id=self.game_id, game=game), self.last)
        else:
            self.last = after
            await self._send(await self._read(None))

    async def _read(self, upto: int | None) -> list[StoredEvent]:
        return await self.mux.services.store.read_stream(self.game_id, after=self.last, upto=upto)

    async def _send(self, events: list[StoredEvent], batch: Batch | None = None) -> None:
        """Hand over `events` (the versions after `last`, in order) as the viewer may see them."""
        if not events:
            return
        viewer_id = self.mux.viewer.player_id
        if viewer_id is not None:  # a viewer who sits down sees as that seat from then on
            self.seat = seats_taken(events).get(viewer_id, self.seat)
        self._fold(events, batch)
        assert self.loaded is not None
        for event in events:
            shown = wire(self.loaded.table, event, self.seat, self.public, self.sealed)
            if shown is not None:
                await self.mux.put(self.index, EventFrame(game_id=self.game_id, event=shown), event.version)
        self.last = events[-1].version

    def _fold(self, events: list[StoredEvent], batch: Batch | None) -> None:
        """The state after `events` (a batch's fold is shared by every connection at the same version)."""
        loaded = self.loaded
        assert loaded is not None
        new = [e for e in events if e.version > loaded.state.version]
        if not new:
            return

        def fold(_: Any) -> Loaded:
            state = loaded.table.fold([decode(loaded.table, e) for e in new], loaded.state)
            return Loaded(loaded.table, state, new[-1].hash)

        shared = batch is not None and new[0].version == batch.first == loaded.state.version + 1
        self.loaded = batch.derived("multiplex.state", fold) if shared and batch else fold(None)

    async def _turn(self) -> None:
        """Who must act now (the connection has handed over everything up to `last`)."""
        loaded = self.loaded
        if loaded is None or loaded.state.version != self.last:
            return
        to_act = loaded.table.to_act(loaded.state)
        yours = self.seat is not None and self.seat in to_act
        wanted = yours and self.mux.request.legal
        commands = legal_commands(loaded.table, loaded.state, self.seat) if wanted else msgspec.UNSET
        # with legal=true a client draws the game from the stream alone: the view the seat may see now
        view = loaded.table.view(loaded.state, self.seat) if self.mux.request.legal else msgspec.UNSET
        await self.mux.put(self.index, TurnFrame(game_id=self.game_id, version=self.last, status=loaded.state.status,
                                                 to_act=to_act, your_seat=self.seat, your_turn=yours,
                                                 commands=commands, view=view), self.last)


class Multiplexed:
    """One multiplexed stream (see the module docstring), iterated as SSE bytes."""

    def __init__(self, services: Sources, hub: PersonalHub, viewer: Viewer, request: Request, heartbeat: float,
                 closing: asyncio.Event | None = None) -> None:
        self.services, self.hub, self.viewer, self.request = services, hub, viewer, request
        self.heartbeat, self.closing = heartbeat, closing
        self.positions: list[int | None] = list(request.after)
        # a fresh connection's announcement covers everything until now: its cursor starts there
        fresh = int(time.time() * 1000)
        self.cursor: int | None = None if not request.personal else \
            fresh if request.personal_after is None else request.personal_after
        self.queue: asyncio.Queue[tuple[int, Any, int | None]] = asyncio.Queue(QUEUE_MAX)

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    async def put(self, source: int, item: Any, position: int | None = None) -> None:
        await self.queue.put((source, item, position))

    async def _chunks(self) -> AsyncIterator[bytes]:
        tasks = [asyncio.create_task(_GameFeed(self, i).run(), name=f"multiplex:{g}")
                 for i, g in enumerate(self.request.games)]
        if self.request.personal:
            tasks.append(asyncio.create_task(self._personal(), name="multiplex:personal"))
        waiting = set(range(len(self.request.games))) | ({PERSONAL} if self.request.personal else set())
        reason: EndReason | None = None
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            beat = time.monotonic()
            while reason is None:
                reason = self._ended()
                if reason is not None:
                    break
                try:
                    async with asyncio.timeout(max(0.0, min(1.0, beat + self.heartbeat - time.monotonic()))):
                        source, item, position = await self.queue.get()
                except TimeoutError:
                    if time.monotonic() - beat >= self.heartbeat:
                        beat = time.monotonic()
                        yield HEARTBEAT_FRAME
                    continue
                if isinstance(item, str):
                    if item == _CAUGHT_UP:
                        waiting.discard(source)
                        if not waiting:
                            yield self._frame(ReadyFrame(games=self._games(), personal=self.cursor))
                    elif item != _WOKEN:
                        reason = item  # type: ignore[assignment]  # "lagging" or "error"
                    continue
                self._advance(source, item, position)
                beat = time.monotonic()
                yield self._frame(item)
            yield frame(None, _encode(EndFrame(reason=reason)), retry=RETRY_MS)
        finally:
            await cancel_within(tasks)

    def _ended(self) -> EndReason | None:
        closing = self.closing
        if closing is None or not closing.is_set():
            return None
        if isinstance(closing, StreamEnd) and not closing.process.is_set():
            return "revoked"
        return "closing"

    def _advance(self, source: int, item: Frame, position: int | None) -> None:
        if source == PERSONAL:
            assert self.cursor is not None and position is not None
            self.cursor = max(self.cursor, position)
        elif position is not None:
            self.positions[source] = position

    def _frame(self, item: Frame) -> bytes:
        return frame(None, _encode(item), position_id(self.positions, self.cursor))

    def _games(self) -> dict[str, int]:
        return {g: p for g, p in zip(self.request.games, self.positions, strict=True) if p is not None}

    async def _personal(self) -> None:
        player = self.viewer.player_id
        assert player is not None
        try:
            async for item in self.hub.notices(player, self.request.personal_after, self.heartbeat):
                if item is CONNECTED:
                    await self.put(PERSONAL, _CAUGHT_UP)
                elif item is WOKEN:
                    await self.put(PERSONAL, _WOKEN)
                elif isinstance(item, tuple):
                    at_ms, notice, game = item
                    await self.put(PERSONAL, await self._notice(notice, game), at_ms)
            await self.put(PERSONAL, "lagging")  # the hub dropped this connection: it fell too far behind
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - as a game's failed read
            log.warning("multiplexed_personal_failed", error=str(exc))
            await self.put(PERSONAL, "error")

    async def _notice(self, notice: Notice, game: Loaded | None) -> PersonalFrame:
        if not self.request.legal:
            return PersonalFrame(**msgspec.structs.asdict(notice))
        assert self.viewer.player_id is not None
        return await with_commands(self.services.repository, self.viewer.player_id, notice, game)


async def with_commands(repository: Any, player_id: str, notice: Notice, game: Loaded | None = None) -> PersonalFrame:
    """`notice` with, when it says it is the player's turn, the seat's legal commands at its version: in
    `game` (the state the hub announced it from), else the cached state if it is still that version, else
    the store's (the whole stream read and folded again: a game that moved on before the notice was sent)."""
    fields = msgspec.structs.asdict(notice)
    if not notice.your_turn:
        return PersonalFrame(**fields)
    loaded = game if game is not None and game.state.version == notice.version else repository.peek(notice.game_id)
    if loaded is None or loaded.state.version != notice.version:
        current, state = await repository.state_at(notice.game_id, notice.version)
        loaded = Loaded(current.table, state)
    seat = loaded.table.seat_of(loaded.state, player_id)
    return PersonalFrame(**fields, commands=legal_commands(loaded.table, loaded.state, seat))
