"""The game command pipeline: create games and run their platform and game commands through the one
command loop (`service.commands.loop`), and answer with what was decided.

What is a game's own here: creating a game (an idempotent create is keyed by caller, not stream),
decoding a command for the game's kind, the seat a command speaks for, and the seat and turn
recorded in each batch's metadata. Load, decide, append, publish, idempotency keys and retries are
the loop's, as for every aggregate.
"""

from __future__ import annotations

import secrets
import time
import uuid
from typing import Any

import msgspec

from domain.clock import TimeOut
from domain.kernel import RuleViolation
from domain.table import Table, TableState
from service.commands.exceptions import (
    InvalidCommand, InvalidOptions, InvalidRequest, NotSeated, Unauthorized, unknown_field,
)
from service.commands.loop import (
    Command, CommandLoop, Decide, Decided, Folded, Policy, Ran, ensure_same, fingerprint,
)
from service.commands.publishing import Publisher
from service.commands.players import Viewer
from service.commands.repository import GameRepository, Loaded
from service.store.protocol import ConcurrencyError, EventStore, Metadata
from service.commands.sealing import Seals
from service.commands.visibility import Sight, WireEvent, shown, sight

GAMES = Policy(name="game", attempts=8)


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


def seat_and_turn(meta: Metadata, loaded: Loaded, after: TableState) -> Metadata:
    """A game batch's metadata also names the seat that sent it and the seats to act after it."""
    table: Table = loaded.table
    seat = table.seat_of(loaded.state, meta.actor) if meta.actor else None
    return msgspec.structs.replace(meta, seat=seat, to_act=table.to_act(after))


class Outcome(msgspec.Struct, frozen=True):
    """The game after a command and the events it recorded (empty for a dry run)."""

    game_id: str
    table: Table
    state: TableState
    events: list[Decided]
    replayed: bool = False  # the first result of a resent idempotency key
    sealed: bool = False  # the game has ended but its duplicate deal is still sealed

    def shown_to(self, viewer: Viewer) -> list[WireEvent]:
        """The recorded events as `viewer` may see them now."""
        seen: Sight = sight(self.table, self.state, viewer, self.sealed)
        return [w for d in self.events if (w := shown(self.table, d.event, d.version, d.at, seen)) is not None]


class CommandPipeline:
    """Creates games and runs platform and game commands through the one command loop."""

    def __init__(self, repository: GameRepository, store: EventStore, broker: Publisher,
                 seals: Seals | None = None) -> None:
        self.repository = repository
        self.store = store
        self.broker = broker
        self.loop = CommandLoop(repository, store, broker, GAMES)
        self.seals = seals or Seals()  # which ended games a duplicate deal still hides (none without tournaments)

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
            await self.loop.open(game_id, table, events, Metadata(actor=viewer.player_id, to_act=[]), key, print_,
                                 state=state)
        except ConcurrencyError:  # the same key created a game meanwhile
            if key and (first := await self._created(viewer, key, print_)) is not None:
                return first
            raise
        return Outcome(game_id, table, state, [])

    async def _created(self, viewer: Viewer, key: str, print_: str) -> Outcome | None:
        done = await self.store.keyed_stream(viewer.player_id or "", key)
        if done is None or done.stream_id is None:
            return None
        ensure_same(done, print_)
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
        if loaded.table.seat_of(loaded.state, player.id) is None and not viewer.admin and await self.seals.sealed(
                game_id, loaded.state.status not in ("finished", "aborted")):
            # the seal first: a non-seat learns nothing of a sealed deal's game, not its version from a conflict
            # (a deal's games are written with their seats, so the cached seats are the game's)
            raise NotSeated("only a seated player may send game commands")
        command = self._command(loaded.table, raw)

        def decide(table: Table, state: TableState) -> Folded:
            seat = table.seat_of(state, player.id)
            if seat is None:
                raise NotSeated("only a seated player may send game commands")
            return Folded(*table.play_folded(state, seat, command, now_ms()))

        if dry_run:  # refused exactly as the real post would be, a stale expected_version included
            loaded, _ = await self.loop.decided(game_id, loaded, expected_version, decide)
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
        ran = await self.loop.run(Command(stream_id=game_id, decide=decide, actor=viewer.player_id, body=command,
                                          key=key, fingerprint=print_, expected=expected, describe=seat_and_turn),
                                  loaded)
        return await self._sealed(_outcome(game_id, ran))

    async def _sealed(self, done: Outcome) -> Outcome:
        """`done`, marked sealed when the command ended a game whose duplicate deal is still being played."""
        if done.state.status not in ("finished", "aborted"):
            return done
        return msgspec.structs.replace(done, sealed=await self.seals.sealed(done.game_id, False))

    async def time_out(self, game_id: str, loaded: Loaded, seat: int, at_ms: int) -> Outcome:
        """The platform's `table.TimeOut` for `seat`, decided on `loaded` and pinned to its version: a
        refusal (`table.not_due`) or a version clash means the deadline was dealt with already."""
        command = TimeOut(seat=seat, at_ms=at_ms)

        def platform_seat(meta: Metadata, before: Loaded, after: TableState) -> Metadata:
            return msgspec.structs.replace(meta, seat=seat, to_act=before.table.to_act(after))

        ran = await self.loop.run(Command(stream_id=game_id, decide=lambda table, state: table.timeout(state, command),
                                          body=msgspec.to_builtins(command), expected=loaded.state.version,
                                          describe=platform_seat), loaded)
        return _outcome(game_id, ran)

    async def replayed_key(self, game_id: str, viewer: Viewer, key: str | None,
                           print_: str | None = None) -> Outcome | None:
        """The first result when `key` was used by this caller on this game before, else None;
        IdempotencyKeyReused when it was used for another request."""
        ran = await self.loop.replayed_key(game_id, viewer.player_id, key, print_)
        return await self._sealed(_outcome(game_id, ran)) if ran is not None else None


def _outcome(game_id: str, ran: Ran) -> Outcome:
    return Outcome(game_id, ran.loaded.table, ran.loaded.state, ran.events, replayed=ran.replayed)


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
