"""The command pipeline: decide, append, publish — and answer with what was decided.

A command is decided against the game's cached state (no query when warm); the append's head
check (expected version and head hash) refuses a decision on a stale state, and the pipeline
then reloads and decides again, unless the client pinned `expected_version`. Idempotency keys
make a resent request (create, join, start, leave, command) return its first result, refusals
included: the key is stored with a fingerprint of the request (game, caller, body), a refused
first attempt with its refusal, and a key reused for another request is `IdempotencyKeyReused`. The new events are handed to the fan-out
without waiting for Redis, and returned as the domain structs that were decided, so the
response redacts them without decoding anything again.
"""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

import msgspec
import structlog

from domain.kernel import RuleViolation
from domain.table import Table, TableState
from service.commands import exceptions as x
from service.commands.exceptions import (
    IdempotencyKeyReused, InvalidCommand, InvalidOptions, InvalidRequest, NotSeated, ServiceError, TooMuchContention,
    Unauthorized, unknown_field,
)
from service.commands.publishing import Publisher
from service.commands.players import Viewer
from service.commands.repository import GameRepository, Loaded, decode
from service.store.protocol import AppendResult, ConcurrencyError, EventStore, Metadata, NewEvent, new_command_id
from service.commands.visibility import Sight, WireEvent, shown, sight

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


def fingerprint(*request: Any) -> str:
    """A digest of what a request asks for, stored with its idempotency key."""
    return hashlib.sha256(msgspec.json.encode(request, order="sorted")).hexdigest()


def refusal_of(exc: BaseException) -> dict[str, Any] | None:
    """A refusal as stored with an idempotency key (None: not a refusal to replay)."""
    if isinstance(exc, RuleViolation):
        return {"class": "RuleViolation", "code": exc.code, "message": exc.message}
    if isinstance(exc, ConcurrencyError):
        return {"class": "ConcurrencyError", "expected": exc.expected, "actual": exc.actual}
    if isinstance(exc, ServiceError) and type(exc).__name__ in x.__all__ and not isinstance(
            exc, (x.Unavailable, x.NotFound, x.Unauthorized, x.InvalidOptions, IdempotencyKeyReused)):
        return {"class": type(exc).__name__, "detail": exc.detail}
    return None


def refusal_error(game_id: str, refusal: dict[str, Any]) -> Exception:
    """The stored refusal, raised again."""
    match refusal["class"]:
        case "RuleViolation":
            return RuleViolation(refusal["code"], refusal["message"])
        case "ConcurrencyError":
            return ConcurrencyError(game_id, refusal["expected"], refusal["actual"])
        case name:
            return getattr(x, name)(refusal["detail"])


def _ensure_same(done: AppendResult, print_: str | None) -> None:
    if print_ is not None and done.fingerprint is not None and done.fingerprint != print_:
        raise IdempotencyKeyReused("this Idempotency-Key was used for another request; use a new key")


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
    replayed: bool = False  # the first result of a resent idempotency key

    def shown_to(self, viewer: Viewer) -> list[WireEvent]:
        """The recorded events as `viewer` may see them now."""
        seen: Sight = sight(self.table, self.state, viewer)
        return [w for d in self.events if (w := shown(self.table, d.event, d.version, d.at, seen)) is not None]


class CommandPipeline:
    """Creates games and runs platform and game commands through decide / append / publish."""

    def __init__(self, repository: GameRepository, store: EventStore, broker: Publisher) -> None:
        self.repository = repository
        self.store = store
        self.broker = broker

    async def create(self, viewer: Viewer, kind: str, options: dict[str, Any] | None, seats: int,
                     join: bool = True, time_control: Any = None, key: str | None = None) -> Outcome:
        if viewer.player is None:
            raise Unauthorized("register a player and send its bearer token to create games")
        table = self.repository.table(kind)
        print_ = fingerprint("create", viewer.player.id, kind, options, seats, join, msgspec.to_builtins(time_control))
        key = f"create:{key}" if key else None
        if key and (first := await self._created(viewer, key, print_)) is not None:
            return first
        game_id = str(uuid.uuid4())
        try:
            events = table.create(options, seats, secrets.token_bytes(32), created_by=viewer.player_id,
                                  time_control=time_control)
        except RuleViolation as exc:
            raise InvalidRequest(exc.message) if unknown_field(exc) else InvalidOptions(exc) from exc
        state = table.fold(events)
        if join:
            joined = table.join(state, viewer.player.id, viewer.player.name)
            events += joined
            state = table.fold(joined, state)
        try:
            result = await self._append(game_id, table, 0, events, Metadata(actor=viewer.player_id, to_act=[]), key,
                                        fingerprint=print_)
        except ConcurrencyError:  # the same key created a game meanwhile
            if key and (first := await self._created(viewer, key, print_)) is not None:
                return first
            raise
        self.repository.remember(game_id, Loaded(table, state, result.head))
        return Outcome(game_id, table, state, [])

    async def _created(self, viewer: Viewer, key: str, print_: str) -> Outcome | None:
        done = await self.store.keyed_stream(viewer.player_id or "", key)
        if done is None or done.stream_id is None:
            return None
        _ensure_same(done, print_)
        loaded = await self.repository.load(done.stream_id)
        return Outcome(done.stream_id, loaded.table, loaded.state, [], replayed=True)

    async def join(self, viewer: Viewer, game_id: str, seat: int | None, key: str | None = None) -> Outcome:
        player = viewer.require_player()
        return await self._run(game_id, viewer, None, key, lambda t, s: t.join(s, player.id, player.name, seat),
                               print_=fingerprint("join", game_id, player.id, seat))

    async def start(self, viewer: Viewer, game_id: str, key: str | None = None) -> Outcome:
        player = viewer.require_player()
        return await self._run(game_id, viewer, None, key, seated(lambda t, s: t.start(s, player.id, now_ms())),
                               print_=fingerprint("start", game_id, player.id))

    async def leave(self, viewer: Viewer, game_id: str, key: str | None = None) -> Outcome:
        """Give up the caller's seat before the start (Table.leave)."""
        player = viewer.require_player()
        return await self._run(game_id, viewer, None, key, seated(lambda t, s: t.leave(s, player.id)),
                               print_=fingerprint("leave", game_id, player.id))

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
        body = msgspec.to_builtins(command)
        print_ = fingerprint("command", game_id, player.id, body, expected_version) if idempotency_key else None
        return await self._run(game_id, viewer, expected_version, idempotency_key, decide, command=body,
                               loaded=loaded, print_=print_)

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
            refusal = InvalidRequest if unknown_field(exc) else InvalidCommand
            raise refusal(f"not a {table.kind} command: {exc}") from exc

    async def _run(self, game_id: str, viewer: Viewer, expected: int | None, key: str | None, decide: Decide,
                   command: dict[str, Any] | None = None, loaded: Loaded | None = None,
                   print_: str | None = None) -> Outcome:
        actor = viewer.player_id or ""
        loaded = loaded or await self.repository.cached(game_id)
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                loaded = await self.repository.load(game_id)
            try:
                loaded, events = await self._decided(game_id, loaded, expected, decide, fresh=attempt > 0)
            except (RuleViolation, ServiceError, ConcurrencyError) as exc:
                # a resent command may no longer fit the game: its key decides (looked up only now)
                if (first := await self.replayed_key(game_id, viewer, key, print_)) is not None:
                    return first
                await self._remember_refusal(game_id, actor, key, print_, exc)
                raise
            table, state = loaded.table, loaded.state
            new_state = table.fold(events, state)
            meta = Metadata(actor=actor or None, command_id=new_command_id(), command=command,
                            seat=table.seat_of(state, actor) if actor else None, to_act=table.to_act(new_state))
            try:
                result = await self._append(game_id, table, state.version, events, meta, key, loaded.head,
                                            fingerprint=print_)
            except ConcurrencyError as exc:
                self.repository.forget(game_id)
                if expected is not None:
                    if (first := await self.replayed_key(game_id, viewer, key, print_)) is not None:
                        return first
                    await self._remember_refusal(game_id, actor, key, print_, exc)
                    raise
                continue
            if result.duplicate:
                _ensure_same(result, print_)
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

    async def _remember_refusal(self, game_id: str, actor: str, key: str | None, print_: str | None,
                                exc: BaseException) -> None:
        refusal = refusal_of(exc)
        if key and actor and print_ and refusal is not None:
            await self.store.refused(game_id, actor, key, print_, refusal)

    async def _append(self, game_id: str, table: Table, version: int, events: list[Any], meta: Metadata,
                      key: str | None, head: str | None = None, fingerprint: str | None = None) -> AppendResult:
        new = [NewEvent(table.event_type(e), table.event_data(e)) for e in events]
        result = await self.store.append(game_id, version, new, meta, key, table.kind, prev_hash=head,
                                         fingerprint=fingerprint)
        if not result.duplicate:
            await self.broker.publish(game_id, result.events)  # in memory; Redis is sent in the background
            log.debug("appended", game_id=game_id, seat=meta.seat, events=len(events), version=result.last_version)
        return result

    async def _replayed(self, game_id: str, done: AppendResult) -> Outcome:
        """The first result of a resent idempotency key, read back from the store (a refusal is raised,
        marked `replayed` as the outcome would be)."""
        if done.refusal is not None:
            error = refusal_error(game_id, done.refusal)
            error.replayed = True  # type: ignore[attr-defined]
            raise error
        loaded = await self.repository.load(game_id)
        stored = await self.store.read_stream(game_id, after=done.first_version - 1, upto=done.last_version)
        return Outcome(game_id, loaded.table, loaded.state,
                       [Decided(e.version, decode(loaded.table, e), e.at.isoformat()) for e in stored], replayed=True)

    async def replayed_key(self, game_id: str, viewer: Viewer, key: str | None,
                           print_: str | None = None) -> Outcome | None:
        """The first result when `key` was used by this caller on this game before, else None;
        IdempotencyKeyReused when it was used for another request."""
        if not key:
            return None
        done = await self.store.idempotent_result(game_id, viewer.player_id or "", key)
        if done is None:
            return None
        _ensure_same(done, print_)
        return await self._replayed(game_id, done)


def seated(decide: Decide) -> Decide:
    """`decide`, with the table's "not seated" refusal as the 403 every seat-ownership refusal is."""

    def checked(table: Table, state: TableState) -> list[Any]:
        try:
            return decide(table, state)
        except RuleViolation as exc:
            if exc.code == "table.not_seated":
                raise NotSeated(exc.message) from exc
            raise

    return checked
