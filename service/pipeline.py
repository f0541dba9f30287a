"""The command pipeline: decide, append, publish — and answer with what was decided.

A command is decided against the game's cached state (no query when warm); the append's head
check (expected version and head hash) refuses a decision on a stale state, and the pipeline
then reloads and decides again, unless the client pinned `expected_version`. Idempotency keys
make a resent command return its first result. The new events are handed to the fan-out
without waiting for Redis, and returned as the domain structs that were decided, so the
response redacts them without decoding anything again.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

import msgspec
import structlog

from domain.kernel import RuleViolation
from domain.table import Table, TableState
from service.exceptions import (
    InvalidCommand, InvalidOptions, NotSeated, ServiceError, TooMuchContention, Unauthorized,
)
from service.fanout import Broker
from service.players import Viewer
from service.repository import GameRepository, Loaded, decode
from service.store.protocol import AppendResult, ConcurrencyError, EventStore, Metadata, NewEvent
from service.visibility import Sight, WireEvent, shown, sight

log = structlog.get_logger("stela.pipeline")
MAX_ATTEMPTS = 8
Decide = Callable[[Table, TableState], list[Any]]


def now_ms() -> int:
    """The time handed to clocked decisions (recorded in their ClockSet events, never read again)."""
    return int(time.time() * 1000)


def integral(value: Any) -> Any:
    """JSON Schema counts 3.0 as an integer; so do we (no field of ours is a float)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [integral(v) for v in value]
    if isinstance(value, dict):
        return {k: integral(v) for k, v in value.items()}
    return value


class Decided(msgspec.Struct, frozen=True):
    """One recorded event as the pipeline knows it: its version, domain struct and time."""

    version: int
    event: Any
    at: str


class Outcome(msgspec.Struct, frozen=True):
    """The game after a command and the events it recorded (empty for a dry run)."""

    game_id: str
    table: Table
    state: TableState
    events: list[Decided]

    def shown_to(self, viewer: Viewer) -> list[WireEvent]:
        """The recorded events as `viewer` may see them now."""
        seen: Sight = sight(self.table, self.state, viewer)
        return [w for d in self.events if (w := shown(self.table, d.event, d.version, d.at, seen)) is not None]


class CommandPipeline:
    """Creates games and runs platform and game commands through decide / append / publish."""

    def __init__(self, repository: GameRepository, store: EventStore, broker: Broker) -> None:
        self.repository = repository
        self.store = store
        self.broker = broker

    async def create(self, viewer: Viewer, kind: str, options: dict[str, Any] | None, seats: int,
                     join: bool = True, time_control: Any = None) -> Outcome:
        if viewer.player is None:
            raise Unauthorized("register a player and send its bearer token to create games")
        table = self.repository.table(kind)
        game_id = str(uuid.uuid4())
        try:
            events = table.create(options, seats, secrets.token_bytes(32), created_by=viewer.player_id,
                                  time_control=time_control)
        except RuleViolation as exc:
            raise InvalidOptions(exc) from exc
        state = table.fold(events)
        if join:
            joined = table.join(state, viewer.player.id, viewer.player.name)
            events += joined
            state = table.fold(joined, state)
        result = await self._append(game_id, table, 0, events, Metadata(actor=viewer.player_id, to_act=[]), None)
        self.repository.remember(game_id, Loaded(table, state, result.head))
        return Outcome(game_id, table, state, [])

    async def join(self, viewer: Viewer, game_id: str, seat: int | None) -> Outcome:
        player = viewer.require_player()
        return await self._run(game_id, viewer, None, None, lambda t, s: t.join(s, player.id, player.name, seat))

    async def start(self, viewer: Viewer, game_id: str) -> Outcome:
        player = viewer.require_player()
        return await self._run(game_id, viewer, None, None, lambda t, s: t.start(s, player.id, now_ms()))

    async def command(self, viewer: Viewer, game_id: str, raw: Any, expected_version: int | None,
                      idempotency_key: str | None, dry_run: bool = False) -> Outcome:
        """Decide and append one game command for the caller's seat.

        `raw` is the command as JSON bytes (`msgspec.Raw` or bytes) or as builtins.
        """
        player = viewer.require_player()
        loaded = await self.repository.cached(game_id)
        command = self._command(loaded.table, raw)

        def decide(table: Table, state: TableState) -> list[Any]:
            seat = table.seat_of(state, player.id)
            if seat is None:
                raise NotSeated("only a seated player may send game commands")
            return table.play(state, seat, command, now_ms())

        if dry_run:
            loaded, _ = await self._decided(game_id, loaded, None, decide)
            return Outcome(game_id, loaded.table, loaded.state, [])
        return await self._run(game_id, viewer, expected_version, idempotency_key, decide,
                               command=msgspec.to_builtins(command), loaded=loaded)

    @staticmethod
    def _command(table: Table, raw: Any) -> Any:
        try:
            if isinstance(raw, (bytes, msgspec.Raw)):
                try:
                    return table.decode_command_json(raw)
                except msgspec.ValidationError:  # perhaps 3.0 for an integer: the lenient path decides
                    raw = msgspec.json.decode(raw)
            return table.decode_command(integral(raw))
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise InvalidCommand(f"not a {table.kind} command: {exc}") from exc

    async def _run(self, game_id: str, viewer: Viewer, expected: int | None, key: str | None, decide: Decide,
                   command: dict[str, Any] | None = None, loaded: Loaded | None = None) -> Outcome:
        actor = viewer.player_id or ""
        loaded = loaded or await self.repository.cached(game_id)
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                loaded = await self.repository.load(game_id)
            try:
                loaded, events = await self._decided(game_id, loaded, expected, decide, fresh=attempt > 0)
            except (RuleViolation, ServiceError, ConcurrencyError):
                # a resent command may no longer fit the game: its key decides (looked up only now)
                if (first := await self.replayed_key(game_id, viewer, key)) is not None:
                    return first
                raise
            table, state = loaded.table, loaded.state
            new_state = table.fold(events, state)
            meta = Metadata(actor=actor or None, command_id=str(uuid.uuid4()), command=command,
                            seat=table.seat_of(state, actor) if actor else None, to_act=table.to_act(new_state))
            try:
                result = await self._append(game_id, table, state.version, events, meta, key, loaded.head)
            except ConcurrencyError:
                self.repository.forget(game_id)
                if expected is not None:
                    if (first := await self.replayed_key(game_id, viewer, key)) is not None:
                        return first
                    raise
                continue
            if result.duplicate:
                return await self._replayed(game_id, result)
            self.repository.remember(game_id, Loaded(table, new_state, result.head))
            await self.repository.saved(game_id, state.version, new_state)
            at = result.events[0].at.isoformat()
            return Outcome(game_id, table, new_state,
                           [Decided(state.version + i + 1, e, at) for i, e in enumerate(events)])
        raise TooMuchContention("the game changed too often while deciding; retry")

    async def _decided(self, game_id: str, loaded: Loaded, expected: int | None, decide: Decide,
                       fresh: bool = False) -> tuple[Loaded, list[Any]]:
        """The events `decide` makes of `loaded`; a refusal of a cached state (which another process
        may have moved on) is checked once against the store before it stands."""
        while True:
            try:
                if expected is not None and expected != loaded.state.version:
                    raise ConcurrencyError(game_id, expected, loaded.state.version)
                return loaded, decide(loaded.table, loaded.state)
            except (RuleViolation, ServiceError, ConcurrencyError):
                if fresh:
                    raise
                current = await self.repository.load(game_id)
                if current.state.version == loaded.state.version:
                    raise
                loaded, fresh = current, True

    async def _append(self, game_id: str, table: Table, version: int, events: list[Any], meta: Metadata,
                      key: str | None, head: str | None = None) -> AppendResult:
        new = [NewEvent(table.event_type(e), table.event_data(e)) for e in events]
        result = await self.store.append(game_id, version, new, meta, key, table.kind, prev_hash=head)
        if not result.duplicate:
            await self.broker.publish(game_id, result.events)  # in memory; Redis is sent in the background
            log.debug("appended", game_id=game_id, seat=meta.seat, events=len(events), version=result.last_version)
        return result

    async def _replayed(self, game_id: str, done: AppendResult) -> Outcome:
        """The first result of a resent idempotency key, read back from the store."""
        loaded = await self.repository.load(game_id)
        stored = await self.store.read_stream(game_id, after=done.first_version - 1, upto=done.last_version)
        return Outcome(game_id, loaded.table, loaded.state,
                       [Decided(e.version, decode(loaded.table, e), e.at.isoformat()) for e in stored])

    async def replayed_key(self, game_id: str, viewer: Viewer, key: str | None) -> Outcome | None:
        """The first result when `key` was used by this caller on this game before, else None."""
        if not key:
            return None
        done = await self.store.idempotent_result(game_id, viewer.player_id or "", key)
        return await self._replayed(game_id, done) if done is not None else None
