"""The one command loop for every aggregate: load, decide, append, publish — idempotent and retried.

A game and a tournament are both streams folded and decided by a pure decider, and one loop runs
their commands. A `Command` is decided against the stream's cached state (no query when warm); a
refusal of a cached state is checked once against the store before it stands. The append's head
check (expected version and head hash) refuses a decision on a stale state, and the loop then
reloads and decides again, unless the client pinned `expected`. Idempotency keys make a resent
command return its first result, refusals included: the key is stored with a fingerprint of the
request, a refused first attempt with its refusal, and a key reused for another request is
`IdempotencyKeyReused`. The new events are handed to the fan-out without waiting for Redis and
returned as the domain structs that were decided. A command may create games with its events
(`Command.games`, a tournament round's): the store writes them in the same transaction.

The loop knows nothing of HTTP: a replayed result says so (`Ran.replayed`), and a refusal given again
for a resent key is raised marked `replayed`; the edge writes the header from either.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec
import structlog

from domain.kernel import RuleViolation
from service.commands import exceptions as x
from service.commands.exceptions import IdempotencyKeyReused, ServiceError, TooMuchContention
from service.commands.publishing import Publisher
from service.commands.repository import Codec, Loaded, Repository, decode
from service.store.protocol import (
    AppendResult, ConcurrencyError, EventStore, Metadata, NewEvent, NewGame, StoredEvent, new_command_id,
)

log = structlog.get_logger("stela.loop")


class Folded(NamedTuple):
    """What a decider may return instead of its events alone: them and the state after them, when deciding
    had to fold them anyway (`Table.play_folded`), so recording them does not fold them again."""

    events: list[Any]
    after: Any


# (codec, state) -> the events decided (or them and the state after them), or a refusal raised
Decide = Callable[[Any, Any], "list[Any] | Folded"]


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


def refusal_error(stream_id: str, refusal: dict[str, Any]) -> Exception:
    """The stored refusal, raised again."""
    match refusal["class"]:
        case "RuleViolation":
            return RuleViolation(refusal["code"], refusal["message"])
        case "ConcurrencyError":
            return ConcurrencyError(stream_id, refusal["expected"], refusal["actual"])
        case name:
            return getattr(x, name)(refusal["detail"])


def ensure_same(done: AppendResult, print_: str | None) -> None:
    """IdempotencyKeyReused when the key's first use was another request than the one fingerprinted."""
    if print_ is not None and done.fingerprint is not None and done.fingerprint != print_:
        raise IdempotencyKeyReused("this Idempotency-Key was used for another request; use a new key")


class Policy(msgspec.Struct, frozen=True, kw_only=True):
    """How hard the loop tries for one kind of aggregate."""

    name: str  # in "the <name> changed too often" and the logs
    attempts: int = 8
    serial: bool = False  # one decision per stream at a time in this process (contention left between replicas)
    backoff: float = 0.0  # from the third attempt, a random pause of up to backoff × attempt seconds
    offload: bool = False  # decide in a worker thread: a decision that can take seconds (a round's pairing)
    # must not hold the event loop, whose other requests then run between the interpreter's switches


class Decided(msgspec.Struct, frozen=True):
    """One recorded event as the loop knows it: its version, domain struct and time."""

    version: int
    event: Any
    at: str


class Command(msgspec.Struct, frozen=True, kw_only=True):
    """One command for the loop: its stream, how to decide it, and how to record it."""

    stream_id: str
    decide: Decide
    actor: str | None = None  # who sends it (None: the platform)
    body: dict[str, Any] | None = None  # the command, as recorded in its first event's metadata
    key: str | None = None  # the idempotency key
    fingerprint: str | None = None  # of the request, stored with the key
    expected: int | None = None  # the version the client pinned (a clash is then a refusal, not a retry)
    describe: Callable[[Metadata, Loaded, Any], Metadata] | None = None  # what else the metadata says
    games: Callable[[Any, list[Any]], list[NewGame]] | None = None  # (state after, events) -> games to create


class Ran(msgspec.Struct, frozen=True):
    """A command's result: the stream after it and the events it recorded (the first ones, if replayed)."""

    loaded: Loaded
    events: list[Decided]
    replayed: bool = False
    created: dict[str, list[StoredEvent]] = {}  # the stored events of the games created with it, by id


class CommandLoop:
    """Runs commands on the streams of one repository through decide / append / publish."""

    def __init__(self, repository: Repository, store: EventStore, broker: Publisher, policy: Policy) -> None:
        self.repository = repository
        self.store = store
        self.broker = broker
        self.policy = policy
        self._locks: dict[str, asyncio.Lock] = {}

    async def run(self, command: Command, loaded: Loaded | None = None) -> Ran:
        """Decide `command` (on `loaded`, default the cached state) and append it; retried on a stale state."""
        if not self.policy.serial:
            return await self._run(command, loaded)
        async with self._locks.setdefault(command.stream_id, asyncio.Lock()):
            return await self._run(command, loaded)

    async def _run(self, c: Command, loaded: Loaded | None) -> Ran:
        loaded = loaded or await self.repository.cached(c.stream_id)
        for attempt in range(self.policy.attempts):
            if attempt:
                if attempt > 1 and self.policy.backoff:  # another replica keeps winning: let it finish
                    await asyncio.sleep(random.uniform(0, self.policy.backoff * attempt))
                loaded = await self.repository.load(c.stream_id)
            try:
                loaded, events = await self.decided(c.stream_id, loaded, c.expected, c.decide, fresh=attempt > 0)
            except (RuleViolation, ServiceError, ConcurrencyError) as exc:
                # a resent command may no longer fit the stream: its key decides (looked up only now)
                return await self._refused(c, exc)
            try:
                return await self._record(c, loaded, events)
            except ConcurrencyError as exc:
                self.repository.forget(c.stream_id)
                if c.expected is not None:
                    return await self._refused(c, exc)
        raise TooMuchContention(f"the {self.policy.name} changed too often while deciding; retry")

    async def _record(self, c: Command, loaded: Loaded, decided: list[Any] | Folded) -> Ran:
        """Append what was decided on `loaded` (ConcurrencyError: it was stale) and remember the state after."""
        codec, state = loaded.table, loaded.state
        events, after = decided if isinstance(decided, Folded) else (decided, codec.fold(decided, state))
        meta = Metadata(actor=c.actor or None, command_id=new_command_id(), command=c.body)
        if c.describe is not None:
            meta = c.describe(meta, loaded, after)
        games = c.games(after, events) if c.games is not None else []
        result = await self.append(c.stream_id, codec, state.version, events, meta, c.key, loaded.head,
                                   c.fingerprint, games)
        if result.duplicate:
            ensure_same(result, c.fingerprint)
            return await self.replayed(c.stream_id, result)
        loaded = self.repository.remember(c.stream_id, Loaded(codec, after, result.head))
        await self.repository.saved(c.stream_id, state.version, after)
        at = result.events[0].at.isoformat()
        return Ran(loaded, [Decided(state.version + i + 1, e, at) for i, e in enumerate(events)],
                   created=result.created)

    async def _refused(self, c: Command, exc: Exception) -> Ran:
        """The first result of the command's key if it has one, else `exc` raised (and kept with the key)."""
        if (first := await self.replayed_key(c.stream_id, c.actor, c.key, c.fingerprint)) is not None:
            return first
        refusal = refusal_of(exc)
        if c.key and c.actor and c.fingerprint and refusal is not None:
            await self.store.refused(c.stream_id, c.actor, c.key, c.fingerprint, refusal)
        raise exc

    async def decided(self, stream_id: str, loaded: Loaded, expected: int | None, decide: Decide,
                      fresh: bool = False) -> tuple[Loaded, list[Any] | Folded]:
        """The events `decide` makes of `loaded`; a refusal of a cached state (which another process
        may have moved on) is checked once against the store before it stands."""
        while True:
            try:
                if expected is not None and expected != loaded.state.version:
                    raise ConcurrencyError(stream_id, expected, loaded.state.version)
                if self.policy.offload:  # (a pure decider on frozen state: safe in another thread)
                    return loaded, await asyncio.to_thread(decide, loaded.table, loaded.state)
                return loaded, decide(loaded.table, loaded.state)
            except (RuleViolation, ServiceError, ConcurrencyError):
                if fresh:
                    raise
                current = await self.repository.load(stream_id)
                if current.state.version == loaded.state.version:
                    raise
                loaded, fresh = current, True

    async def open(self, stream_id: str, codec: Codec, events: list[Any], meta: Metadata, key: str | None = None,
                   print_: str | None = None, state: Any = None) -> Loaded:
        """Start a new stream with `events` (`state`: theirs, when the caller folded them already)."""
        state = state if state is not None else codec.fold(events)
        result = await self.append(stream_id, codec, 0, events, meta, key, None, print_)
        return self.repository.remember(stream_id, Loaded(codec, state, result.head))

    async def append(self, stream_id: str, codec: Codec, version: int, events: list[Any], meta: Metadata,
                     key: str | None, head: str | None, print_: str | None,
                     games: list[NewGame] | None = None) -> AppendResult:
        """Append `events` after `version` (and create `games` with them) and announce them."""
        new = [NewEvent(codec.event_type(e), codec.event_data(e)) for e in events]
        result = await self.store.append(stream_id, version, new, meta, key, codec.kind, prev_hash=head,
                                         fingerprint=print_, games=games or ())
        if not result.duplicate:
            await self.broker.publish(stream_id, result.events)  # in memory; Redis is sent in the background
            log.debug("appended", stream_id=stream_id, seat=meta.seat, events=len(events), version=result.last_version)
        return result

    async def replayed(self, stream_id: str, done: AppendResult) -> Ran:
        """The first result of a resent idempotency key, read back from the store (a refusal is raised)."""
        if done.refusal is not None:
            error = refusal_error(stream_id, done.refusal)
            error.replayed = True  # type: ignore[attr-defined]  # the edge says so, as for a replayed result
            raise error
        loaded = await self.repository.load(stream_id)
        stored = await self.store.read_stream(stream_id, after=done.first_version - 1, upto=done.last_version)
        # announced again: the first attempt may have committed and never heard so (a database crash, a
        # replica killed), and then nobody announced them; followers skip the versions they already have
        await self.broker.publish(stream_id, stored)
        return Ran(loaded, [Decided(e.version, decode(loaded.table, e), e.at.isoformat()) for e in stored],
                   replayed=True)

    async def replayed_key(self, stream_id: str, actor: str | None, key: str | None,
                           print_: str | None = None) -> Ran | None:
        """The first result when `key` was used by `actor` on this stream before, else None;
        IdempotencyKeyReused when it was used for another request."""
        if not key:
            return None
        done = await self.store.idempotent_result(stream_id, actor or "", key)
        if done is None:
            return None
        ensure_same(done, print_)
        return await self.replayed(stream_id, done)
