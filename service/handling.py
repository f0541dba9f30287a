"""The command pipeline: load a game, let the rules decide, append, publish.

`GameService` is where the service meets the domain. It folds a game from its
latest snapshot (kept in memory and every `snapshot_every` events in the
store), runs the `Table` decider, appends with optimistic concurrency
(reloading and deciding again on a clash unless the client pinned
`expected_version`), honours idempotency keys, and publishes what it appended.
It is also the only place that turns stored events into what a viewer may see.
"""

from __future__ import annotations

import hashlib
import pickle
import secrets
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any

import msgspec
import structlog

from domain.kernel import Game
from domain.table import Table, TableState
from service.errors import Problem
from service.fanout import Broker
from service.store.protocol import (
    AppendResult, ConcurrencyError, EventStore, Metadata, NewEvent, Player, StoredEvent, token_hash,
)

log = structlog.get_logger("stela.handling")
MAX_ATTEMPTS = 8


class Viewer(msgspec.Struct, frozen=True):
    """Who is asking: a player (or nobody) and whether they are an admin."""

    player: Player | None = None
    admin: bool = False

    @property
    def player_id(self) -> str | None:
        return self.player.id if self.player else None


class Loaded(msgspec.Struct, frozen=True):
    table: Table
    state: TableState
    head: str | None = None  # hash of the event at state.version, when known


class WireEvent(msgspec.Struct, frozen=True):
    """An event as a reader receives it."""

    version: int
    type: str
    data: dict[str, Any]
    at: str


class GameService:
    def __init__(self, store: EventStore, broker: Broker, games: dict[str, Game], snapshot_every: int = 50,
                 cache_size: int = 2000) -> None:
        self.store = store
        self.broker = broker
        self.tables = {kind: Table(game) for kind, game in games.items()}
        self.snapshot_every = snapshot_every
        self._cache: OrderedDict[str, tuple[TableState, str | None]] = OrderedDict()  # state, head hash
        self._cache_size = cache_size
        self._formats: dict[str, str] = {}
        self._kinds: dict[str, str] = {}  # game id -> kind (never changes)
        self._players: dict[str, Player] = {}  # token digest -> player (tokens are never reissued)

    # -- players -------------------------------------------------------------------
    async def register(self, name: str) -> tuple[Player, str]:
        token = "stl_" + secrets.token_urlsafe(32)
        player = await self.store.create_player(str(uuid.uuid4()), name, token_hash(token))
        return player, token

    async def authenticate(self, token: str) -> Player | None:
        digest = token_hash(token)
        player = self._players.get(digest)
        if player is None:
            player = await self.store.player_by_token(digest)
            if player is not None:
                if len(self._players) > 100_000:
                    self._players.clear()
                self._players[digest] = player
        return player

    # -- loading -------------------------------------------------------------------
    def table(self, kind: str) -> Table:
        table = self.tables.get(kind)
        if table is None:
            raise Problem(404, "unknown_kind", f"no game kind {kind!r}")
        return table

    async def load(self, game_id: str) -> Loaded:
        """The game's current state: cached or snapshot state plus the events after it (one query when warm)."""
        kind = self._kinds.get(game_id)
        if kind is None:
            kind = await self.store.stream_kind(game_id)
            if kind is None:
                raise Problem(404, "game_not_found", f"no game with id {game_id!r}")
            self._kinds[game_id] = kind
        table = self.table(kind)
        state, head = self._cache.get(game_id, (None, None))
        if state is None:
            found = await self.store.load_snapshot(game_id, self._format(kind))
            if found is not None:
                state = pickle.loads(found[1])  # noqa: S301 - our own snapshot, format-checked
        after = state.version if state is not None else 0
        new = await self.store.read_stream(game_id, after=after)
        if new:
            state = table.fold([self.decode(table, e) for e in new], state)
            head = new[-1].hash
        assert state is not None
        self._remember(game_id, state, head)
        return Loaded(table, state, head)

    def kind_of(self, game_id: str) -> str:
        """The kind of a game loaded before, or "unknown" (a cheap metric label)."""
        return self._kinds.get(game_id, "unknown")

    def _remember(self, game_id: str, state: TableState, head: str | None) -> None:
        self._cache[game_id] = (state, head)
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _format(self, kind: str) -> str:
        """Snapshot format: changes whenever the rules' source changes, so stale pickles are ignored."""
        if kind not in self._formats:
            root = Path(__file__).resolve().parent.parent / "domain"
            digest = hashlib.sha256()
            for path in sorted([*root.glob("*.py"), *(root / kind).glob("**/*.py")]):
                digest.update(path.read_bytes())
            self._formats[kind] = f"pickle:{kind}:{digest.hexdigest()[:16]}"
        return self._formats[kind]

    @staticmethod
    def decode(table: Table, event: StoredEvent) -> Any:
        return table.decode_event(event.type, event.data)

    # -- deciding ------------------------------------------------------------------
    async def create(self, viewer: Viewer, kind: str, options: dict[str, Any] | None, seats: int,
                     join: bool = True) -> tuple[str, TableState]:
        if viewer.player is None:
            raise Problem(401, "unauthorized", "register a player and send its bearer token to create games")
        table = self.table(kind)
        game_id = str(uuid.uuid4())
        events = table.create(options, seats, secrets.token_bytes(32), created_by=viewer.player_id)
        state = table.fold(events)
        if join:
            joined = table.join(state, viewer.player.id, viewer.player.name)
            events += joined
            state = table.fold(joined, state)
        _, stored = await self._append(game_id, 0, events, Metadata(actor=viewer.player_id, to_act=[]), None, kind)
        self._kinds[game_id] = kind
        self._remember(game_id, state, stored[-1].hash)
        return game_id, state

    async def join(self, viewer: Viewer, game_id: str, seat: int | None) -> tuple[TableState, list[WireEvent]]:
        player = self._require_player(viewer)
        return await self._run(game_id, viewer, None, None, lambda t, s: t.join(s, player.id, player.name, seat))

    async def start(self, viewer: Viewer, game_id: str) -> tuple[TableState, list[WireEvent]]:
        player = self._require_player(viewer)
        return await self._run(game_id, viewer, None, None, lambda t, s: t.start(s, player.id))

    async def command(self, viewer: Viewer, game_id: str, raw: Any, expected_version: int | None,
                      idempotency_key: str | None, dry_run: bool = False) -> tuple[TableState, list[WireEvent]]:
        """Decide and append one game command for the caller's seat."""
        player = self._require_player(viewer)
        loaded = await self.load(game_id)
        try:
            command = loaded.table.decode_command(raw)
        except msgspec.ValidationError as exc:
            raise Problem(422, "invalid_command", f"not a {loaded.table.kind} command: {exc}") from exc

        def decide(table: Table, state: TableState) -> list[Any]:
            seat = table.seat_of(state, player.id)
            if seat is None:
                raise Problem(403, "not_seated", "only a seated player may send game commands")
            return table.play(state, seat, command)

        if dry_run:
            decide(loaded.table, loaded.state)
            return loaded.state, []
        return await self._run(game_id, viewer, expected_version, idempotency_key, decide,
                               command=msgspec.to_builtins(command), loaded=loaded)

    async def _run(self, game_id: str, viewer: Viewer, expected: int | None, key: str | None, decide: Any,
                   command: dict[str, Any] | None = None, loaded: Loaded | None = None,
                   ) -> tuple[TableState, list[WireEvent]]:
        actor = viewer.player_id or ""
        if key:
            done = await self.store.idempotent_result(game_id, actor, key)
            if done is not None:
                return await self._replayed(game_id, viewer, done)
        for _ in range(MAX_ATTEMPTS):
            loaded = loaded or await self.load(game_id)
            state = loaded.state
            if expected is not None and expected != state.version:
                raise ConcurrencyError(game_id, expected, state.version)
            events = decide(loaded.table, state)
            new_state = loaded.table.fold(events, state)
            meta = Metadata(actor=actor or None, command_id=str(uuid.uuid4()), command=command,
                            seat=loaded.table.seat_of(state, actor) if actor else None,
                            to_act=loaded.table.to_act(new_state))
            try:
                result, stored = await self._append(game_id, state.version, events, meta, key, state.kind,
                                                    loaded.head)
            except ConcurrencyError:
                loaded = None
                if expected is not None:
                    raise
                continue
            if result.duplicate:
                return await self._replayed(game_id, viewer, result)
            self._remember(game_id, new_state, stored[-1].hash)
            if new_state.version // self.snapshot_every > state.version // self.snapshot_every:
                await self.store.save_snapshot(game_id, new_state.version, self._format(state.kind),
                                               pickle.dumps(new_state, protocol=pickle.HIGHEST_PROTOCOL))
            return new_state, self.visible(loaded.table, new_state, stored, viewer)
        raise Problem(409, "too_much_contention", "the game changed too often while deciding; retry")

    async def _append(self, game_id: str, version: int, events: list[Any], meta: Metadata, key: str | None,
                      kind: str, head: str | None = None) -> tuple[AppendResult, list[StoredEvent]]:
        table = self.tables[kind]
        new = [NewEvent(table.event_type(e), table.event_data(e)) for e in events]
        result = await self.store.append(game_id, version, new, meta, key, kind, prev_hash=head)
        if result.duplicate:
            return result, []
        stored = result.events
        await self.broker.publish(game_id, stored)
        log.info("appended", game_id=game_id, seat=meta.seat, command_type=(meta.command or {}).get("type"),
                 events=len(events), version=result.last_version)
        return result, stored

    async def _replayed(self, game_id: str, viewer: Viewer, done: AppendResult) -> tuple[TableState, list[WireEvent]]:
        loaded = await self.load(game_id)
        stored = await self.store.read_stream(game_id, after=done.first_version - 1, upto=done.last_version)
        return loaded.state, self.visible(loaded.table, loaded.state, stored, viewer)

    @staticmethod
    def _require_player(viewer: Viewer) -> Player:
        if viewer.player is None:
            raise Problem(401, "unauthorized", "a bearer token is required")
        return viewer.player

    # -- reading -------------------------------------------------------------------
    @staticmethod
    def seat_for(table: Table, state: TableState, viewer: Viewer) -> int | None:
        return table.seat_of(state, viewer.player_id) if viewer.player_id else None

    @staticmethod
    def is_public(state: TableState, viewer: Viewer) -> bool:
        return viewer.admin or state.status in ("finished", "aborted")

    def visible(self, table: Table, state: TableState, stored: list[StoredEvent], viewer: Viewer) -> list[WireEvent]:
        """`stored` events as `viewer` may see them now."""
        seat = self.seat_for(table, state, viewer)
        public = self.is_public(state, viewer)
        return [shown for event in stored if (shown := self.wire(table, event, seat, public)) is not None]

    def wire(self, table: Table, event: StoredEvent, seat: int | None, public: bool) -> WireEvent | None:
        """One stored event as `seat` (None = spectator) may see it, or None when it shows nothing."""
        shown = table.redact(self.decode(table, event), seat, public)
        if shown is None:
            return None
        return WireEvent(version=event.version, type=event.type, data=table.event_data(shown),
                         at=event.at.isoformat())

    async def state_at(self, game_id: str, version: int) -> tuple[Table, TableState]:
        loaded = await self.load(game_id)
        if not 1 <= version <= loaded.state.version:
            raise Problem(404, "version_not_found", f"the game has versions 1..{loaded.state.version}")
        stored = await self.store.read_stream(game_id, upto=version)
        return loaded.table, loaded.table.fold([self.decode(loaded.table, e) for e in stored])


def require_admin_or_over(state: TableState, viewer: Viewer) -> None:
    if not GameService.is_public(state, viewer):
        raise Problem(403, "game_running", "the full log is available after the game ends (or to an admin)")
