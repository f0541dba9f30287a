"""Arenas in the service: an aggregate like a tournament, run by the one command loop.

An arena's stream id is `arena-<uuid>` (the domain's id is the bare UUID) in the same event store as
the games; its decider is `domain.arena`, seen by the repository and the loop through `ArenaCodec`.
`ARENAS` is how hard the loop tries: one decision per arena at a time in this process, contention
left only between replicas, where the append's head check refuses a decision on a stale state.

What is an arena's own here: checking a new arena's kind, seat count, options and time control
against the catalogue; the time (`now_ms`) handed to the pairing and the close; the games of a
pairing, written already started with the ids, seeds and seats `PlayersPaired` lists, by the same
append as the pairing (`EventStore.append(games=...)`, one transaction; migration 009 links them in
`arena_games`, never in `tournament_games`); and berserk: the arena records `Berserked`, and the
player's clock in the game is halved by a `table.ClockSet` batch of the game (allowed only while the
game runs, before the player's own first command there, on a chess clock).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from datetime import timedelta
from typing import Any

import msgspec
import structlog

import domain.arena as A
from domain.clock import ClockSet
from domain.kernel import RuleViolation
from domain.table import Table, TableState
from service.commands.exceptions import Forbidden, InvalidOptions, NotFound, Unauthorized
from service.commands.loop import Command, CommandLoop, Policy, fingerprint
from service.commands.pipeline import GAMES, now_ms
from service.commands.players import Viewer
from service.commands.publishing import Publisher
from service.commands.repository import Codec, GameRepository, Loaded, Repository
from service.store.protocol import EventStore, Metadata, NewEvent, NewGame, StoredEvent, new_command_id

log = structlog.get_logger("stela.arenas")
PREFIX = "arena-"
KIND = "arena"
ARENAS = Policy(name="arena", attempts=16, serial=True, backoff=0.01)
FORBIDDEN = {"arena.not_platform", "arena.not_your_game"}
MAX_DELAY_S = 86_400  # an arena starts at most a day after its creation
LIVE_FOR = timedelta(days=3)  # every arena still running was created within this (it starts within a day, lasts one)
_STATE = msgspec.json.Decoder(A.ArenaState)


class ArenaNotFound(NotFound):
    pass


def stream_of(arena_id: str) -> str:
    return PREFIX + arena_id


class ArenaCodec:
    """`domain.arena` as the repository and the command loop see a decider (a `Codec`)."""

    kind = KIND

    @staticmethod
    def fold(events: list[Any], state: A.ArenaState | None = None) -> A.ArenaState:
        return A.fold(events, state)

    decode_event = staticmethod(A.decode_event)
    event_type = staticmethod(A.event_type)
    event_data = staticmethod(A.event_data)

    @staticmethod
    def dump_state(state: A.ArenaState) -> bytes:
        return msgspec.json.encode(state)

    @staticmethod
    def load_state(data: bytes) -> A.ArenaState:
        return _STATE.decode(data)


CODEC: Codec[A.ArenaState] = ArenaCodec()


class ArenaRepository(Repository):
    """The arenas: every `arena-` stream has the arena codec."""

    async def codec_of(self, stream_id: str) -> Codec | None:
        return CODEC  # a stream that does not exist has no events: `load` finds no state and refuses

    def not_found(self, stream_id: str) -> NotFound:
        return ArenaNotFound(f"no arena with id {stream_id.removeprefix(PREFIX)!r}")


class Arenas:
    """Creates arenas and runs their commands (players', the platform's) through the one command loop."""

    def __init__(self, store: EventStore, games: GameRepository, broker: Publisher, snapshot_every: int = 50) -> None:
        self.store = store
        self.games = games
        self.broker = broker
        self.repository = ArenaRepository(store, snapshot_every)
        self.loop = CommandLoop(self.repository, store, broker, ARENAS)
        self.game_loop = CommandLoop(games, store, broker, GAMES)  # berserk's clock change in a game
        self._berserking: dict[tuple[str, str], asyncio.Lock] = {}

    async def load(self, arena_id: str) -> Loaded[A.ArenaState]:
        """The arena's current state: the one held here plus the events after it."""
        return await self.repository.load(stream_of(arena_id))

    async def create(self, viewer: Viewer, command: A.CreateArena, starts_in_seconds: int = 0) -> A.ArenaState:
        """Open an arena organised by the caller, starting `starts_in_seconds` from now."""
        player = viewer.require_player()
        table = self.games.table(command.kind)
        try:
            if not table.game.min_players <= command.seats <= table.game.max_players:
                raise RuleViolation("arena.bad_options", f"{command.kind} seats {table.game.min_players} to "
                                                         f"{table.game.max_players} players")
            table.parse_options(command.options, command.seats)
            if command.time_control:
                table.create(command.options, command.seats, b"check", time_control=command.time_control)
            if command.berserk and not command.time_control.get("total_seconds"):
                raise RuleViolation("arena.bad_options", "berserk needs a chess clock (time_control.total_seconds)")
            if not 0 <= starts_in_seconds <= MAX_DELAY_S:
                raise RuleViolation("arena.bad_options", f"an arena starts within {MAX_DELAY_S} seconds")
            arena_id = str(uuid.uuid4())
            command = msgspec.structs.replace(command, starts_at_ms=now_ms() + 1000 * starts_in_seconds)
            events = A.create(arena_id, player.id, command, os.urandom(32))
        except RuleViolation as exc:  # options are an open object in the document: a kind's refusal is a 422
            raise InvalidOptions(exc) from exc
        meta = Metadata(actor=player.id, command=msgspec.to_builtins(command))
        return (await self.loop.open(stream_of(arena_id), CODEC, events, meta)).state

    async def act(self, viewer: Viewer | None, arena_id: str, command: A.ArenaCommand,
                  key: str | None = None) -> A.ArenaState:
        """Decide `command` for the caller (None: the platform) and append it, with the games of any pairing
        it makes; retried on a stale state. `key`: an idempotency key, as for game commands."""
        actor = viewer.player_id if viewer is not None else None
        admin = viewer.admin if viewer is not None else False
        if viewer is not None and actor is None and not admin:
            raise Unauthorized("a bearer token is required")

        def decide(_: Any, state: A.ArenaState) -> list[Any]:
            try:
                return A.decide(state, actor, command, admin=admin)
            except RuleViolation as exc:
                if exc.code in FORBIDDEN:
                    raise Forbidden(exc.message) from exc
                raise

        started: dict[str, Any] = {}  # each new game's folded state, remembered once the pairing is written

        def games(state: A.ArenaState, events: list[Any]) -> list[NewGame]:
            return [g for e in events if isinstance(e, A.PlayersPaired) for g in self.paired_games(state, e, started)]

        body = msgspec.to_builtins(command)
        print_ = fingerprint("arena", arena_id, actor, body) if key else None
        ran = await self.loop.run(Command(stream_id=stream_of(arena_id), decide=decide, actor=actor, body=body,
                                          key=key, fingerprint=print_, games=games))
        if ran.created:
            await self._announce(ran.loaded.state, ran.created, started)
        return ran.loaded.state

    async def platform(self, arena_id: str, command: A.ArenaCommand) -> A.ArenaState:
        """A command of the platform (pair, close, record a result)."""
        return await self.act(None, arena_id, command)

    async def _announce(self, state: A.ArenaState, created: dict[str, list[StoredEvent]],
                        started: dict[str, Any]) -> None:
        """The pairing's new games, held in the game repository and handed to the fan-out."""
        table = self.games.table(state.settings.kind)
        for game_id, stored in created.items():
            self.games.remember(game_id, Loaded(table, started[game_id], stored[-1].hash))
            await self.broker.publish(game_id, stored)
        log.debug("paired", arena_id=state.settings.arena_id, games=len(created))

    def paired_games(self, state: A.ArenaState, paired: A.PlayersPaired, started: dict[str, Any]) -> list[NewGame]:
        """Every game of the pairing, seated and started now, as new streams; each game's state put in `started`."""
        s = state.settings
        table = self.games.table(s.kind)
        games = []
        for game in paired.games:
            created = table.create(s.options, len(game.players), bytes.fromhex(game.seed or ""),
                                   created_by=s.organiser, time_control=s.time_control or None)
            folded = table.fold(created)
            batches = [(created, Metadata(actor=s.organiser, to_act=[]))]
            for seat, pid in enumerate(game.players):
                joined = table.join(folded, pid, state.players[pid].name, seat)
                folded = table.fold(joined, folded)
                batches.append((joined, Metadata(actor=pid, command_id=new_command_id(), to_act=[])))
            begun = table.start(folded, None, now_ms())
            folded = table.fold(begun, folded)
            batches.append((begun, Metadata(actor=s.organiser, command_id=new_command_id(),
                                            to_act=table.to_act(folded))))
            games.append(NewGame(game_id=game.game_id, kind=s.kind, tournament_id=s.arena_id, link="arena",
                                 round=game.number, batches=[
                ([NewEvent(table.event_type(e), table.event_data(e)) for e in evs], meta) for evs, meta in batches]))
            started[game.game_id] = folded
        return games

    async def berserk(self, viewer: Viewer, arena_id: str, game_id: str) -> A.ArenaState:
        """Halve the caller's clock in `game_id` for a bonus point on a win: checked by the arena first, the
        clock halved in the game, then `Berserked` recorded (one at a time per player and game here)."""
        player = viewer.require_player()
        lock = self._berserking.setdefault((game_id, player.id), asyncio.Lock())
        async with lock:
            state = (await self.load(arena_id)).state
            try:
                A.decide(state, player.id, A.Berserk(game_id=game_id))
            except RuleViolation as exc:
                if exc.code in FORBIDDEN:
                    raise Forbidden(exc.message) from exc
                raise
            await self._halve_clock(game_id, player.id)
            done = await self.act(viewer, arena_id, A.Berserk(game_id=game_id))
        self._berserking.pop((game_id, player.id), None)
        return done

    async def _halve_clock(self, game_id: str, player_id: str) -> None:
        """The seat's clock halved in the game, once: refused after its first move or its own halving (any
        replica's), decided on the state read with the log up to it and appended only onto that version
        (a concurrent berserk on another replica is a version conflict, never a second halving)."""
        loaded = await self.games.load(game_id)
        stored = await self.store.read_stream(game_id, upto=loaded.state.version)
        clock_set = ClockSet.__struct_config__.tag

        def decide(table: Table, state: TableState) -> list[Any]:
            seat = table.seat_of(state, player_id)
            if state.status != "active" or state.clock is None or seat is None:
                raise RuleViolation("arena.game_over", "the game has ended")
            if any(e.metadata.get("seat") == seat and (e.metadata.get("command") or e.type == clock_set)
                   for e in stored):
                raise RuleViolation("arena.game_over", "berserk once, before your first move in the game")
            return [halved(state, seat, now_ms())]

        meta = Command(stream_id=game_id, decide=decide, actor=player_id, expected=loaded.state.version,
                       describe=lambda m, before, after: msgspec.structs.replace(
                           m, seat=before.table.seat_of(before.state, player_id), to_act=before.table.to_act(after)))
        await self.game_loop.run(meta, loaded)

    async def events(self, arena_id: str, after: int = 0) -> tuple[A.ArenaState, list[StoredEvent]]:
        """The arena and its stored events after version `after` (read them through `redacted`)."""
        loaded = await self.load(arena_id)
        return loaded.state, await self.store.read_stream(stream_of(arena_id), after=after)

    async def recent(self, limit: int) -> list[A.ArenaState]:
        """The newest arenas, newest first (arenas last a day at most: no read model needed)."""
        return [(await self.repository.load(s)).state for s in await self.store.newest_streams(KIND, limit)]

    async def live(self) -> list[str]:
        """The ids of arenas created in the last three days (every arena that may still be running)."""
        return [s.removeprefix(PREFIX) for s in await self.store.streams_since(KIND, LIVE_FOR)]

    async def owners(self, game_ids: list[str]) -> dict[str, str]:
        """The arena of each of `game_ids` that belongs to one."""
        return await self.store.arenas_of(game_ids)


def halved(state: TableState, seat: int, at_ms: int) -> ClockSet:
    """The clock with `seat`'s time left halved (its deadline moved with it when its time is running)."""
    clock = state.clock
    assert clock is not None
    remaining = list(clock.remaining_ms)
    deadlines = list(clock.deadlines_ms)
    remaining[seat] //= 2  # time already spent counts when the seat moves, as always (domain.clock)
    if clock.since_ms[seat] is not None:
        deadlines[seat] = clock.since_ms[seat] + remaining[seat]  # type: ignore[operator]
    return ClockSet(at_ms=at_ms, remaining_ms=remaining, since_ms=list(clock.since_ms), deadlines_ms=deadlines,
                    timeouts=list(clock.timeouts))


def redacted(state: A.ArenaState, event: StoredEvent) -> dict[str, Any]:
    """A stored arena event on the wire, its secrets stripped until the arena has ended."""
    shown = A.redact(A.decode_event(event.type, event.data), state.finished)
    return {"version": event.version, "type": event.type, "data": A.event_data(shown), "at": event.at.isoformat()}


def verify_arena(events: list[tuple[str, dict[str, Any]]]) -> A.VerifyReport:
    """Re-derive a finished arena's pairings, points and standings from its (type, data) events, as stored or
    as `GET /v1/arenas/{id}/events` shows them after the end."""
    return A.verify([A.decode_event(type_, data) for type_, data in events])
