"""The personal stream: one SSE connection per player for all of their games.

Frames are default `message` events (no `event:` line, so `EventSource.onmessage` sees them)
whose data is a `Notice`: `game.state` (on connect, one per open or active game, and when the
player takes a seat), `game.started`, `game.your_turn` (the player's seat enters `to_act`) and
`game.ended` (finished or aborted, with the outcome). Comment lines are heartbeats.

The SSE `id` is a cursor: the milliseconds (Unix epoch) of the newest event this connection
has reflected, never decreasing. Reconnecting with `Last-Event-ID` re-announces, as
`game.state`, every open or active game and every game that ended since the cursor (less a
margin for events that commit out of time order): changes are coalesced, never lost.

One `PersonalHub` per process sees every game's batches through the fan-out (local appends,
and other replicas' through Redis), keeps the players connected here, their games and each
game's last `(status, to_act)`, and takes the new state from the repository's cache, folding
a replica's batch onto it, so an idle personal stream makes no query. While Redis is degraded
the hub polls the games it follows, and re-learns its players' games when pushes resume.
Its frames and per-connection queue are in `service.live.personal_frames`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec
import structlog

from domain.table import SeatTaken, TableState
from service.live.fanout import Broker
from service.commands.repository import GameRepository, Loaded, decode
from service.commands.views import OutcomeOut
from service.live.personal_frames import (CONNECTED, IDLE, WOKEN, Announced, Connection, Kind, Marker, Notice, Seen,
                                          appends, games_of, millis)
from service.live.sse import RETRY_MS, frame
from service.ops.stopping import cancel_within
from service.store.protocol import StoredEvent

log = structlog.get_logger("stela.personal")
RESUME_MARGIN_MS = 5_000  # events may commit a little out of time order; re-announce that much more
POLL_DEGRADED = 1.0  # seconds between polls of followed games while Redis is degraded
_OVER = ("finished", "aborted")
_SEAT_TAKEN = SeatTaken.__struct_config__.tag
_encode = msgspec.json.encode


class PersonalHub:
    """The players connected to this process and the games they follow; see the module docstring."""

    def __init__(self, repository: GameRepository, store: Any, broker: Broker) -> None:
        self.repository = repository
        self.store = store
        self.broker = broker
        self.connections: dict[str, set[Connection]] = {}  # player id -> its streams here
        self.members: dict[str, set[str]] = {}  # game id -> connected players seated in it
        self.seen: dict[str, Seen] = {}  # game id -> last known (status, to_act)
        self._pending: asyncio.Queue[tuple[str, list[StoredEvent]] | None] = asyncio.Queue()
        self._lock = asyncio.Lock()
        self._connecting = 0  # connections still reading their games
        self._recent: dict[str, int] = {}  # game id -> last version pushed while any connection was connecting
        self._task: asyncio.Task[None] | None = None
        self._relearn_queued = False  # a re-learn waits in `_pending` already
        self.queries = 0  # loads and lookups made by the hub's loop (tests check idle costs none)
        broker.on_batch.append(self._batch)
        broker.batch_wanted.append(lambda _game_id: bool(self.connections))
        broker.on_nudge.append(self._nudged)
        broker.on_wake.append(self._wake)

    # -- the fan-out's callbacks (synchronous, cheap) --------------------------------------
    def _batch(self, game_id: str, events: list[StoredEvent], remote: bool) -> None:
        if not self.connections:
            return
        if self._connecting:
            self._recent[game_id] = max(self._recent.get(game_id, 0), events[-1].version)
        if game_id in self.members or any(
                e.type == _SEAT_TAKEN and e.data.get("player_id") in self.connections for e in events):
            if not (remote and self._folded_now(game_id, events)):
                self._pending.put_nowait((game_id, events))

    def _folded_now(self, game_id: str, events: list[StoredEvent]) -> bool:
        """Another replica's batch that follows what the hub knows, folded and announced at once when
        nothing waits before it (not a turn of the hub's loop later: under load a turn takes milliseconds);
        False when it must take its turn. A local batch always waits: the pipeline caches its state after
        publishing, and the hub then takes that instead of folding again."""
        before = self.seen.get(game_id)
        if before is None or not self._pending.empty() or self._lock.locked():
            return False
        try:
            steps = self._pushed(game_id, before, events)
        except Exception:  # noqa: BLE001 - the hub's loop tries again and logs it
            return False
        for at_ms, loaded in steps or ():
            self._announce(game_id, before, loaded, at_ms)
        return steps is not None

    def _nudged(self) -> None:
        if self.connections and not self._relearn_queued:  # a burst of nudges makes one re-learn
            self._relearn_queued = True
            self._pending.put_nowait(None)  # re-learn every followed game

    def _wake(self) -> None:
        for conns in list(self.connections.values()):
            for conn in conns:
                with contextlib.suppress(asyncio.QueueFull):
                    conn.queue.put_nowait(None)

    # -- connections -------------------------------------------------------------------
    async def stream(self, player_id: str, last_event_id: int | None, heartbeat: float,
                     closing: asyncio.Event | None = None,
                     decorate: Callable[[Notice, Loaded | None], Awaitable[Any]] | None = None
                     ) -> AsyncIterator[bytes]:
        """The personal SSE byte stream of `player_id`; `decorate(notice, game)` turns each notice into
        what is sent (`game`: the game at the notice's version, for a turn's notice; else None)."""
        cursor = last_event_id or 0
        yield f"retry: {RETRY_MS}\n\n".encode()
        async with contextlib.aclosing(self.notices(player_id, last_event_id, heartbeat)) as notices:
            async for item in notices:
                if closing is not None and closing.is_set():
                    break
                if item is IDLE:
                    yield b": heartbeat\n\n"
                elif isinstance(item, tuple):
                    cursor = max(cursor, item[0])
                    yield frame(None, _encode(item[1] if decorate is None else await decorate(item[1], item[2])), cursor)
        yield f"retry: {RETRY_MS}\n: reconnect with Last-Event-ID\n\n".encode()

    async def notices(self, player_id: str, last_event_id: int | None,
                      idle: float) -> AsyncIterator[Announced | Marker]:
        """`player_id`'s notices, each with the time (ms) of the newest event it reflects (and, for a notice
        of the player's turn, the game at its version, so its legal commands need no read): the `game.state`
        announcement of a (re)connection, `CONNECTED`, then each notice as it happens; `IDLE` after `idle`
        seconds without one, `WOKEN` when the process wakes its connections (look at what ends them).
        Ends when the connection fell `QUEUE_MAX` notices behind (the client resumes from its cursor)."""
        conn = Connection(player_id)
        self.connections.setdefault(player_id, set()).add(conn)
        self._ensure_task()
        try:
            for announced in await self._connect(conn, last_event_id):
                yield announced
            yield CONNECTED
            while not conn.overflowed:
                try:
                    async with asyncio.timeout(idle):
                        item = await conn.queue.get()
                except TimeoutError:
                    yield IDLE
                    continue
                if item is None:
                    yield WOKEN
                elif item[1].version > conn.announced.get(item[1].game_id, 0):  # else shown on connect
                    yield item
        finally:
            self._leave(conn)

    async def _connect(self, conn: Connection, resume: int | None) -> list[Announced]:
        """The `game.state` notices a new connection starts with; its games join the followed set."""
        since = None if resume is None else resume - RESUME_MARGIN_MS
        out = []
        self._connecting += 1
        try:
            for member in await games_of(self.store, conn.player_id):
                if member.over and (since is None or member.last_ms <= since):
                    continue
                loaded = await self.repository.load(member.game_id)
                seat = loaded.table.seat_of(loaded.state, conn.player_id)
                if seat is None:
                    continue  # left before the start
                async with self._lock:
                    self.members.setdefault(member.game_id, set()).add(conn.player_id)
                    self.seen.setdefault(member.game_id, self._seen(loaded))
                conn.announced[member.game_id] = loaded.state.version
                notice = self._notice("game.state", member.game_id, loaded, seat)
                out.append((member.last_ms, notice, loaded if notice.your_turn else None))
                if self._recent.get(member.game_id, 0) > loaded.state.version:
                    await self.update(member.game_id, None)  # pushed while we read: not missed
        finally:
            self._connecting -= 1
            if not self._connecting:
                self._recent.clear()
        return out

    def _leave(self, conn: Connection) -> None:
        conns = self.connections.get(conn.player_id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.connections[conn.player_id]
                for game_id in [g for g, players in self.members.items() if conn.player_id in players]:
                    self.members[game_id].discard(conn.player_id)
                    if not self.members[game_id]:
                        del self.members[game_id]
                        self.seen.pop(game_id, None)

    # -- the loop ----------------------------------------------------------------------
    def _ensure_task(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="personal-hub")

    async def _run(self) -> None:
        while True:
            try:
                if self.broker.live:
                    item = await self._pending.get()
                else:
                    try:
                        async with asyncio.timeout(POLL_DEGRADED):
                            item = await self._pending.get()
                    except TimeoutError:
                        item = None
                if item is None:
                    self._relearn_queued = False
                    await self._relearn()
                else:
                    await self.update(*item)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the database may be away: re-learn everything shortly
                log.warning("personal_update_failed", error=str(exc))
                await asyncio.sleep(POLL_DEGRADED)
                self._pending.put_nowait(None)

    async def _relearn(self) -> None:
        """Re-read every connected player's games (pushes may have been lost)."""
        games: set[str] = set(self.members)
        if self.connections:  # one query for every player connected here, however many
            self.queries += 1
            games.update(g.game_id for g in await self.store.seats_of(list(self.connections)) if not g.over)
        for game_id in games:
            await self.update(game_id, None)

    async def update(self, game_id: str, events: list[StoredEvent] | None) -> None:
        """Take the game's new state (after `events`, or as the store has it) and notify who must know.

        The hub steps through every append it has not seen, one state per append, so a turn is
        announced even when the pushes of the appends around it were lost (a seat that acted and
        is to act again has entered `to_act` again, though the first and last states agree)."""
        async with self._lock:
            before = self.seen.get(game_id)
            for at_ms, loaded in await self._steps(game_id, before, events):
                self._announce(game_id, before, loaded, at_ms)
                if game_id not in self.members:
                    return
                before = self.seen[game_id]

    def _announce(self, game_id: str, before: Seen | None, loaded: Loaded, at_ms: int) -> None:
        now = self._seen(loaded)
        players = self.members.setdefault(game_id, set())
        seated = {info.player_id: info.seat for info in loaded.state.seats if info is not None}
        for player_id in players | (seated.keys() & self.connections.keys()):
            seat = seated.get(player_id)
            if seat is None:
                players.discard(player_id)
                continue
            kinds: list[Kind] = []
            if player_id not in players:
                players.add(player_id)
                kinds.append("game.state")
            elif before is not None:
                if before.status != "active" and now.status == "active":
                    kinds.append("game.started")
                if before.status not in _OVER and now.status in _OVER:
                    kinds.append("game.ended")
                if seat in now.to_act and seat not in before.to_act:
                    kinds.append("game.your_turn")
            for kind in kinds:
                notice = self._notice(kind, game_id, loaded, seat)
                for conn in list(self.connections.get(player_id, ())):
                    conn.put(at_ms, notice, loaded)
        if players:
            self.seen[game_id] = now
        else:
            del self.members[game_id]
            self.seen.pop(game_id, None)

    async def _steps(self, game_id: str, before: Seen | None,
                     events: list[StoredEvent] | None) -> list[tuple[int, Loaded]]:
        """The game's states after each append newer than `before`, with the time of each.

        A pushed batch right after `before` is folded onto it (or taken from the repository's cache,
        which the command pipeline filled); a gap, or a poll (`events` None), reads the appends
        after `before` from the store and folds them one transaction at a time. A game the hub
        knew nothing of is taken as it is now."""
        if before is None:
            loaded = await self._state(game_id, events)
            return [(millis(events[-1].at) if events else int(time.time() * 1000), loaded)]
        if events:
            steps = self._pushed(game_id, before, events)
            if steps is not None:
                return steps
        self.queries += 1
        stored = await self.store.read_stream(game_id, after=before.version)
        steps: list[tuple[int, Loaded]] = []
        loaded = before.loaded
        for batch in appends(stored):
            loaded = self._after(game_id, loaded, batch)
            steps.append((millis(batch[-1].at), loaded))
        return steps

    def _pushed(self, game_id: str, before: Seen, events: list[StoredEvent]) -> list[tuple[int, Loaded]] | None:
        """The step a pushed batch makes from `before`: none when the hub has it already, None when
        appends are missing in between."""
        events = [e for e in events if e.version > before.version]
        if not events:
            return []
        if events[0].version != before.version + 1:
            return None
        return [(millis(events[-1].at), self._after(game_id, before.loaded, events))]

    def _after(self, game_id: str, loaded: Loaded, batch: list[StoredEvent]) -> Loaded:
        """`loaded` with `batch` (the next append) applied: the repository's cached state when it is
        exactly that, else folded here (and cached when newer than the cache)."""
        cached = self.repository.peek(game_id)
        if cached is not None and cached.state.version == batch[-1].version:
            return cached
        state = loaded.table.fold([decode(loaded.table, e) for e in batch], loaded.state)
        after = Loaded(loaded.table, state, batch[-1].hash)
        if cached is None or cached.state.version < state.version:
            self.repository.remember(game_id, after)
        return after

    async def _state(self, game_id: str, events: list[StoredEvent] | None) -> Loaded:
        """The game after `events`, or as the store has it: the cache when it has them, the cache plus
        them when it is just before them (another replica's batch), else the store."""
        if events:
            cached = await self.repository.cached(game_id)  # a query only when this process never loaded it
            if cached.state.version >= events[-1].version:
                return cached
            if cached.state.version == events[0].version - 1:
                return self._after(game_id, cached, events)
        self.queries += 1
        return await self.repository.load(game_id)

    @staticmethod
    def _seen(loaded: Loaded) -> Seen:
        state: TableState = loaded.state
        return Seen(state.version, state.status, frozenset(loaded.table.to_act(state)), loaded)

    @staticmethod
    def _notice(kind: Kind, game_id: str, loaded: Loaded, seat: int) -> Notice:
        state = loaded.state
        to_act = loaded.table.to_act(state)
        outcome = OutcomeOut(**msgspec.structs.asdict(state.outcome)) if state.outcome else None
        return Notice(type=kind, game_id=game_id, kind=state.kind, status=state.status, version=state.version,
                      to_act=to_act, your_turn=seat in to_act, outcome=outcome)

    async def close(self) -> None:
        if self._task is not None:
            await cancel_within([self._task])
